package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
)

// iosimFlags are shared by the iosim subcommands.
type iosimFlags struct {
	config, platform      string
	bandwidth, mtbf       string
	strategies            string
	seeds                 int
	seed                  uint64
	span, skip, fixed     string
	ioChunk               string
	workers               int
	json                  bool
	noFailures            bool
	shard, csv, jsonl     string
	stdin                 io.Reader // the command's standard input, for --config -
	param, values         string
	maple, fullBandwidth  bool
	efficiency, tol       float64
	lo, hi, strategy      string
	printConfig, noHeader bool
	fullPeriod            bool
	scheduler             string
}

func (f *iosimFlags) common(cmd *cobra.Command, strategies bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "platform and classes, YAML or JSON (schema: go doc github.com/ckpt-hpc/ckpt/iosim Config)")
	fl.StringVar(&f.platform, "platform", "cielo", "embedded platform when no --config: cielo | prospective")
	fl.StringVar(&f.bandwidth, "bandwidth", "", "override the aggregate file-system bandwidth (bytes/s, or 40GB/s)")
	fl.StringVar(&f.mtbf, "mtbf", "", "override the node MTBF (seconds, or 2y, 730d, 17520h)")
	fl.BoolVar(&f.json, "json", false, "print JSON on stdout")
	if strategies {
		fl.StringVar(&f.strategies, "strategies", strings.Join(append(append([]string{}, iosim.PaperStrategies...), "interference-free"), ","), "comma-separated strategies: "+strings.Join(iosim.Names(), ", "))
		fl.IntVar(&f.seeds, "seeds", 10, "Monte Carlo trials (job lists and failure draws)")
		fl.Uint64Var(&f.seed, "seed", 1, "base seed")
		fl.StringVar(&f.span, "span", "62d", "simulated time per trial")
		fl.StringVar(&f.skip, "skip", "1d", "time excluded from the metrics at each end of the span")
		fl.StringVar(&f.fixed, "fixed-period", "1h", "checkpoint period of the *-fixed strategies")
		fl.StringVar(&f.ioChunk, "io-chunk", "1h", "compute time between two regular I/O transfers")
		fl.IntVar(&f.workers, "workers", 0, "parallel trials (0 = all cores); never changes the output")
		fl.BoolVar(&f.noFailures, "no-failures", false, "switch failures off")
		fl.BoolVar(&f.fullPeriod, "compute-full-period", false, "compute P (not P - C) between checkpoints, as the paper's simulator does")
		fl.StringVar(&f.scheduler, "scheduler", "reserve", "batch scheduler: reserve (first-fit with a reservation for the first job that does not fit; keeps the class mix) | greedy (any job that fits; starves wide jobs)")
	}
}

// load builds the config from the flags (usage errors: exit 2).
func (f *iosimFlags) load() (iosim.Config, error) {
	var c iosim.Config
	if f.config != "" {
		var r = f.stdin
		if f.config != "-" {
			fh, err := os.Open(f.config)
			if err != nil {
				return c, usage(err)
			}
			defer fh.Close()
			r = fh
		}
		name := f.config
		if name == "-" {
			name = "(stdin)"
		}
		p, err := iosim.LoadNamed(r, name)
		if err != nil {
			return c, usage(err)
		}
		c = *p
	} else {
		mk, ok := iosim.Platforms[f.platform]
		if !ok {
			return c, usagef("--platform: unknown %q (cielo, prospective)", f.platform)
		}
		c = mk()
	}
	if f.bandwidth != "" {
		b, err := units.ParseBandwidth(f.bandwidth)
		if err != nil {
			return c, usage(fmt.Errorf("--bandwidth: %w", err))
		}
		c = c.WithBandwidth(b)
	}
	if f.mtbf != "" {
		m, err := units.ParseSeconds(f.mtbf)
		if err != nil {
			return c, usage(fmt.Errorf("--mtbf: %w", err))
		}
		c = c.WithNodeMTBF(m)
	}
	if err := c.Validate(); err != nil {
		return c, usage(err)
	}
	return c, nil
}

func (f *iosimFlags) options() (iosim.Options, float64, error) {
	var o iosim.Options
	var err error
	parse := func(name, v string) float64 {
		if err != nil {
			return 0
		}
		x, e := units.ParseSeconds(v)
		if e != nil || !(x >= 0) {
			err = usagef("--%s: bad duration %q", name, v)
		}
		return x
	}
	o.Span = parse("span", f.span)
	o.Skip = parse("skip", f.skip)
	fixed := parse("fixed-period", f.fixed)
	o.IOChunk = parse("io-chunk", f.ioChunk)
	o.Seed = f.seed
	o.NoFailures = f.noFailures
	o.ComputeFullPeriod = f.fullPeriod
	if err != nil {
		return o, 0, err
	}
	if o.Scheduler, err = iosim.ParseScheduler(f.scheduler); err != nil {
		return o, 0, usage(fmt.Errorf("--scheduler: %w", err))
	}
	switch {
	case !(o.Span > 2*o.Skip):
		return o, 0, usagef("--span (%s) must exceed twice --skip (%s)", f.span, f.skip)
	case !(fixed > 0):
		return o, 0, usagef("--fixed-period must be positive")
	case !(o.IOChunk > 0):
		return o, 0, usagef("--io-chunk must be positive")
	case f.seeds < 1:
		return o, 0, usagef("--seeds must be ≥ 1, got %d", f.seeds)
	case f.workers < 0:
		return o, 0, usagef("--workers must be ≥ 0, got %d", f.workers)
	}
	return o, fixed, nil
}

func (f *iosimFlags) strategyList(fixed float64) ([]iosim.Strategy, error) {
	var out []iosim.Strategy
	for _, n := range strings.Split(f.strategies, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		st, err := iosim.Lookup(n, fixed)
		if err != nil {
			return nil, usage(fmt.Errorf("--strategies: %w", err))
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, usagef("--strategies: none given")
	}
	return out, nil
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.stdin = cmd.InOrStdin()
			c, err := f.load()
			if err != nil {
				return err
			}
			if f.printConfig {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(c)
			}
			opt, fixed, err := f.options()
			if err != nil {
				return err
			}
			sts, err := f.strategyList(fixed)
			if err != nil {
				return err
			}
			pts := []iosim.SweepPoint{{Param: "bandwidth", Value: float64(c.Platform.Bandwidth), Config: c}}
			rs, err := iosim.Sweep(cmd.Context(), pts, sts, f.seeds, opt, runner.Options{Seed: f.seed, Workers: f.workers, Label: "iosim run"}, nil)
			if err != nil {
				return err
			}
			agg := iosim.Aggregate(rs)[0]
			b, berr := c.LowerBound(iosim.BoundOptions{})
			bound := math.NaN()
			if berr == nil {
				bound = b.Waste
			}
			ev, evs, busy := 0.0, 0, 0.0
			shares := map[string]float64{}
			for _, r := range rs {
				busy += r.Outcome.Baseline.Busy / float64(len(rs))
				for k, v := range r.Outcome.Baseline.ClassShares {
					shares[c.Classes[k].Name] += v / float64(len(rs))
				}
				for _, x := range r.Outcome.Runs {
					ev += float64(x.Events)
					evs++
				}
			}
			out := iosimRunOut{Platform: c.Platform.Name, Nodes: c.Platform.Nodes, Bandwidth: float64(c.Platform.Bandwidth), NodeMTBF: float64(c.Platform.NodeMTBF),
				Seeds: f.seeds, Window: opt.Span - 2*opt.Skip, Bound: iosimFloat(bound), Strategies: agg.Strategies,
				Scheduler: opt.Scheduler.String(), BaselineBusy: busy, BaselineClassShares: shares}
			if f.json {
				return iosimWriteJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "platform %s: %d nodes, bandwidth %s, node MTBF %s (system %s); %d trials of %s\n",
				c.Platform.Name, c.Platform.Nodes, units.FormatBandwidth(float64(c.Platform.Bandwidth)), units.FormatSeconds(float64(c.Platform.NodeMTBF)),
				units.FormatSeconds(float64(c.Platform.NodeMTBF)/float64(c.Platform.Nodes)), f.seeds, units.FormatSeconds(out.Window))
			fmt.Fprintf(w, "lower bound (Theorem 1): waste %.4f\n\n", bound)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "strategy\twaste mean\td1\tq1\tq3\td9\tckpt slowdown\twork\tio\tckpt\tlost\tidle\t")
			for _, s := range agg.Strategies {
				fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", s.Name, s.Waste.Mean, s.Waste.D1, s.Waste.Q1, s.Waste.Q3, s.Waste.D9,
					s.Slowdown.Mean, s.Split.Work, s.Split.IO, s.Split.Checkpoint, s.Split.Lost, s.Split.Idle)
			}
			tw.Flush()
			fmt.Fprintf(w, "\nsplit = mean fraction of node-time; baseline keeps %.1f%% of the nodes busy (%s scheduler; node-time", 100*busy, opt.Scheduler)
			for _, k := range c.Classes {
				fmt.Fprintf(w, " %s %.1f%%", k.Name, 100*shares[k.Name])
			}
			fmt.Fprintf(w, "); %.0f events per run on average\n", ev/float64(evs))
			return nil
		},
	}
	f.common(cmd, true)
	cmd.Flags().BoolVar(&f.printConfig, "print-config", false, "print the effective config as JSON (a template for --config) and exit")
	return cmd
}

type iosimRunOut struct {
	Platform   string                  `json:"platform"`
	Nodes      int                     `json:"nodes"`
	Bandwidth  float64                 `json:"bandwidth"`
	NodeMTBF   float64                 `json:"node_mtbf"`
	Seeds      int                     `json:"seeds"`
	Window     float64                 `json:"window"`
	Bound      iosimFloat              `json:"bound"`
	Strategies []iosim.StrategySummary `json:"strategies"`
	Scheduler  string                  `json:"scheduler"`
	// BaselineBusy and BaselineClassShares are the mean busy fraction of
	// the baseline runs and each class's share of their node-time.
	BaselineBusy        float64            `json:"baseline_busy"`
	BaselineClassShares map[string]float64 `json:"baseline_class_shares"`
}

// iosimFloat writes NaN and ±Inf as null.
type iosimFloat float64

func (x iosimFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

func iosimWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.stdin = cmd.InOrStdin()
			c, err := f.load()
			if err != nil {
				return err
			}
			opt, fixed, err := f.options()
			if err != nil {
				return err
			}
			sts, err := f.strategyList(fixed)
			if err != nil {
				return err
			}
			shard, err := runner.ParseShard(f.shard)
			if err != nil {
				return usage(fmt.Errorf("--shard: %w", err))
			}
			var pts []iosim.SweepPoint
			for _, v := range strings.Split(f.values, ",") {
				v = strings.TrimSpace(v)
				if v == "" {
					continue
				}
				var x float64
				var cc iosim.Config
				switch f.param {
				case "bandwidth":
					x, err = units.ParseBandwidth(v)
					cc = c.WithBandwidth(x)
				case "mtbf":
					x, err = units.ParseSeconds(v)
					cc = c.WithNodeMTBF(x)
				default:
					return usagef("--param: want bandwidth or mtbf, got %q", f.param)
				}
				if err != nil {
					return usage(fmt.Errorf("--values: %w", err))
				}
				if err := cc.Validate(); err != nil {
					return usage(fmt.Errorf("--values %s: %w", v, err))
				}
				pts = append(pts, iosim.SweepPoint{Param: f.param, Value: x, Config: cc})
			}
			if len(pts) == 0 {
				return usagef("--values: none given")
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
				return err
			}
			agg := iosim.Aggregate(rs)
			if f.json {
				return iosimWriteJSON(cmd.OutOrStdout(), agg)
			}
			if f.csv == "-" || f.jsonl == "-" {
				return nil
			}
			w := cmd.OutOrStdout()
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprint(tw, f.param+"\t")
			for _, s := range sts {
				fmt.Fprint(tw, s.Name+"\t")
			}
			fmt.Fprintln(tw, "bound\t")
			for _, p := range agg {
				lbl := units.FormatBandwidth(p.Value)
				cc := c.WithBandwidth(p.Value)
				if f.param == "mtbf" {
					lbl = fmt.Sprintf("%.3gy", p.Value/iosim.Year)
					cc = c.WithNodeMTBF(p.Value)
				}
				fmt.Fprint(tw, lbl+"\t")
				for _, s := range p.Strategies {
					fmt.Fprintf(tw, "%.4f\t", s.Waste.Mean)
				}
				b, berr := cc.LowerBound(iosim.BoundOptions{})
				if berr != nil {
					fmt.Fprint(tw, "-\t\n")
				} else {
					fmt.Fprintf(tw, "%.4f\t\n", b.Waste)
				}
			}
			tw.Flush()
			fmt.Fprintf(w, "(mean waste over %d trials; per-trial rows with --csv/--jsonl)\n", f.seeds)
			return nil
		},
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

func newIOSimBoundCmd() *cobra.Command {
	var f iosimFlags
	cmd := &cobra.Command{
		Use:   "bound",
		Short: "Lower bound on the platform waste (Theorem 1) with the optimal periods per class",
		Example: `  ckpt iosim bound --bandwidth 40GB/s --mtbf 2y
  ckpt iosim bound --maple --json     # the published curve's (flawed) computation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			out := iosimBoundOut{Waste: iosimFloat(b.Waste), Lambda: iosimFloat(b.Lambda), IOFraction: b.IOFraction, DalyWaste: b.DalyWaste,
				DalyIOFraction: b.DalyIOFraction, CheckpointBandwidth: beta, Periods: map[string]float64{}}
			for i, k := range cs {
				out.Classes = append(out.Classes, iosimBoundClass{Name: k.Name, Jobs: k.Jobs, Nodes: k.Nodes, C: k.C, Period: b.Periods[i], Daly: b.Daly[i]})
				out.Periods[k.Name] = b.Periods[i]
			}
			if f.json {
				return iosimWriteJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "platform %s: %d nodes, node MTBF %s, checkpoint bandwidth %s\n", c.Platform.Name, c.Platform.Nodes,
				units.FormatSeconds(float64(c.Platform.NodeMTBF)), units.FormatBandwidth(beta))
			fmt.Fprintf(w, "waste %.4f (lambda %.4g, I/O usage F = %.3f); Daly periods would need F = %.3f (waste %.4f)\n\n",
				b.Waste, b.Lambda, b.IOFraction, b.DalyIOFraction, b.DalyWaste)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "class\tjobs\tnodes\tC\tperiod\tDaly period\t")
			for _, k := range out.Classes {
				fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%s\t%s\t%s\t\n", k.Name, k.Jobs, k.Nodes, units.FormatSeconds(k.C), units.FormatSeconds(k.Period), units.FormatSeconds(k.Daly))
			}
			return tw.Flush()
		},
	}
	f.common(cmd, false)
	cmd.Flags().BoolVar(&f.maple, "maple", false, "reproduce the paper's Maple computation (lambda = min(0, r), job counts weighted by 1/walltime, full bandwidth)")
	cmd.Flags().BoolVar(&f.fullBandwidth, "full-bandwidth", false, "give checkpoints the whole bandwidth instead of what input/output/regular I/O leave")
	return cmd
}

type iosimBoundOut struct {
	Waste               iosimFloat         `json:"waste"`
	Lambda              iosimFloat         `json:"lambda"`
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The flags shared with run and sweep that make no sense here
			// are refused rather than ignored.
			if cmd.Flags().Changed("strategies") {
				return usagef("--strategies: bandwidth-for bisects one strategy; give --strategy NAME")
			}
			if cmd.Flags().Changed("bandwidth") {
				return usagef("--bandwidth: bandwidth-for searches the bandwidth between --lo and --hi; do not give --bandwidth")
			}
			f.stdin = cmd.InOrStdin()
			c, err := f.load()
			if err != nil {
				return err
			}
			opt, fixed, err := f.options()
			if err != nil {
				return err
			}
			st, err := iosim.Lookup(f.strategy, fixed)
			if err != nil {
				return usage(fmt.Errorf("--strategy: %w", err))
			}
			lo, err1 := units.ParseBandwidth(f.lo)
			hi, err2 := units.ParseBandwidth(f.hi)
			if err1 != nil || err2 != nil || !(lo > 0 && hi > lo) {
				return usagef("--lo/--hi: need 0 < lo < hi, got %q, %q", f.lo, f.hi)
			}
			if !(f.efficiency > 0 && f.efficiency < 1) {
				return usagef("--efficiency must be in (0, 1), got %v", f.efficiency)
			}
			if !(f.tol > 0) {
				return usagef("--tolerance must be positive")
			}
			b, err := iosim.BandwidthFor(cmd.Context(), c, st, f.efficiency, f.seeds, opt, runner.Options{Seed: f.seed, Workers: f.workers, Progress: runner.ProgressOff}, lo, hi, f.tol)
			if err != nil {
				return err
			}
			if f.json {
				return iosimWriteJSON(cmd.OutOrStdout(), map[string]any{"strategy": st.Name, "efficiency": f.efficiency, "bandwidth": b,
					"node_mtbf": float64(c.Platform.NodeMTBF), "platform": c.Platform.Name, "seeds": f.seeds})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s reaches %.0f%% efficiency at %s (node MTBF %s, %d trials, ±%.0f%%)\n", st.Name, 100*f.efficiency,
				units.FormatBandwidth(b), units.FormatSeconds(float64(c.Platform.NodeMTBF)), f.seeds, 100*f.tol)
			return nil
		},
	}
	f.common(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.strategy, "strategy", "least-waste", "strategy: "+strings.Join(iosim.Names(), ", "))
	fl.Float64Var(&f.efficiency, "efficiency", 0.8, "target efficiency 1 - waste")
	fl.StringVar(&f.lo, "lo", "1GB/s", "lower end of the bisection")
	fl.StringVar(&f.hi, "hi", "1PB/s", "upper end of the bisection")
	fl.Float64Var(&f.tol, "tolerance", 0.05, "relative precision of the answer")
	cmd.Flags().Lookup("seeds").DefValue = "10"
	// Registered by common for run and sweep; refused here (see RunE).
	_ = fl.MarkHidden("strategies")
	_ = fl.MarkHidden("bandwidth")
	return cmd
}
