package main

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
)

// iosimFlags are shared by the iosim subcommands (and coord simulate),
// bound to the fields of an iosim request, which validates them.
type iosimFlags struct {
	sim  iosim.Simulation
	json bool
}

// platform defines the flags of the platform and its overrides.
func (f *iosimFlags) platform(fl *pflag.FlagSet) {
	s := &f.sim.Source
	fl.StringVar(&s.Config, "config", "", "platform and classes, YAML or JSON, - for stdin (schema: go doc github.com/ckpt-hpc/ckpt/iosim Config)")
	fl.StringVar(&s.Platform, "platform", "cielo", "embedded platform when no --config: cielo | prospective")
	parsedVar(fl, &s.Bandwidth, "bandwidth", "", "override the aggregate file-system bandwidth (bytes/s, or 40GB/s)", optional(units.ParseBandwidth))
	parsedVar(fl, &s.NodeMTBF, "mtbf", "", "override the node MTBF (seconds, or 2y, 730d, 17520h)", optional(units.ParseSeconds))
}

// trials defines the flags of the simulated span (default span) and seed.
func (f *iosimFlags) trials(fl *pflag.FlagSet, span string) {
	s := &f.sim
	addSeedFlag(fl, &s.Seed, 1)
	durationVar(fl, &s.Span, "span", span, "simulated time per trial")
	durationVar(fl, &s.Skip, "skip", "1d", "time excluded from the metrics at each end of the span")
	durationVar(fl, &s.FixedPeriod, "fixed-period", "1h", "checkpoint period of the *-fixed strategies")
}

func (f *iosimFlags) common(cmd *cobra.Command, strategies bool) {
	fl, s := cmd.Flags(), &f.sim
	f.platform(fl)
	addJSONFlag(fl, &f.json)
	if !strategies {
		return
	}
	f.trials(fl, "62d")
	parsedVar(fl, &s.Strategies, "strategies", strings.Join(iosim.DefaultStrategies(), ","), "comma-separated strategies: "+strings.Join(iosim.Names(), ", "),
		func(v string) ([]string, error) { return strings.Split(v, ","), nil })
	fl.IntVar(&s.Seeds, "seeds", 10, "Monte Carlo trials (job lists and failure draws)")
	durationVar(fl, &s.IOChunk, "io-chunk", "1h", "compute time between two regular I/O transfers")
	addWorkersFlag(fl, &s.Workers)
	fl.BoolVar(&s.NoFailures, "no-failures", false, "switch failures off")
	fl.Uint64Var(&s.MaxEvents, "max-events", iosim.DefaultMaxEvents, "abort a simulated run that fires more events")
	fl.BoolVar(&s.ComputeFullPeriod, "compute-full-period", false, "compute P (not P - C) between checkpoints, as the paper's simulator does")
	fl.BoolVar(&s.VirtualTime, "virtual-time", false, "share the bandwidth in virtual time: O(log T) per transfer, not O(T); equal to within rounding, not bit for bit (go doc iosim Options.VirtualTime)")
	fl.StringVar(&s.Scheduler, "scheduler", "reserve", "batch scheduler: reserve (first-fit with a reservation for the first job that does not fit; keeps the class mix) | greedy (any job that fits; starves wide jobs)")
	fl.StringVar(&s.AuthorsModel, "authors-model", "", "simulate as the authors' simulator does, switch by switch (comma list of "+strings.Join(iosim.AuthorsSwitches.Names(), " | ")+"); default: the paper's model")
	fl.StringVar(&s.Accounting, "accounting", "ours", "how node-time is booked: ours (I/O at its interference-free duration, waste against the same seed's baseline) | authors (the paper's simulator: whole I/O spans, waste against the largest baseline of all trials)")
}

// simulation is the request the flags were read into, with --platform
// only when given or without --config and stdin (iosim WithInput).
func (f *iosimFlags) simulation(cmd *cobra.Command) (iosim.Simulation, error) {
	return f.sim.WithInput(cmd.InOrStdin(), cmd.Flags().Changed("platform"))
}

func newIOSimCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "iosim",
		Short: "Simulate checkpointing jobs sharing a parallel file system (cooperative I/O strategies)",
		Long: `Simulate a shared HPC platform whose jobs checkpoint through one parallel file
system, compare the I/O scheduling strategies of Herault et al. (APDCM 2018) —
Oblivious, Ordered, Ordered-NB with Fixed or Daly periods, Least-Waste — and
compute the lower bound of Theorem 1. The default platform is LANL's APEX
workload (Table I) on Cielo; --config loads your own machine (YAML or JSON).`,
	}
	cmd.AddCommand(newIOSimRunCmd(), newIOSimSweepCmd(), newIOSimBoundCmd(), newIOSimBandwidthForCmd())
	return cmd
}

func newIOSimRunCmd() *cobra.Command {
	var f iosimFlags
	var req iosim.RunRequest
	var printConfig bool
	var plotPath, htmlPath string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Monte Carlo waste of each strategy on one platform",
		Example: `  ckpt iosim run --bandwidth 40GB/s --mtbf 2y --seeds 20
  ckpt iosim run --strategies least-waste,ordered-nb-daly --json
  ckpt iosim run --config mymachine.yaml --print-config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sim, err := f.simulation(cmd)
			if err == nil && printConfig {
				return namedFlag(cmd, iosim.PrintConfig(cmd.OutOrStdout(), sim.Source), nil)
			}
			if err != nil {
				return namedFlag(cmd, err, nil)
			}
			if err := report.CheckPictures(plotPath, htmlPath, output.Path{Flag: "swf", Path: req.SWF}); err != nil {
				return err
			}
			if req.Timeline != "" && plotPath == "" && htmlPath == "" {
				return usagef("--timeline %q: draws into --plot or --html; give one", req.Timeline)
			}
			req.Simulation = sim
			rep, err := iosim.RunTrials(cmd.Context(), req)
			if err == nil {
				err = report.WritePictures(plotPath, htmlPath, rep)
			}
			return printer(cmd, f.json, nil)(rep, err)
		},
	}
	f.common(cmd, true)
	cmd.Flags().BoolVar(&printConfig, "print-config", false, "print the effective config as JSON (a template for --config) and exit")
	cmd.Flags().StringVar(&req.SWF, "swf", "", "also write the job list of the first trial as an SWF v2.2 log (header: generator, platform, classes, seed)")
	addPictureFlags(cmd.Flags(), &plotPath, &htmlPath, "the waste of each strategy, its split and the lower bound")
	cmd.Flags().StringVar(&req.Timeline, "timeline", "", "with --plot/--html, also draw the file system's use in the first trial over T0:T1 (10d:10.25d) or a length from the end of --skip (6h)")
	return cmd
}

func newIOSimSweepCmd() *cobra.Command {
	var f iosimFlags
	var req iosim.SweepRequest
	var csv, jsonl string
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Waste of each strategy against bandwidth or node MTBF (Figs. 2 and 3), shardable",
		Example: `  ckpt iosim sweep --vary bandwidth --values 40GB/s,80GB/s,160GB/s --seeds 100 --csv fig2.csv
  ckpt iosim sweep --vary mtbf --values 2y,5y,10y,25y,50y --bandwidth 40GB/s --csv fig3.csv
  ckpt iosim sweep --vary bandwidth --values 40GB/s,160GB/s --shard "$SLURM_ARRAY_TASK_ID/8" --csv part.$SLURM_ARRAY_TASK_ID.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if req.Simulation, err = f.simulation(cmd); err == nil {
				err = cmp.Or(req.Validate(), runner.CheckOutputPaths(csv, jsonl, f.json))
			}
			if err != nil {
				return namedFlag(cmd, err, nil)
			}
			rep, err := runner.WithOutputs(cmd.OutOrStdout(), csv, jsonl, &req.Sink, func() (iosim.SweepReport, error) { return iosim.RunSweep(cmd.Context(), req) })
			if err == nil && !f.json && (csv == "-" || jsonl == "-") {
				return nil // the rows hold stdout
			}
			return printer(cmd, f.json, nil)(rep, err)
		},
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&req.Vary, "vary", "bandwidth", "swept parameter: bandwidth | mtbf")
	hiddenAlias(fl, "param", "vary")
	fl.StringVar(&req.Values, "values", "40GB/s,50GB/s,60GB/s,70GB/s,80GB/s,90GB/s,100GB/s,110GB/s,120GB/s,130GB/s,140GB/s,150GB/s,160GB/s", "comma-separated values of --vary")
	parsedVar(fl, &req.Shard, "shard", "", "run only shard i/n of the items (0-based; merge with ckpt merge)", runner.ParseShard)
	fl.StringVar(&csv, "csv", "", "per-trial rows as CSV (- for stdout)")
	fl.StringVar(&jsonl, "jsonl", "", "per-trial rows as JSON lines (- for stdout)")
	return cmd
}

func newIOSimBoundCmd() *cobra.Command {
	var f iosimFlags
	var req iosim.BoundRequest
	cmd := &cobra.Command{
		Use:   "bound",
		Short: "Lower bound on the platform waste (Theorem 1) with the optimal periods per class",
		Example: `  ckpt iosim bound --bandwidth 40GB/s --mtbf 2y
  ckpt iosim bound --maple --json     # the published curve's (flawed) computation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sim, err := f.simulation(cmd)
			if err != nil {
				return err
			}
			req.Source = sim.Source
			return printer(cmd, f.json, nil)(iosim.RunBound(cmd.Context(), req))
		},
	}
	f.common(cmd, false)
	cmd.Flags().BoolVar(&req.Maple, "maple", false, "reproduce the paper's Maple computation (maple/celio.mpl, prospective.mpl): their inputs on the embedded platforms (shares, job sizes, checkpoint times and units), lambda = min(0, r), job counts weighted by 1/walltime, full bandwidth")
	cmd.Flags().BoolVar(&req.FullBandwidth, "full-bandwidth", false, "give checkpoints the whole bandwidth instead of what input/output/regular I/O leave")
	return cmd
}

func newIOSimBandwidthForCmd() *cobra.Command {
	var f iosimFlags
	var req iosim.BandwidthForRequest
	cmd := &cobra.Command{
		Use:   "bandwidth-for",
		Short: "Smallest bandwidth at which a strategy reaches a target efficiency (Fig. 4), by bisection",
		Example: `  ckpt iosim bandwidth-for --platform prospective --mtbf 10y --strategy least-waste
  ckpt iosim bandwidth-for --efficiency 0.9 --strategy ordered-nb-daly --seeds 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if req.Simulation, err = f.simulation(cmd); err != nil {
				return namedFlag(cmd, err, nil)
			}
			if !cmd.Flags().Changed("strategies") {
				req.Strategies = nil
			}
			if req.Maple && !cmd.Flags().Changed("efficiency") {
				req.Efficiency = 0 // the Maple file's own target
			}
			return printer(cmd, f.json, nil)(iosim.RunBandwidthFor(cmd.Context(), req))
		},
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&req.Strategy, "strategy", "least-waste", "strategy: "+strings.Join(iosim.Names(), ", "))
	fl.Float64Var(&req.Efficiency, "efficiency", 0.8, "target efficiency 1 - waste")
	parsedVar(fl, &req.Lo, "lo", "1GB/s", "lower end of the bisection", units.ParseBandwidth)
	parsedVar(fl, &req.Hi, "hi", "1PB/s", "upper end of the bisection", units.ParseBandwidth)
	fl.Float64Var(&req.Tolerance, "tolerance", 0.05, "relative precision of the answer")
	fl.BoolVar(&req.BoundOnly, "bound", false, "no simulation: the bandwidth at which the lower bound on the waste reaches the target (what no strategy can beat)")
	fl.BoolVar(&req.Maple, "maple", false, "with --bound: the published prospective-system curve (maple/prospective.mpl: its inputs, units and waste target 0.8)")
	// Registered by common for run and sweep; the request refuses them.
	_ = fl.MarkHidden("strategies")
	_ = fl.MarkHidden("bandwidth")
	return cmd
}
