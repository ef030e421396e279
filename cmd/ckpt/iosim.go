package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
)

// iosimFlags are shared by the iosim subcommands.
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
	stdin                io.Reader // the command's standard input, for --config -
	param, values        string
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

// load builds the config from the flags (usage errors: exit 2).
func (f *iosimFlags) load() (iosim.Config, error) {
	c, err := f.base()
	if err != nil {
		return c, err
	}
	if f.bandwidth != "" {
		b, err := bandwidthFlag("bandwidth", f.bandwidth)
		if err != nil {
			return c, err
		}
		c = c.WithBandwidth(b)
	}
	if f.mtbf != "" {
		m, err := positiveDurationFlag("mtbf", f.mtbf)
		if err != nil {
			return c, err
		}
		c = c.WithNodeMTBF(m)
	}
	return c, usage(c.Validate())
}

// base is the --config file (or standard input) or the --platform.
func (f *iosimFlags) base() (iosim.Config, error) {
	if f.config == "" {
		mk, ok := iosim.Platforms[f.platform]
		if !ok {
			return iosim.Config{}, usagef("--platform: unknown %q (cielo, prospective)", f.platform)
		}
		return mk(), nil
	}
	r, name := f.stdin, "(stdin)"
	if f.config != "-" {
		fh, err := os.Open(f.config)
		if err != nil {
			return iosim.Config{}, usage(err)
		}
		defer fh.Close()
		r, name = fh, f.config
	}
	p, err := iosim.LoadNamed(r, name)
	if err != nil {
		return iosim.Config{}, usage(err)
	}
	return *p, nil
}

// options reads the simulation flags; it returns the Fixed period too.
func (f *iosimFlags) options() (iosim.Options, float64, error) {
	o := iosim.Options{Seed: f.seed, NoFailures: f.noFailures, ComputeFullPeriod: f.fullPeriod, MaxEvents: f.maxEvents}
	var fixed float64
	var err error
	for _, d := range []struct {
		name, v string
		p       *float64
		check   func(string, string) (float64, error)
	}{{"span", f.span, &o.Span, positiveDurationFlag}, {"skip", f.skip, &o.Skip, nonNegDurationFlag},
		{"fixed-period", f.fixed, &fixed, positiveDurationFlag}, {"io-chunk", f.ioChunk, &o.IOChunk, positiveDurationFlag}} {
		if *d.p, err = d.check(d.name, d.v); err != nil {
			return o, 0, err
		}
	}
	if o.Scheduler, err = iosim.ParseScheduler(f.scheduler); err != nil {
		return o, 0, usage(fmt.Errorf("--scheduler: %w", err))
	}
	if o.Accounting, err = iosim.ParseAccounting(f.accounting); err != nil {
		return o, 0, usage(fmt.Errorf("--accounting: %w", err))
	}
	if o.Authors, err = iosim.ParseAuthorsModel(f.authorsModel); err != nil {
		return o, 0, usage(fmt.Errorf("--authors-model: %w", err))
	}
	switch {
	case !(o.Span > 2*o.Skip) || math.IsInf(o.Span, 0):
		return o, 0, usagef("--span (%s) must be finite and exceed twice --skip (%s)", f.span, f.skip)
	case f.seeds < 1:
		return o, 0, usagef("--seeds must be ≥ 1, got %d", f.seeds)
	case f.maxEvents < 1:
		return o, 0, usagef("--max-events must be ≥ 1")
	}
	return o, fixed, checkWorkers(f.workers)
}

// setup reads the config, the options and the strategies of flag (whose
// value is list).
func (f *iosimFlags) setup(cmd *cobra.Command, flag, list string) (iosim.Config, iosim.Options, []iosim.Strategy, error) {
	f.stdin = cmd.InOrStdin()
	c, err := f.load()
	if err != nil {
		return c, iosim.Options{}, nil, err
	}
	opt, fixed, err := f.options()
	if err != nil {
		return c, opt, nil, err
	}
	sts, err := iosim.LookupList(list, fixed)
	if err != nil {
		return c, opt, nil, usage(fmt.Errorf("--%s: %w", flag, err))
	}
	return c, opt, sts, nil
}

// simError makes a refused platform a usage error (a run that hits
// --max-events already says so).
func simError(err error) error {
	var np *iosim.NoProgressError
	if errors.As(err, &np) {
		return usage(err)
	}
	return err
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
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	f.common(cmd, true)
	cmd.Flags().BoolVar(&f.printConfig, "print-config", false, "print the effective config as JSON (a template for --config) and exit")
	cmd.Flags().StringVar(&f.swf, "swf", "", "also write the job list of the first trial as an SWF v2.2 log (header: generator, platform, classes, seed)")
	addPictureFlags(cmd.Flags(), &f.plotPath, &f.htmlPath, "the waste of each strategy, its split and the lower bound")
	cmd.Flags().StringVar(&f.timeline, "timeline", "", "with --plot/--html, also draw the file system's use in the first trial over T0:T1 (10d:10.25d) or a length from the end of --skip (6h)")
	return cmd
}

// writeWorkloadSWF writes trial 0's job list to path (--swf).
func (f *iosimFlags) writeWorkloadSWF(c iosim.Config, span float64) error {
	fh, err := os.Create(f.swf)
	if err != nil {
		return usagef("--swf: %v", err)
	}
	if err := iosim.WriteWorkloadSWF(fh, &c, span, f.seed, 0); err != nil {
		fh.Close()
		return fmt.Errorf("--swf %s: %w", f.swf, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("--swf %s: %w", f.swf, err)
	}
	return nil
}

// run is `ckpt iosim run`.
func (f *iosimFlags) run(cmd *cobra.Command) error {
	if f.printConfig {
		f.stdin = cmd.InOrStdin()
		c, err := f.load()
		if err != nil {
			return err
		}
		return json.NewEncoder(cmd.OutOrStdout()).Encode(c)
	}
	c, opt, sts, err := f.setup(cmd, "strategies", f.strategies)
	if err != nil {
		return err
	}
	if !opt.NoFailures {
		if err := c.CheckProgress(); err != nil {
			return usage(err)
		}
	}
	if f.swf != "" {
		if err := f.writeWorkloadSWF(c, opt.Span); err != nil {
			return err
		}
	}
	if err := f.checkPictures(opt); err != nil {
		return err
	}
	pts := []iosim.SweepPoint{{Param: "bandwidth", Value: float64(c.Platform.Bandwidth), Config: c}}
	rs, err := iosim.Sweep(cmd.Context(), pts, sts, f.seeds, opt, runner.Options{Seed: f.seed, Workers: f.workers, Label: "iosim run"}, nil)
	if err != nil {
		return simError(err)
	}
	rep, err := iosim.Report(c, rs, opt)
	if err != nil {
		return err
	}
	if err := f.writeRunPictures(cmd, c, sts, opt, rep); err != nil {
		return err
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return printIOSimRun(cmd.OutOrStdout(), c, rep)
}

// num formats x, or "-" when it is not finite.
func num(format string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

// printIOSimRun writes the run report as text.
func printIOSimRun(out io.Writer, c iosim.Config, rep iosim.RunReport) error {
	w := output.NewWriter(out)
	w.Printf("platform %s: %d nodes, bandwidth %s, node MTBF %s (system %s); %d trials of %s\n",
		rep.Platform, rep.Nodes, units.FormatBandwidth(rep.Bandwidth), units.FormatSeconds(rep.NodeMTBF),
		units.FormatSeconds(rep.NodeMTBF/float64(rep.Nodes)), rep.Seeds, units.FormatSeconds(rep.Window))
	if rep.BoundErr != nil {
		w.Printf("lower bound: undefined (%v)\n\n", rep.BoundErr)
	} else {
		w.Printf("lower bound: waste %.4f (Theorem 1 as a fraction of node-time, for jobs of at most 1.2 w)\n\n", float64(rep.Bound))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\twaste mean\td1\tq1\tq3\td9\tckpt slowdown\twork\tio\tckpt\tlost\tidle\t")
	for _, s := range rep.Strategies {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", s.Name, num("%.4f", s.Waste.Mean),
			num("%.4f", s.Waste.D1), num("%.4f", s.Waste.Q1), num("%.4f", s.Waste.Q3), num("%.4f", s.Waste.D9),
			num("%.2f", s.Slowdown.Mean), s.Split.Work, s.Split.IO, s.Split.Checkpoint, s.Split.Lost, s.Split.Idle)
	}
	tw.Flush()
	w.Printf("\nsplit = mean fraction of node-time; baseline keeps %.1f%% of the nodes busy (%s scheduler; node-time", 100*rep.BaselineBusy, rep.Scheduler)
	for _, k := range c.Classes {
		w.Printf(" %s %.1f%%", k.Name, 100*rep.BaselineClassShares[k.Name])
	}
	w.Printf("); %.0f events per run on average\n", rep.MeanEvents)
	if rep.Accounting != "" {
		w.Printf("%s accounting: whole I/O spans booked as I/O, waste against the largest baseline of the %d trials\n", rep.Accounting, rep.Seeds)
	}
	if rep.Authors != nil {
		w.Printf("authors' model: %s (the authors' simulator's behaviours; go doc github.com/ckpt-hpc/ckpt/iosim AuthorsModel)\n", rep.Authors)
	}
	if slices := missingCheckpoints(rep); slices != "" {
		w.Printf("no checkpoint committed in the window by %s: slowdown undefined (-)\n", slices)
	}
	return w.Err()
}

// missingCheckpoints lists the strategies whose slowdown is undefined.
func missingCheckpoints(rep iosim.RunReport) string {
	var out []string
	for _, s := range rep.Strategies {
		if math.IsNaN(s.Slowdown.Mean) {
			out = append(out, s.Name)
		}
	}
	return strings.Join(out, ", ")
}

func newIOSimSweepCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Waste of each strategy against bandwidth or node MTBF (Figs. 2 and 3), shardable",
		Example: `  ckpt iosim sweep --param bandwidth --values 40GB/s,80GB/s,160GB/s --seeds 100 --csv fig2.csv
  ckpt iosim sweep --param mtbf --values 2y,5y,10y,25y,50y --bandwidth 40GB/s --csv fig3.csv
  ckpt iosim sweep --param bandwidth --values 40GB/s,160GB/s --shard "$SLURM_ARRAY_TASK_ID/8" --csv part.$SLURM_ARRAY_TASK_ID.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.sweep(cmd) },
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.param, "param", "bandwidth", "swept parameter: bandwidth | mtbf")
	fl.StringVar(&f.values, "values", "40GB/s,50GB/s,60GB/s,70GB/s,80GB/s,90GB/s,100GB/s,110GB/s,120GB/s,130GB/s,140GB/s,150GB/s,160GB/s", "comma-separated values of --param")
	fl.StringVar(&f.shard, "shard", "", "run only shard i/n of the items (0-based; merge with ckpt merge)")
	fl.StringVar(&f.csv, "csv", "", "per-trial rows as CSV (- for stdout)")
	fl.StringVar(&f.jsonl, "jsonl", "", "per-trial rows as JSON lines (- for stdout)")
	return cmd
}

// sweep is `ckpt iosim sweep`.
func (f *iosimFlags) sweep(cmd *cobra.Command) error {
	c, opt, sts, err := f.setup(cmd, "strategies", f.strategies)
	if err != nil {
		return err
	}
	shard, err := runner.ParseShard(f.shard)
	if err != nil {
		return usage(fmt.Errorf("--shard: %w", err))
	}
	if _, err := c.At(f.param, 1); err != nil {
		return usage(fmt.Errorf("--param: %w", err))
	}
	pts, err := iosim.SweepPoints(c, f.param, f.values, !opt.NoFailures)
	if err != nil {
		return usage(fmt.Errorf("--values: %w", err))
	}
	var sink runner.Sink[iosim.TrialResult]
	closeOut := func() error { return nil }
	if f.csv != "" || f.jsonl != "" {
		if sink, closeOut, err = runner.CreateOutputs[iosim.TrialResult](cmd.OutOrStdout(), f.csv, f.jsonl); err != nil {
			return err
		}
	}
	rs, err := iosim.Sweep(cmd.Context(), pts, sts, f.seeds, opt, runner.Options{Seed: f.seed, Workers: f.workers, Shard: shard, Label: "iosim sweep"}, sink)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return simError(err)
	}
	if opt.Accounting == iosim.AuthorsAccounting {
		iosim.Renormalize(rs)
	}
	agg := iosim.Aggregate(rs)
	switch {
	case f.json:
		return writeJSON(cmd.OutOrStdout(), agg)
	case f.csv == "-" || f.jsonl == "-":
		return nil
	}
	return f.printSweep(cmd.OutOrStdout(), c, sts, agg)
}

// printSweep writes the mean waste per point and strategy, and the bound.
func (f *iosimFlags) printSweep(out io.Writer, c iosim.Config, sts []iosim.Strategy, agg []iosim.PointSummary) error {
	w := output.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, f.param+"\t")
	for _, s := range sts {
		fmt.Fprint(tw, s.Name+"\t")
	}
	fmt.Fprintln(tw, "bound\t")
	for _, p := range agg {
		lbl := units.FormatBandwidth(p.Value)
		if f.param == "mtbf" {
			lbl = fmt.Sprintf("%.3gy", p.Value/iosim.Year)
		}
		fmt.Fprint(tw, lbl+"\t")
		for _, s := range p.Strategies {
			fmt.Fprintf(tw, "%s\t", num("%.4f", s.Waste.Mean))
		}
		cc, _ := c.At(f.param, p.Value)
		b, _ := iosim.BoundWaste(cc)
		fmt.Fprintf(tw, "%s\t\n", num("%.4f", float64(b)))
	}
	tw.Flush()
	w.Printf("(mean waste over %d trials; per-trial rows with --csv/--jsonl)\n", f.seeds)
	return w.Err()
}

func newIOSimBoundCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "bound",
		Short: "Lower bound on the platform waste (Theorem 1) with the optimal periods per class",
		Example: `  ckpt iosim bound --bandwidth 40GB/s --mtbf 2y
  ckpt iosim bound --maple --json     # the published curve's (flawed) computation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.bound(cmd) },
	}
	f.common(cmd, false)
	cmd.Flags().BoolVar(&f.maple, "maple", false, "reproduce the paper's Maple computation (maple/celio.mpl, prospective.mpl): their inputs on the embedded platforms (shares, job sizes, checkpoint times and units), lambda = min(0, r), job counts weighted by 1/walltime, full bandwidth")
	cmd.Flags().BoolVar(&f.fullBandwidth, "full-bandwidth", false, "give checkpoints the whole bandwidth instead of what input/output/regular I/O leave")
	return cmd
}

// bound is `ckpt iosim bound`.
func (f *iosimFlags) bound(cmd *cobra.Command) error {
	f.stdin = cmd.InOrStdin()
	c, err := f.load()
	if err != nil {
		return err
	}
	o := iosim.BoundOptions{Maple: f.maple, FullBandwidth: f.fullBandwidth}
	cs, beta, err := c.BoundClasses(o)
	if err != nil {
		return usage(err)
	}
	b, err := c.LowerBound(o)
	if err != nil {
		return err
	}
	out := iosimBoundOut{Fraction: output.Number(math.NaN()), Waste: output.Number(b.Waste), Lambda: output.Number(b.Lambda), IOFraction: b.IOFraction, DalyWaste: b.DalyWaste,
		DalyIOFraction: b.DalyIOFraction, CheckpointBandwidth: beta, Periods: map[string]float64{}}
	if !f.maple {
		fr, err := iosim.FractionBound(cs, float64(c.Platform.Nodes), float64(c.Platform.NodeMTBF))
		if err != nil {
			return err
		}
		out.Fraction = output.Number(fr)
	}
	for i, k := range cs {
		out.Classes = append(out.Classes, iosimBoundClass{Name: k.Name, Jobs: k.Jobs, Nodes: k.Nodes, C: k.C, Period: b.Periods[i], Daly: b.Daly[i]})
		out.Periods[k.Name] = b.Periods[i]
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), out)
	}
	return printIOSimBound(cmd.OutOrStdout(), c, b, beta, out, f.maple)
}

// printIOSimBound writes `iosim bound`'s text report.
func printIOSimBound(o io.Writer, c iosim.Config, b iosim.Bound, beta float64, out iosimBoundOut, maple bool) error {
	w := output.NewWriter(o)
	w.Printf("platform %s: %d nodes, node MTBF %s, checkpoint bandwidth %s\n", c.Platform.Name, c.Platform.Nodes,
		units.FormatSeconds(float64(c.Platform.NodeMTBF)), units.FormatBandwidth(beta))
	w.Printf("waste %s (lambda %s, I/O usage F = %.3f); Daly periods would need F = %.3f (waste %.4f)\n",
		num("%.4f", b.Waste), num("%.4g", b.Lambda), b.IOFraction, b.DalyIOFraction, b.DalyWaste)
	if b.Waste >= 1 {
		w.Printf("Eq. (7) counts time lost per unit of useful time; at %.4f ≥ 1 the first-order model no longer describes the platform, which loses most of its node-time\n", b.Waste)
	}
	if !maple {
		w.Printf("as a fraction of node-time, for jobs of at most 1.2 w (what iosim run reports): waste at least %s\n", num("%.4f", float64(out.Fraction)))
	}
	w.Printf("\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tjobs\tnodes\tC\tperiod\tDaly period\t")
	for _, k := range out.Classes {
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%s\t%s\t%s\t\n", k.Name, k.Jobs, k.Nodes, units.FormatSeconds(k.C), units.FormatSeconds(k.Period), units.FormatSeconds(k.Daly))
	}
	tw.Flush()
	return w.Err()
}

type iosimBoundOut struct {
	// Fraction is the bound on the waste fraction iosim run reports
	// (iosim.FractionBound; null with --maple).
	Fraction            output.Number      `json:"fraction_bound"`
	Waste               output.Number      `json:"waste"`
	Lambda              output.Number      `json:"lambda"`
	IOFraction          float64            `json:"io_fraction"`
	DalyWaste           float64            `json:"daly_waste"`
	DalyIOFraction      float64            `json:"daly_io_fraction"`
	CheckpointBandwidth float64            `json:"checkpoint_bandwidth"`
	Periods             map[string]float64 `json:"periods"`
	Classes             []iosimBoundClass  `json:"classes"`
}

type iosimBoundClass struct {
	Name   string  `json:"name"`
	Jobs   float64 `json:"jobs"`
	Nodes  float64 `json:"nodes"`
	C      float64 `json:"checkpoint_time"`
	Period float64 `json:"period"`
	Daly   float64 `json:"daly_period"`
}

func newIOSimBandwidthForCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "bandwidth-for",
		Short: "Smallest bandwidth at which a strategy reaches a target efficiency (Fig. 4), by bisection",
		Example: `  ckpt iosim bandwidth-for --platform prospective --mtbf 10y --strategy least-waste
  ckpt iosim bandwidth-for --efficiency 0.9 --strategy ordered-nb-daly --seeds 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.bandwidthFor(cmd) },
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
	// Registered by common for run and sweep; refused here (see bandwidthFor).
	_ = fl.MarkHidden("strategies")
	_ = fl.MarkHidden("bandwidth")
	return cmd
}

// bandwidthFor is `ckpt iosim bandwidth-for`. The flags shared with run
// and sweep that make no sense here are refused rather than ignored.
func (f *iosimFlags) bandwidthFor(cmd *cobra.Command) error {
	if cmd.Flags().Changed("strategies") {
		return usagef("--strategies: bandwidth-for bisects one strategy; give --strategy NAME")
	}
	if cmd.Flags().Changed("bandwidth") {
		return usagef("--bandwidth: bandwidth-for searches the bandwidth between --lo and --hi; do not give --bandwidth")
	}
	if f.boundOnly || f.maple {
		return f.boundBandwidthFor(cmd)
	}
	c, opt, sts, err := f.setup(cmd, "strategy", f.strategy)
	if err != nil {
		return err
	}
	if len(sts) != 1 {
		return usagef("--strategy: give one strategy, got %q", f.strategy)
	}
	lo, err1 := units.ParseBandwidth(f.lo)
	hi, err2 := units.ParseBandwidth(f.hi)
	switch {
	case err1 != nil || err2 != nil || !(lo > 0 && hi > lo):
		return usagef("--lo/--hi: need 0 < lo < hi, got %q, %q", f.lo, f.hi)
	case !(f.efficiency > 0 && f.efficiency < 1):
		return usagef("--efficiency must be in (0, 1), got %v", f.efficiency)
	case !(f.tol > 0):
		return usagef("--tolerance must be positive")
	}
	b, err := iosim.BandwidthFor(cmd.Context(), c, sts[0], f.efficiency, f.seeds, opt, runner.Options{Seed: f.seed, Workers: f.workers, Progress: runner.ProgressOff}, lo, hi, f.tol)
	if err != nil {
		return simError(err)
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), map[string]any{"strategy": sts[0].Name, "efficiency": f.efficiency, "bandwidth": b,
			"node_mtbf": float64(c.Platform.NodeMTBF), "platform": c.Platform.Name, "seeds": f.seeds})
	}
	w := output.NewWriter(cmd.OutOrStdout())
	w.Printf("%s reaches %.0f%% efficiency at %s (node MTBF %s, %d trials, ±%.0f%%)\n", sts[0].Name, 100*f.efficiency,
		units.FormatBandwidth(b), units.FormatSeconds(float64(c.Platform.NodeMTBF)), f.seeds, 100*f.tol)
	return w.Err()
}

// boundBandwidthFor is `ckpt iosim bandwidth-for --bound [--maple]`.
func (f *iosimFlags) boundBandwidthFor(cmd *cobra.Command) error {
	switch {
	case !f.boundOnly:
		return usagef("--maple: give --bound too (the Maple files compute a bound, not a strategy)")
	case f.maple && cmd.Flags().Changed("efficiency"):
		return usagef("--efficiency: --maple uses the Maple file's target (waste 0.8); drop one of them")
	case !(f.efficiency > 0 && f.efficiency < 1):
		return usagef("--efficiency must be in (0, 1), got %v", f.efficiency)
	}
	f.stdin = cmd.InOrStdin()
	c, err := f.load()
	if err != nil {
		return err
	}
	var b, waste float64
	what := fmt.Sprintf("the bound reaches %.0f%% efficiency", 100*f.efficiency)
	if f.maple {
		what = "the published bound (maple/prospective.mpl) reaches waste 0.8"
		if b, waste, err = c.MapleCurve(); err != nil {
			return usage(err)
		}
	} else {
		lo, err1 := units.ParseBandwidth(f.lo)
		hi, err2 := units.ParseBandwidth(f.hi)
		if err1 != nil || err2 != nil || !(lo > 0 && hi > lo) || !(f.tol > 0) {
			return usagef("--lo/--hi/--tolerance: need 0 < lo < hi and a positive tolerance, got %q, %q, %v", f.lo, f.hi, f.tol)
		}
		if b, err = iosim.BoundBandwidthFor(c, f.efficiency, lo, hi, f.tol); err != nil {
			return err
		}
		waste = 1 - f.efficiency
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), map[string]any{"bound": true, "maple": f.maple, "bandwidth": b, "waste": waste,
			"node_mtbf": float64(c.Platform.NodeMTBF), "platform": c.Platform.Name})
	}
	w := output.NewWriter(cmd.OutOrStdout())
	w.Printf("%s at %s (%.6g B/s; node MTBF %s, waste %.6g)\n", what, units.FormatBandwidth(b), b, units.FormatSeconds(float64(c.Platform.NodeMTBF)), waste)
	return w.Err()
}

// checkPictures refuses bad --plot and --timeline values before any run.
func (f *iosimFlags) checkPictures(opt iosim.Options) error {
	if err := checkPictureFlags(f.plotPath); err != nil {
		return err
	}
	if f.timeline == "" {
		return nil
	}
	if f.plotPath == "" && f.htmlPath == "" {
		return usagef("--timeline %q: draws into --plot or --html; give one", f.timeline)
	}
	_, to, err := iosim.ParseWindow(f.timeline, opt.Skip)
	if err != nil {
		return usagef("--timeline: %v", err)
	}
	if end := opt.Span - opt.Skip; to > end {
		return usagef("--timeline %q ends after the runs stop (--span − --skip = %gs)", f.timeline, end)
	}
	return nil
}

// writeRunPictures writes `iosim run --plot/--html`, with the timelines of
// the first trial when --timeline is given.
func (f *iosimFlags) writeRunPictures(cmd *cobra.Command, c iosim.Config, sts []iosim.Strategy, opt iosim.Options, rep iosim.RunReport) error {
	if f.plotPath == "" && f.htmlPath == "" {
		return nil
	}
	var tls []iosim.Timeline
	if f.timeline != "" {
		from, to, err := iosim.ParseWindow(f.timeline, opt.Skip)
		if err != nil {
			return usagef("--timeline: %v", err)
		}
		o := opt
		o.Seed = runner.Seed(f.seed, 0, 0) // the first trial's job list and failures
		if tls, err = iosim.Timelines(cmd.Context(), &c, sts, o, from, to); err != nil {
			return simError(err)
		}
	}
	if f.plotPath != "" {
		if err := iosim.PlotRun(f.plotPath, rep, tls); err != nil {
			return err
		}
	}
	if f.htmlPath == "" {
		return nil
	}
	page, err := iosim.RunPage(rep, tls)
	if err != nil {
		return err
	}
	return writePage(f.htmlPath, page)
}
