package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// iosimFlags are shared by the iosim subcommands (and coord simulate):
// they only become an iosim request, which validates them.
type iosimFlags struct {
	config, platform  string
	bandwidth, mtbf   string
	strategies        string
	seeds             int
	seed              uint64
	span, skip, fixed string
	ioChunk           string
	workers           int
	json              bool
	noFailures        bool
	maxEvents         uint64
	fullPeriod        bool
	scheduler         string
	accounting        string
	authorsModel      string
}

func (f *iosimFlags) common(cmd *cobra.Command, strategies bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "platform and classes, YAML or JSON, - for stdin (schema: go doc github.com/ckpt-hpc/ckpt/iosim Config)")
	fl.StringVar(&f.platform, "platform", "cielo", "embedded platform when no --config: cielo | prospective")
	fl.StringVar(&f.bandwidth, "bandwidth", "", "override the aggregate file-system bandwidth (bytes/s, or 40GB/s)")
	fl.StringVar(&f.mtbf, "mtbf", "", "override the node MTBF (seconds, or 2y, 730d, 17520h)")
	addJSONFlag(fl, &f.json)
	if !strategies {
		return
	}
	fl.StringVar(&f.strategies, "strategies", strings.Join(iosim.DefaultStrategies(), ","), "comma-separated strategies: "+strings.Join(iosim.Names(), ", "))
	fl.IntVar(&f.seeds, "seeds", 10, "Monte Carlo trials (job lists and failure draws)")
	addSeedFlag(fl, &f.seed, 1)
	fl.StringVar(&f.span, "span", "62d", "simulated time per trial")
	fl.StringVar(&f.skip, "skip", "1d", "time excluded from the metrics at each end of the span")
	fl.StringVar(&f.fixed, "fixed-period", "1h", "checkpoint period of the *-fixed strategies")
	fl.StringVar(&f.ioChunk, "io-chunk", "1h", "compute time between two regular I/O transfers")
	addWorkersFlag(fl, &f.workers)
	fl.BoolVar(&f.noFailures, "no-failures", false, "switch failures off")
	fl.Uint64Var(&f.maxEvents, "max-events", iosim.DefaultMaxEvents, "abort a simulated run that fires more events")
	fl.BoolVar(&f.fullPeriod, "compute-full-period", false, "compute P (not P - C) between checkpoints, as the paper's simulator does")
	fl.StringVar(&f.scheduler, "scheduler", "reserve", "batch scheduler: reserve (first-fit with a reservation for the first job that does not fit; keeps the class mix) | greedy (any job that fits; starves wide jobs)")
	fl.StringVar(&f.authorsModel, "authors-model", "", "simulate as the authors' simulator does, switch by switch (comma list of "+strings.Join(iosim.AuthorsSwitches.Names(), " | ")+"); default: the paper's model")
	fl.StringVar(&f.accounting, "accounting", "ours", "how node-time is booked: ours (I/O at its interference-free duration, waste against the same seed's baseline) | authors (the paper's simulator: whole I/O spans, waste against the largest baseline of all trials)")
}

// source reads the platform flags (only their grammar: the request
// validates the values).
func (f *iosimFlags) source(cmd *cobra.Command) (iosim.Source, error) {
	s := iosim.Source{Config: f.config, Stdin: cmd.InOrStdin()}
	if f.config == "" || cmd.Flags().Changed("platform") {
		s.Platform = f.platform
	}
	if f.config == "-" { // read once, so that Validate and Run both see it
		b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), iosim.MaxConfigBytes+1))
		if err != nil {
			return s, err
		}
		s.Stdin = bytes.NewReader(b)
	}
	if f.bandwidth != "" {
		b, err := units.ParseBandwidth(f.bandwidth)
		if err != nil {
			return s, usagef("--bandwidth: %v", err)
		}
		s.Bandwidth = &b
	}
	if f.mtbf != "" {
		m, err := durationFlag("mtbf", f.mtbf)
		if err != nil {
			return s, err
		}
		s.NodeMTBF = &m
	}
	return s, nil
}

// simulation reads the flags of a Monte Carlo question; list is the
// strategies' flag value.
func (f *iosimFlags) simulation(cmd *cobra.Command, list string) (iosim.Simulation, error) {
	src, err := f.source(cmd)
	s := iosim.Simulation{Source: src, Seeds: f.seeds, Seed: f.seed, Workers: f.workers, NoFailures: f.noFailures,
		MaxEvents: f.maxEvents, ComputeFullPeriod: f.fullPeriod, Scheduler: f.scheduler, Accounting: f.accounting, AuthorsModel: f.authorsModel}
	if err != nil {
		return s, err
	}
	if list != "" {
		s.Strategies = strings.Split(list, ",")
	}
	for _, d := range []struct {
		name, v string
		p       *float64
	}{{"span", f.span, &s.Span}, {"skip", f.skip, &s.Skip}, {"fixed-period", f.fixed, &s.FixedPeriod}, {"io-chunk", f.ioChunk, &s.IOChunk}} {
		if *d.p, err = durationFlag(d.name, d.v); err != nil {
			return s, err
		}
	}
	return s, nil
}

// setup reads the config, the options and the strategies of flag (whose
// value is list): coord simulate's way into the simulator.
func (f *iosimFlags) setup(cmd *cobra.Command, flag, list string) (iosim.Config, iosim.Options, []iosim.Strategy, error) {
	s, err := f.simulation(cmd, list)
	if err != nil {
		return iosim.Config{}, iosim.Options{}, nil, err
	}
	c, opt, sts, err := s.Resolve()
	var ue *inputerr.Error
	if errors.As(err, &ue) && ue.Field == "strategies" {
		ue.Field = flag
	}
	return c, opt, sts, namedFlagErr(cmd, err)
}

// namedFlagErr names the flag of a request's field error: the packages name
// fields by their flag's name, so "span: ..." becomes "--span: ...".
func namedFlagErr(cmd *cobra.Command, err error) error {
	var ue *inputerr.Error
	if errors.As(err, &ue) && ue.Field != "" && cmd.Flags().Lookup(ue.Field) != nil {
		ue.Field = "--" + ue.Field
	}
	return err
}

// hiddenFlagAlias registers old as a hidden alias of the flag name (kept
// for one release after a rename).
func hiddenFlagAlias(fl *pflag.FlagSet, name, old string) {
	f := fl.Lookup(name)
	fl.AddFlag(&pflag.Flag{Name: old, Usage: "old name of --" + name, Value: f.Value, DefValue: f.DefValue, Hidden: true})
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
			if printConfig {
				return namedFlagErr(cmd, f.printConfig(cmd))
			}
			if err := checkPictureFlags(plotPath); err != nil {
				return err
			}
			if req.Timeline != "" && plotPath == "" && htmlPath == "" {
				return usagef("--timeline %q: draws into --plot or --html; give one", req.Timeline)
			}
			var err error
			if req.Simulation, err = f.simulation(cmd, f.strategies); err != nil {
				return namedFlagErr(cmd, err)
			}
			rep, err := iosim.RunTrials(cmd.Context(), req)
			if err == nil {
				err = report.WritePictures(plotPath, htmlPath, rep)
			}
			return printer(cmd, f.json)(rep, err)
		},
	}
	f.common(cmd, true)
	cmd.Flags().BoolVar(&printConfig, "print-config", false, "print the effective config as JSON (a template for --config) and exit")
	cmd.Flags().StringVar(&req.SWF, "swf", "", "also write the job list of the first trial as an SWF v2.2 log (header: generator, platform, classes, seed)")
	addPictureFlags(cmd.Flags(), &plotPath, &htmlPath, "the waste of each strategy, its split and the lower bound")
	cmd.Flags().StringVar(&req.Timeline, "timeline", "", "with --plot/--html, also draw the file system's use in the first trial over T0:T1 (10d:10.25d) or a length from the end of --skip (6h)")
	return cmd
}

// printConfig is `ckpt iosim run --print-config`.
func (f *iosimFlags) printConfig(cmd *cobra.Command) error {
	src, err := f.source(cmd)
	if err != nil {
		return err
	}
	c, err := iosim.PrintConfig(src)
	if err != nil {
		return err
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(c)
}

func newIOSimSweepCmd() *cobra.Command {
	var f iosimFlags
	var req iosim.SweepRequest
	var shard, csv, jsonl string
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Waste of each strategy against bandwidth or node MTBF (Figs. 2 and 3), shardable",
		Example: `  ckpt iosim sweep --vary bandwidth --values 40GB/s,80GB/s,160GB/s --seeds 100 --csv fig2.csv
  ckpt iosim sweep --vary mtbf --values 2y,5y,10y,25y,50y --bandwidth 40GB/s --csv fig3.csv
  ckpt iosim sweep --vary bandwidth --values 40GB/s,160GB/s --shard "$SLURM_ARRAY_TASK_ID/8" --csv part.$SLURM_ARRAY_TASK_ID.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if req.Simulation, err = f.simulation(cmd, f.strategies); err != nil {
				return namedFlagErr(cmd, err)
			}
			if req.Shard, err = runner.ParseShard(shard); err != nil {
				return usagef("--shard: %v", err)
			}
			if err := req.Validate(); err != nil {
				return namedFlagErr(cmd, err)
			}
			rep, err := sweepRows(cmd, csv, jsonl, &req.Sink, func() (iosim.SweepReport, error) { return iosim.RunSweep(cmd.Context(), req) })
			if err == nil && !f.json && (csv == "-" || jsonl == "-") {
				return nil // the rows hold stdout
			}
			return printer(cmd, f.json)(rep, err)
		},
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&req.Vary, "vary", "bandwidth", "swept parameter: bandwidth | mtbf")
	hiddenFlagAlias(fl, "vary", "param")
	fl.StringVar(&req.Values, "values", "40GB/s,50GB/s,60GB/s,70GB/s,80GB/s,90GB/s,100GB/s,110GB/s,120GB/s,130GB/s,140GB/s,150GB/s,160GB/s", "comma-separated values of --vary")
	fl.StringVar(&shard, "shard", "", "run only shard i/n of the items (0-based; merge with ckpt merge)")
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
			var err error
			if req.Source, err = f.source(cmd); err != nil {
				return err
			}
			return printer(cmd, f.json)(iosim.RunBound(cmd.Context(), req))
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
	var lo, hi string
	cmd := &cobra.Command{
		Use:   "bandwidth-for",
		Short: "Smallest bandwidth at which a strategy reaches a target efficiency (Fig. 4), by bisection",
		Example: `  ckpt iosim bandwidth-for --platform prospective --mtbf 10y --strategy least-waste
  ckpt iosim bandwidth-for --efficiency 0.9 --strategy ordered-nb-daly --seeds 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list := ""
			if cmd.Flags().Changed("strategies") {
				list = f.strategies
			}
			var err error
			if req.Simulation, err = f.simulation(cmd, list); err != nil {
				return namedFlagErr(cmd, err)
			}
			if req.Maple && !cmd.Flags().Changed("efficiency") {
				req.Efficiency = 0 // the Maple file's own target
			}
			for _, b := range []struct {
				name, v string
				p       *float64
			}{{"lo", lo, &req.Lo}, {"hi", hi, &req.Hi}} {
				if *b.p, err = units.ParseBandwidth(b.v); err != nil {
					return usagef("--%s: %v", b.name, err)
				}
			}
			return printer(cmd, f.json)(iosim.RunBandwidthFor(cmd.Context(), req))
		},
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&req.Strategy, "strategy", "least-waste", "strategy: "+strings.Join(iosim.Names(), ", "))
	fl.Float64Var(&req.Efficiency, "efficiency", 0.8, "target efficiency 1 - waste")
	fl.StringVar(&lo, "lo", "1GB/s", "lower end of the bisection")
	fl.StringVar(&hi, "hi", "1PB/s", "upper end of the bisection")
	fl.Float64Var(&req.Tolerance, "tolerance", 0.05, "relative precision of the answer")
	fl.BoolVar(&req.BoundOnly, "bound", false, "no simulation: the bandwidth at which the lower bound on the waste reaches the target (what no strategy can beat)")
	fl.BoolVar(&req.Maple, "maple", false, "with --bound: the published prospective-system curve (maple/prospective.mpl: its inputs, units and waste target 0.8)")
	// Registered by common for run and sweep; the request refuses them.
	_ = fl.MarkHidden("strategies")
	_ = fl.MarkHidden("bandwidth")
	return cmd
}

// textReport is a Report that renders itself as text; its JSON is its
// schema.
type textReport interface{ WriteText(io.Writer) error }

// printer returns the function that prints a command's report: JSON with
// --json, else its text. An error is returned instead, naming the flag of
// a request's field.
func printer(cmd *cobra.Command, asJSON bool) func(textReport, error) error {
	return func(rep textReport, err error) error {
		switch {
		case err != nil:
			return namedFlagErr(cmd, err)
		case asJSON:
			return writeJSON(cmd.OutOrStdout(), rep)
		}
		return rep.WriteText(cmd.OutOrStdout())
	}
}

// sweepRows runs a sweep whose rows go to the --csv and --jsonl files
// given (- for stdout) through *sink, and closes the files after it.
func sweepRows[T, R any](cmd *cobra.Command, csv, jsonl string, sink *runner.Sink[T], run func() (R, error)) (R, error) {
	closeOut := func() error { return nil }
	if csv != "" || jsonl != "" {
		var err error
		if *sink, closeOut, err = runner.CreateOutputs[T](cmd.OutOrStdout(), csv, jsonl); err != nil {
			var none R
			return none, err
		}
	}
	rep, err := run()
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return rep, err
}
