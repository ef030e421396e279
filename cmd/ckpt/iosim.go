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
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// iosimFlags are shared by the iosim subcommands (and coord simulate):
// they only become an iosim request, which validates them.
type iosimFlags struct {
	config, platform     string
	bandwidth, mtbf      string
	strategies           string
	seeds                int
	seed                 uint64
	swf                  string
	span, skip, fixed    string
	ioChunk              string
	workers              int
	json                 bool
	noFailures           bool
	maxEvents            uint64
	shard, csv, jsonl    string
	vary, values         string
	maple, fullBandwidth bool
	efficiency, tol      float64
	lo, hi, strategy     string
	boundOnly            bool
	printConfig          bool
	fullPeriod           bool
	scheduler            string
	accounting           string
	authorsModel         string
	plotPath, htmlPath   string
	timeline             string
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
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Monte Carlo waste of each strategy on one platform",
		Example: `  ckpt iosim run --bandwidth 40GB/s --mtbf 2y --seeds 20
  ckpt iosim run --strategies least-waste,ordered-nb-daly --json
  ckpt iosim run --config mymachine.yaml --print-config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return namedFlagErr(cmd, f.run(cmd)) },
	}
	f.common(cmd, true)
	cmd.Flags().BoolVar(&f.printConfig, "print-config", false, "print the effective config as JSON (a template for --config) and exit")
	cmd.Flags().StringVar(&f.swf, "swf", "", "also write the job list of the first trial as an SWF v2.2 log (header: generator, platform, classes, seed)")
	addPictureFlags(cmd.Flags(), &f.plotPath, &f.htmlPath, "the waste of each strategy, its split and the lower bound")
	cmd.Flags().StringVar(&f.timeline, "timeline", "", "with --plot/--html, also draw the file system's use in the first trial over T0:T1 (10d:10.25d) or a length from the end of --skip (6h)")
	return cmd
}

// run is `ckpt iosim run`.
func (f *iosimFlags) run(cmd *cobra.Command) error {
	if f.printConfig {
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
	if err := checkPictureFlags(f.plotPath); err != nil {
		return err
	}
	if f.timeline != "" && f.plotPath == "" && f.htmlPath == "" {
		return usagef("--timeline %q: draws into --plot or --html; give one", f.timeline)
	}
	s, err := f.simulation(cmd, f.strategies)
	if err != nil {
		return err
	}
	rep, err := iosim.RunTrials(cmd.Context(), iosim.RunRequest{Simulation: s, SWF: f.swf, Timeline: f.timeline})
	if err != nil {
		return err
	}
	if err := writeRunPictures(f.plotPath, f.htmlPath, rep); err != nil {
		return err
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return rep.WriteText(cmd.OutOrStdout())
}

// writeRunPictures writes `iosim run --plot/--html`.
func writeRunPictures(plotPath, htmlPath string, rep iosim.RunReport) error {
	if plotPath != "" {
		if err := rep.WritePlot(plotPath); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := rep.Page()
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}

func newIOSimSweepCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Waste of each strategy against bandwidth or node MTBF (Figs. 2 and 3), shardable",
		Example: `  ckpt iosim sweep --vary bandwidth --values 40GB/s,80GB/s,160GB/s --seeds 100 --csv fig2.csv
  ckpt iosim sweep --vary mtbf --values 2y,5y,10y,25y,50y --bandwidth 40GB/s --csv fig3.csv
  ckpt iosim sweep --vary bandwidth --values 40GB/s,160GB/s --shard "$SLURM_ARRAY_TASK_ID/8" --csv part.$SLURM_ARRAY_TASK_ID.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return namedFlagErr(cmd, f.sweep(cmd)) },
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.vary, "vary", "bandwidth", "swept parameter: bandwidth | mtbf")
	hiddenFlagAlias(fl, "vary", "param")
	fl.StringVar(&f.values, "values", "40GB/s,50GB/s,60GB/s,70GB/s,80GB/s,90GB/s,100GB/s,110GB/s,120GB/s,130GB/s,140GB/s,150GB/s,160GB/s", "comma-separated values of --vary")
	fl.StringVar(&f.shard, "shard", "", "run only shard i/n of the items (0-based; merge with ckpt merge)")
	fl.StringVar(&f.csv, "csv", "", "per-trial rows as CSV (- for stdout)")
	fl.StringVar(&f.jsonl, "jsonl", "", "per-trial rows as JSON lines (- for stdout)")
	return cmd
}

// sweep is `ckpt iosim sweep`.
func (f *iosimFlags) sweep(cmd *cobra.Command) error {
	s, err := f.simulation(cmd, f.strategies)
	if err != nil {
		return err
	}
	req := iosim.SweepRequest{Simulation: s, Vary: f.vary, Values: f.values}
	if req.Shard, err = runner.ParseShard(f.shard); err != nil {
		return usagef("--shard: %v", err)
	}
	if err := req.Validate(); err != nil {
		return err
	}
	closeOut := func() error { return nil }
	if f.csv != "" || f.jsonl != "" {
		if req.Sink, closeOut, err = runner.CreateOutputs[iosim.TrialResult](cmd.OutOrStdout(), f.csv, f.jsonl); err != nil {
			return err
		}
	}
	rep, err := iosim.RunSweep(cmd.Context(), req)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return err
	case f.json:
		return writeJSON(cmd.OutOrStdout(), rep)
	case f.csv == "-" || f.jsonl == "-":
		return nil
	}
	return rep.WriteText(cmd.OutOrStdout())
}

func newIOSimBoundCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "bound",
		Short: "Lower bound on the platform waste (Theorem 1) with the optimal periods per class",
		Example: `  ckpt iosim bound --bandwidth 40GB/s --mtbf 2y
  ckpt iosim bound --maple --json     # the published curve's (flawed) computation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return namedFlagErr(cmd, f.bound(cmd)) },
	}
	f.common(cmd, false)
	cmd.Flags().BoolVar(&f.maple, "maple", false, "reproduce the paper's Maple computation (maple/celio.mpl, prospective.mpl): their inputs on the embedded platforms (shares, job sizes, checkpoint times and units), lambda = min(0, r), job counts weighted by 1/walltime, full bandwidth")
	cmd.Flags().BoolVar(&f.fullBandwidth, "full-bandwidth", false, "give checkpoints the whole bandwidth instead of what input/output/regular I/O leave")
	return cmd
}

// bound is `ckpt iosim bound`.
func (f *iosimFlags) bound(cmd *cobra.Command) error {
	src, err := f.source(cmd)
	if err != nil {
		return err
	}
	rep, err := iosim.RunBound(cmd.Context(), iosim.BoundRequest{Source: src, Maple: f.maple, FullBandwidth: f.fullBandwidth})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return rep.WriteText(cmd.OutOrStdout())
}

func newIOSimBandwidthForCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "bandwidth-for",
		Short: "Smallest bandwidth at which a strategy reaches a target efficiency (Fig. 4), by bisection",
		Example: `  ckpt iosim bandwidth-for --platform prospective --mtbf 10y --strategy least-waste
  ckpt iosim bandwidth-for --efficiency 0.9 --strategy ordered-nb-daly --seeds 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return namedFlagErr(cmd, f.bandwidthFor(cmd)) },
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.strategy, "strategy", "least-waste", "strategy: "+strings.Join(iosim.Names(), ", "))
	fl.Float64Var(&f.efficiency, "efficiency", 0.8, "target efficiency 1 - waste")
	fl.StringVar(&f.lo, "lo", "1GB/s", "lower end of the bisection")
	fl.StringVar(&f.hi, "hi", "1PB/s", "upper end of the bisection")
	fl.Float64Var(&f.tol, "tolerance", 0.05, "relative precision of the answer")
	fl.BoolVar(&f.boundOnly, "bound", false, "no simulation: the bandwidth at which the lower bound on the waste reaches the target (what no strategy can beat)")
	fl.BoolVar(&f.maple, "maple", false, "with --bound: the published prospective-system curve (maple/prospective.mpl: its inputs, units and waste target 0.8)")
	// Registered by common for run and sweep; the request refuses them.
	_ = fl.MarkHidden("strategies")
	_ = fl.MarkHidden("bandwidth")
	return cmd
}

// bandwidthFor is `ckpt iosim bandwidth-for`.
func (f *iosimFlags) bandwidthFor(cmd *cobra.Command) error {
	list := ""
	if cmd.Flags().Changed("strategies") {
		list = f.strategies
	}
	s, err := f.simulation(cmd, list)
	if err != nil {
		return err
	}
	req := iosim.BandwidthForRequest{Simulation: s, Strategy: f.strategy, Efficiency: f.efficiency, Tolerance: f.tol, BoundOnly: f.boundOnly, Maple: f.maple}
	if f.maple && !cmd.Flags().Changed("efficiency") {
		req.Efficiency = 0 // the Maple file's own target
	}
	for _, b := range []struct {
		name, v string
		p       *float64
	}{{"lo", f.lo, &req.Lo}, {"hi", f.hi, &req.Hi}} {
		if *b.p, err = units.ParseBandwidth(b.v); err != nil {
			return usagef("--%s: %v", b.name, err)
		}
	}
	rep, err := iosim.RunBandwidthFor(cmd.Context(), req)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return rep.WriteText(cmd.OutOrStdout())
}
