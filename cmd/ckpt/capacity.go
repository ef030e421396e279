package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
)

func newCapacityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Schedule rigid jobs when the processor count varies (decide, simulate, sweep)",
		Long: `Schedule rigid jobs on a platform whose processor count changes at announced
events (Cendrier, Benoit, Vivien, Inria RR-9582, 2025). Before each event enough
jobs are checkpointed that no work is lost even if delta processors disappear.
Strategies (the paper's algorithms): ` + strings.Join(capacity.Names(), ", ") + `
(parameterised ones as NAME:X, e.g. dp-bic:15, target-yield:0.5). Every schedule
is checked by an independent validator; goodput and yields are measured on the
validated schedule.`,
	}
	cmd.AddCommand(newCapacityDecideCmd(), newCapacitySimulateCmd(), newCapacitySweepCmd(),
		newCapacityExportCmd(), newCapacityBatsimScoreCmd())
	return cmd
}

func readDecideState(stdin io.Reader, path string) (*capacity.State, error) {
	if path == "-" {
		return capacity.ReadState(stdin, "stdin")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return capacity.ReadState(f, path)
}

func newCapacityDecideCmd() *cobra.Command {
	var state, strategy string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "decide",
		Short: "Plan the current section for a resource manager (called at every event)",
		Long: `Read the current section and the jobs from a JSON state file and print the
actions of every job (run, checkpoint, recover, with times relative to the
event) and the useful work they achieve. The state file holds p_min, p_max,
delta, p (processors of this section), length (time to the next event) and
jobs: [{p, c, r, status: running|checkpointed|idle, yield}] (or work and
avail instead of yield).`,
		Example: `  ckpt capacity decide --state section.json --strategy dp-bic:15 --json
  echo '{"p_min":2,"p_max":10,"delta":2,"p":8,"length":100,
    "jobs":[{"p":3,"c":10,"r":10,"status":"running","yield":0.5},
            {"p":4,"c":12,"r":12,"status":"idle","yield":0.1}]}' | ckpt capacity decide --state - --strategy dp-goodput`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if state == "" {
				return usagef("--state is required")
			}
			if _, err := capacity.New(strategy); err != nil {
				return usagef("--strategy: %v", err)
			}
			st, err := readDecideState(cmd.InOrStdin(), state)
			if err != nil {
				return usage(err)
			}
			d, err := capacity.Decide(st, strategy)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			return printCapDecision(cmd.OutOrStdout(), d)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "JSON state file (- for stdin)")
	cmd.Flags().StringVar(&strategy, "strategy", "dp-bic:15", "strategy: "+strings.Join(capacity.Names(), "|")+" (NAME:X for parameters)")
	addJSONFlag(cmd.Flags(), &asJSON)
	return cmd
}

func printCapDecision(out io.Writer, d *capacity.Decision) error {
	w := output.NewWriter(out)
	w.Printf("%s: P = %d, length %g, at most %d processors unsaved at the next event\n", d.Algorithm, d.P, d.Length, d.Keep)
	w.Printf("useful work %.6g (section goodput %.4f)\n\n", d.Gain, d.Goodput)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "job\tp\tstart\tend\twork\tactions\t")
	for _, j := range d.Jobs {
		var acts []string
		for _, iv := range j.Actions {
			acts = append(acts, fmt.Sprintf("%s[%g,%g)", iv.Kind, iv.Start, iv.End))
		}
		if len(acts) == 0 {
			acts = []string{"idle"}
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.6g\t%s\t\n", j.Job, j.P, j.Start, j.End, j.Work, strings.Join(acts, " "))
	}
	tw.Flush()
	return w.Err()
}

// simFlags are the parameters shared by simulate and sweep.
type simFlags struct {
	strategies, workload string
	sections             int
	avgT, cLo, cHi       string
	pmax                 int
	pmin, delta, load    float64
	seed                 uint64
	json                 bool
	release              string
	workers              int
}

func (f *simFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.strategies, "strategies", "greedy-goodput,greedy-yield,dp-goodput,dp-yield,dp-bic:15",
		"comma-separated strategies: "+strings.Join(capacity.Names(), ", ")+" (NAME:X for parameters)")
	fl.StringVar(&f.workload, "workload", "uniform", "job widths: an SWF log (.swf, .swf.gz), a Batsim workload (.json), a CQSim .rst file, or uniform (1..p_min); comma-separated for several")
	fl.IntVar(&f.sections, "sections", 400, "number of sections n")
	fl.StringVar(&f.avgT, "avg-t", "100", "mean section length avgT (lengths ~ U[0.8,1.2]·avgT), in the model's time unit: a duration (100, 90m, 01:30:00) is read as seconds; with --finite the unit is 20 s")
	fl.IntVar(&f.pmax, "p-max", 400, "P_max (100 = the paper's light setting)")
	fl.Float64Var(&f.pmin, "p-min", 0.2, "P_min as a fraction of P_max, in [0, 1]")
	fl.Float64Var(&f.delta, "delta", 0.1, "delta as a fraction of P_max, in [0, 1]")
	fl.Float64Var(&f.load, "load", 2, "sum of job widths / P_max")
	fl.StringVar(&f.cLo, "c-min", "5", "checkpoint times C_j = R_j ~ U[c-min, c-max], in time units")
	fl.StringVar(&f.cHi, "c-max", "20", "see --c-min")
	addSeedFlag(fl, &f.seed, 1)
	addJSONFlag(fl, &f.json)
	addWorkersFlag(fl, &f.workers)
	fl.StringVar(&f.release, "finite", "", "finite jobs with release dates by this method: fifo, smallest or accumulation (needs a log with run times; time unit 20 s)")
}

// capacityParamFlags maps capacity.ParamError's names to the flags.
var capacityParamFlags = map[string]string{"sections": "sections", "pmax": "p-max", "pmin": "p-min",
	"delta": "delta", "load": "load", "avgT": "avg-t", "cmin": "c-min", "cmax": "c-max"}

// experiment reads the flags into a capacity.Experiment (no varied
// parameter yet) and validates them: every error is a usage error naming
// the flag and its value.
func (f *simFlags) experiment() (capacity.Experiment, error) {
	var e capacity.Experiment
	pr := capacity.Params{Sections: f.sections, PMax: f.pmax, PMinFrac: f.pmin, Delta: f.delta, Load: f.load}
	var err error
	for _, d := range []struct {
		name, v string
		p       *float64
	}{{"avg-t", f.avgT, &pr.AvgT}, {"c-min", f.cLo, &pr.CLo}, {"c-max", f.cHi, &pr.CHi}} {
		if *d.p, err = positiveDurationFlag(d.name, d.v); err != nil {
			return e, err
		}
	}
	if err := pr.Validate(); err != nil {
		var pe *capacity.ParamError
		if errors.As(err, &pe) && capacityParamFlags[pe.Param] != "" {
			return e, usagef("--%s %s: must be %s", capacityParamFlags[pe.Param], strconv.FormatFloat(pe.Value, 'g', -1, 64), pe.Want)
		}
		return e, usage(err)
	}
	if err := checkWorkers(f.workers); err != nil {
		return e, err
	}
	e.Params = pr
	if e.Strategies, err = capacity.ParseList(f.strategies); err != nil {
		return e, usagef("--strategies: %v", err)
	}
	rel, err := capacity.ParseRelease(f.release)
	if err != nil {
		return e, usagef("--finite: %v", err)
	}
	e.Release = rel
	if e.Workloads, err = capacity.LoadWorkloads(f.workload, pr.Platform().PMin); err != nil {
		return e, usage(err)
	}
	return e, nil
}

// capPoints lists the experiment's sweep points; a refusal (a workload
// without run times for --finite, a bad --values) is a usage error.
func capPoints(e capacity.Experiment) ([]capacity.SweepPoint, error) {
	pts, err := e.Points()
	if err != nil {
		return nil, usage(err)
	}
	return pts, nil
}

func newCapacitySimulateCmd() *cobra.Command {
	var f simFlags
	var plotPath, htmlPath string
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate strategies on one generated instance (Section 6.1 workload generation)",
		Example: `  ckpt capacity simulate --p-max 100 --sections 100
  ckpt capacity simulate --workload ../shared/data/swf/KIT-FH2-2016-1_CQSim-simresult.rst --strategies dp-goodput,dp-bic:15 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := f.experiment()
			if err != nil {
				return err
			}
			if err := checkPictureFlags(plotPath); err != nil {
				return err
			}
			pts, err := capPoints(e)
			if err != nil {
				return err
			}
			var res []runner.Result[capacity.SweepRow]
			opts := runner.Options{Seed: f.seed, Workers: f.workers, Label: "capacity simulate", ProgressTo: cmd.ErrOrStderr()}
			if err := capacity.RunSweep(cmd.Context(), opts, pts, 1, runner.Collect(&res)); err != nil {
				return err
			}
			rows := make([]capacity.SweepRow, len(res))
			for i, r := range res {
				rows[i] = r.Value
			}
			if err := writeSchedulePictures(cmd.Context(), plotPath, htmlPath, pts, f.seed, rows); err != nil {
				return err
			}
			if f.json {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			return printCapSimulation(cmd.OutOrStdout(), rows)
		},
	}
	f.register(cmd)
	addPictureFlags(cmd.Flags(), &plotPath, &htmlPath, "P(t) over the first sections with the processors each job holds, checkpoints and drops of P(t), one panel per strategy")
	return cmd
}

func printCapSimulation(out io.Writer, rows []capacity.SweepRow) error {
	w := output.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\talgorithm\tjobs\tfinished\tgoodput\tmin yield\trel goodput\trel min yield\tcheckpoints\trecoveries\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t\n", r.Workload, r.Algorithm, r.Jobs, r.Finished, r.Goodput, r.MinYield, r.RelGoodput, r.RelYield, r.Checkpoints, r.Recoveries)
	}
	tw.Flush()
	return w.Err()
}

// capSweepFlags are the flags of `capacity sweep` beyond simFlags.
type capSweepFlags struct {
	simFlags
	vary, values, shard, csv, jsonl string
	instances                       int
}

func newCapacitySweepCmd() *cobra.Command {
	var f capSweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Vary one parameter over instances and strategies (CSV/JSONL rows, shardable)",
		Long: `Simulate every strategy on --instances instances of every (workload, value of
--vary) pair. Rows go to --csv (default stdout) and/or --jsonl as they finish, in
the same order whatever --workers; --json prints them as one JSON array at the
end instead of the CSV on stdout. Ctrl-C stops the sweep within a second, leaving
only complete rows.`,
		Example: `  ckpt capacity sweep --vary avgT --values 50,100,200 --instances 10 --p-max 100 > avgT.csv
  ckpt capacity sweep --vary delta --values 0.05,0.1,0.2 --shard 0/4 --csv d.0.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pts, sh, err := f.points()
			if err != nil {
				return err
			}
			if f.json && !cmd.Flags().Changed("csv") {
				f.csv = ""
			}
			return f.run(cmd, pts, sh)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.vary, "vary", "avgT", "parameter to vary: avgT, pmax, pmin, delta, load, sections")
	fl.StringVar(&f.values, "values", "50,100,200", "comma-separated values of --vary")
	fl.IntVar(&f.instances, "instances", 10, "instances per point")
	fl.StringVar(&f.shard, "shard", "", "run shard i/n of the items (0-based)")
	fl.StringVar(&f.csv, "csv", "-", `CSV output file ("-" for stdout, "" for none)`)
	fl.StringVar(&f.jsonl, "jsonl", "", `JSON-lines output file ("-" for stdout)`)
	return cmd
}

// points validates the sweep's flags and lists its points.
func (f *capSweepFlags) points() ([]capacity.SweepPoint, runner.Shard, error) {
	var sh runner.Shard
	e, err := f.experiment()
	if err != nil {
		return nil, sh, err
	}
	if f.instances < 1 {
		return nil, sh, usagef("--instances %d: must be >= 1", f.instances)
	}
	if sh, err = runner.ParseShard(f.shard); err != nil {
		return nil, sh, usage(err)
	}
	items, err := listFlag("values", f.values)
	if err != nil {
		return nil, sh, err
	}
	e.Vary = f.vary
	for _, s := range items {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, sh, usagef("--values: bad number %q", s)
		}
		e.Values = append(e.Values, v)
	}
	pts, err := e.Points()
	var pe *capacity.ParamError
	if errors.As(err, &pe) && pe.Param == f.vary {
		return nil, sh, usagef("--values: %v", err)
	}
	if err != nil {
		return nil, sh, usage(err)
	}
	return pts, sh, nil
}

// run sweeps the points into the outputs chosen by --csv, --jsonl, --json.
func (f *capSweepFlags) run(cmd *cobra.Command, pts []capacity.SweepPoint, sh runner.Shard) error {
	toStdout := 0
	for _, p := range []string{f.csv, f.jsonl} {
		if p == "-" {
			toStdout++
		}
	}
	switch {
	case f.csv == "" && f.jsonl == "" && !f.json:
		return usagef("give --csv, --jsonl or --json")
	case f.json && toStdout > 0 || toStdout > 1:
		return usagef("only one of --csv -, --jsonl - and --json can write to stdout")
	}
	var res []runner.Result[capacity.SweepRow]
	sink, closeOut := runner.Sink[capacity.SweepRow](nil), func() error { return nil }
	if f.csv != "" || f.jsonl != "" {
		var err error
		if sink, closeOut, err = runner.CreateOutputs[capacity.SweepRow](cmd.OutOrStdout(), f.csv, f.jsonl); err != nil {
			return err
		}
	}
	if f.json {
		sink = capTee(sink, runner.Collect(&res))
	}
	opts := runner.Options{Seed: f.seed, Workers: f.workers, Shard: sh, Label: "capacity sweep", ProgressTo: cmd.ErrOrStderr()}
	err := capacity.RunSweep(cmd.Context(), opts, pts, f.instances, sink)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil || !f.json {
		return err
	}
	rows := make([]capacity.SweepRow, len(res))
	for i, r := range res {
		rows[i] = r.Value
	}
	return writeJSON(cmd.OutOrStdout(), rows)
}

// capTee is runner.Tee skipping a nil sink.
func capTee[R any](a, b runner.Sink[R]) runner.Sink[R] {
	if a == nil {
		return b
	}
	return runner.Tee(a, b)
}
