package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/runner"
)

func newCapacityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Schedule rigid jobs when the processor count varies (decide, simulate, sweep)",
		Long: `Schedule rigid jobs on a platform whose processor count changes at announced
events (Cendrier, Benoit, Vivien, Inria RR-9582, 2025). Before each event enough
jobs are checkpointed that no work is lost even if delta processors disappear.
Algorithms: ` + strings.Join(capacity.Names(), ", ") + ` (parameterised ones as
NAME:X, e.g. dp-bic:15, target-yield:0.5). Every schedule is checked by an
independent validator; goodput and yields are measured on the validated schedule.`,
	}
	cmd.AddCommand(newCapacityDecideCmd(), newCapacitySimulateCmd(), newCapacitySweepCmd())
	return cmd
}

type decideJobOut struct {
	Job     int                 `json:"job"`
	P       int                 `json:"p"`
	Case    uint8               `json:"case,omitempty"`
	Start   capacity.Status     `json:"start"`
	End     capacity.Status     `json:"end"`
	Work    float64             `json:"work"`
	Actions []capacity.Interval `json:"actions"`
}

type decideOut struct {
	Algorithm string         `json:"algorithm"`
	P         int            `json:"p"`
	Length    float64        `json:"length"`
	Keep      int            `json:"keep"`
	Cnf       float64        `json:"cnf"`    // end of phase 1
	Phase3    float64        `json:"phase3"` // start of phase 3, T − C_max
	Gain      float64        `json:"gain"`
	Goodput   float64        `json:"goodput"`
	Jobs      []decideJobOut `json:"jobs"`
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
	var state, algo string
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
		Example: `  ckpt capacity decide --state section.json --algo dp-bic:15 --json
  echo '{"p_min":2,"p_max":10,"delta":2,"p":8,"length":100,
    "jobs":[{"p":3,"c":10,"r":10,"status":"running","yield":0.5},
            {"p":4,"c":12,"r":12,"status":"idle","yield":0.1}]}' | ckpt capacity decide --state - --algo dp-goodput`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if state == "" {
				return usagef("--state is required")
			}
			st, err := readDecideState(cmd.InOrStdin(), state)
			if err != nil {
				return usage(err)
			}
			a, err := capacity.New(algo)
			if err != nil {
				return usage(err)
			}
			pl, err := a.Plan(st)
			if err != nil {
				return err
			}
			out, err := capacity.Validate(st, pl)
			if err != nil {
				return fmt.Errorf("%s produced an invalid schedule: %v", a.Name(), err)
			}
			res := decideOut{Algorithm: a.Name(), P: st.P, Length: st.T, Keep: st.Keep(st.P), Cnf: pl.Cnf, Phase3: st.T - st.CMax(),
				Gain: out.Area, Goodput: out.Area / (float64(st.P) * st.T)}
			for j, ivs := range pl.Jobs {
				jo := decideJobOut{Job: j, P: st.Jobs[j].P, Start: st.Status[j], End: out.End[j], Work: out.Work[j], Actions: ivs}
				if jo.Actions == nil {
					jo.Actions = []capacity.Interval{}
				}
				if pl.Case != nil {
					jo.Case = pl.Case[j]
				}
				res.Jobs = append(res.Jobs, jo)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				e := json.NewEncoder(w)
				e.SetIndent("", "  ")
				return e.Encode(res)
			}
			fmt.Fprintf(w, "%s: P = %d, length %g, at most %d processors unsaved at the next event\n", res.Algorithm, res.P, res.Length, res.Keep)
			fmt.Fprintf(w, "useful work %.6g (section goodput %.4f)\n\n", res.Gain, res.Goodput)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "job\tp\tstart\tend\twork\tactions\t")
			for _, j := range res.Jobs {
				var acts []string
				for _, iv := range j.Actions {
					acts = append(acts, fmt.Sprintf("%s[%g,%g)", iv.Kind, iv.Start, iv.End))
				}
				if len(acts) == 0 {
					acts = []string{"idle"}
				}
				fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.6g\t%s\t\n", j.Job, j.P, j.Start, j.End, j.Work, strings.Join(acts, " "))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "JSON state file (- for stdin)")
	cmd.Flags().StringVar(&algo, "algo", "dp-bic:15", "algorithm: "+strings.Join(capacity.Names(), "|"))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON on stdout")
	return cmd
}

// simFlags are the parameters shared by simulate and sweep.
type simFlags struct {
	algos, workload             string
	sections                    int
	avgT                        string
	pmax                        int
	pmin, delta, load, cLo, cHi float64
	seed                        uint64
	json                        bool
	release                     string
}

func (f *simFlags) register(cmd *cobra.Command, defAlgos string) {
	fl := cmd.Flags()
	fl.StringVar(&f.algos, "algo", defAlgos, "comma-separated algorithms: "+strings.Join(capacity.Names(), ", ")+" (NAME:X for parameters)")
	fl.StringVar(&f.workload, "workload", "uniform", "job widths: an SWF log (.swf, .swf.gz), a CQSim .rst file, or uniform (1..p_min)")
	fl.IntVar(&f.sections, "sections", 400, "number of sections n")
	fl.StringVar(&f.avgT, "avg-t", "100", "mean section length avgT (lengths ~ U[0.8,1.2]·avgT)")
	fl.IntVar(&f.pmax, "p-max", 400, "P_max (100 = the paper's light setting)")
	fl.Float64Var(&f.pmin, "p-min", 0.2, "P_min as a fraction of P_max")
	fl.Float64Var(&f.delta, "delta", 0.1, "delta as a fraction of P_max")
	fl.Float64Var(&f.load, "load", 2, "sum of job widths / P_max")
	fl.Float64Var(&f.cLo, "c-min", 5, "checkpoint times C_j = R_j ~ U[c-min, c-max]")
	fl.Float64Var(&f.cHi, "c-max", 20, "see --c-min")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.BoolVar(&f.json, "json", false, "print JSON on stdout")
	fl.StringVar(&f.release, "finite", "", "finite jobs with release dates by this method: fifo, smallest or accumulation (needs a log with run times; time unit 20 s)")
}

func (f *simFlags) params() (capacity.Params, error) {
	t, err := parseDur(f.avgT)
	if err != nil {
		return capacity.Params{}, fmt.Errorf("--avg-t: %v", err)
	}
	pr := capacity.Params{Sections: f.sections, AvgT: t, PMax: f.pmax, PMinFrac: f.pmin, Delta: f.delta, Load: f.load, CLo: f.cLo, CHi: f.cHi}
	switch {
	case f.sections < 1 || f.sections > 10_000_000:
		return pr, fmt.Errorf("--sections %d: must be in [1, 1e7]", f.sections)
	case f.pmax > capacity.MaxProcessors:
		return pr, fmt.Errorf("--p-max %d: at most %d supported", f.pmax, capacity.MaxProcessors)
	case f.load > 1000:
		return pr, fmt.Errorf("--load %v: at most 1000", f.load)
	case !(t > 0):
		return pr, fmt.Errorf("--avg-t %v: section length must be > 0", t)
	case f.delta < 0:
		return pr, fmt.Errorf("--delta %v: must be >= 0", f.delta)
	case f.pmax < 1:
		return pr, fmt.Errorf("--p-max %d: must be >= 1", f.pmax)
	case f.pmin < 0 || f.pmin > 1:
		return pr, fmt.Errorf("--p-min %v: P_min must lie in [0, P_max] (a fraction in [0, 1])", f.pmin)
	case !(f.load > 0):
		return pr, fmt.Errorf("--load %v: must be > 0", f.load)
	case !(f.cLo > 0) || f.cHi < f.cLo:
		return pr, fmt.Errorf("--c-min %v, --c-max %v: need 0 < c-min <= c-max", f.cLo, f.cHi)
	}
	if err := pr.Platform().Validate(); err != nil {
		return pr, err
	}
	switch capacity.ReleaseMethod(f.release) {
	case "", capacity.FIFO, capacity.Smallest, capacity.Accumulation:
	default:
		return pr, fmt.Errorf("--finite %q: want fifo, smallest or accumulation", f.release)
	}
	return pr, nil
}

func parseDur(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

func (f *simFlags) algoList() ([]string, error) {
	var out []string
	for _, a := range strings.Split(f.algos, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if _, err := capacity.New(a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--algo: no algorithm")
	}
	return out, nil
}

func loadWorkloads(spec string, pmin int) ([]capacity.Workload, error) {
	var ws []capacity.Workload
	for _, s := range strings.Split(spec, ",") {
		if s == "uniform" {
			ws = append(ws, capacity.UniformWorkload(max(pmin, 1)))
			continue
		}
		w, err := capacity.LoadWorkload(s)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

const capDefaultAlgos = "greedy-goodput,greedy-yield,dp-goodput,dp-yield,dp-bic:15"

func newCapacitySimulateCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate algorithms on one generated instance (Section 6.1 workload generation)",
		Example: `  ckpt capacity simulate --p-max 100 --sections 100
  ckpt capacity simulate --workload ../shared/data/swf/KIT-FH2-2016-1_CQSim-simresult.rst --algo dp-goodput,dp-bic:15 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pr, err := f.params()
			if err != nil {
				return usage(err)
			}
			algos, err := f.algoList()
			if err != nil {
				return usage(err)
			}
			wls, err := loadWorkloads(f.workload, pr.Platform().PMin)
			if err != nil {
				return usage(err)
			}
			for _, w := range wls {
				if f.release != "" && len(w.Specs) == 0 {
					return usagef("--finite: workload %s has no run times (pass an SWF or CQSim log with --workload)", w.Name)
				}
			}
			var rows []capacity.SweepRow
			for wi := range wls {
				for _, a := range algos {
					row, _, err := capacity.RunSweepItem(capacity.SweepPoint{Workload: &wls[wi], Params: pr, Algo: a, Instance: wi, Release: capacity.ReleaseMethod(f.release)}, f.seed, 0)
					if err != nil {
						return err
					}
					rows = append(rows, row)
				}
			}
			w := cmd.OutOrStdout()
			if f.json {
				e := json.NewEncoder(w)
				e.SetIndent("", "  ")
				return e.Encode(rows)
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "workload\talgorithm\tjobs\tfinished\tgoodput\tmin yield\trel goodput\trel min yield\tcheckpoints\trecoveries\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t\n", r.Workload, r.Algorithm, r.Jobs, r.Finished, r.Goodput, r.MinYield, r.RelGoodput, r.RelYield, r.Checkpoints, r.Recoveries)
			}
			return tw.Flush()
		},
	}
	f.register(cmd, capDefaultAlgos)
	return cmd
}

func newCapacitySweepCmd() *cobra.Command {
	var f simFlags
	var vary, values, shard, csvPath, jsonlPath string
	var instances, workers int
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Vary one parameter over instances and algorithms (CSV/JSONL rows, shardable)",
		Example: `  ckpt capacity sweep --vary avgT --values 50,100,200 --instances 10 --p-max 100 > avgT.csv
  ckpt capacity sweep --vary delta --values 0.05,0.1,0.2 --shard 0/4 --csv d.0.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pr, err := f.params()
			if err != nil {
				return usage(err)
			}
			algos, err := f.algoList()
			if err != nil {
				return usage(err)
			}
			if instances < 1 {
				return usagef("--instances %d: must be >= 1", instances)
			}
			sh, err := runner.ParseShard(shard)
			if err != nil {
				return usage(err)
			}
			var vals []float64
			for _, s := range strings.Split(values, ",") {
				v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return usagef("--values: bad number %q", s)
				}
				p := pr
				if err := capacity.SetParam(&p, vary, v); err != nil {
					return usage(err)
				}
				if err := p.Platform().Validate(); err != nil {
					return usagef("--values %v: %v", v, err)
				}
				vals = append(vals, v)
			}
			wls, err := loadWorkloads(f.workload, pr.Platform().PMin)
			if err != nil {
				return usage(err)
			}
			for _, w := range wls {
				if f.release != "" && len(w.Specs) == 0 {
					return usagef("--finite: workload %s has no run times (pass an SWF or CQSim log with --workload)", w.Name)
				}
			}
			var pts []capacity.SweepPoint
			for wi := range wls {
				for vi, v := range vals {
					p := pr
					capacity.SetParam(&p, vary, v)
					for _, a := range algos {
						pts = append(pts, capacity.SweepPoint{Workload: &wls[wi], Params: p, Algo: a, Vary: vary, Value: v, Instance: wi*len(vals) + vi, Release: capacity.ReleaseMethod(f.release)})
					}
				}
			}
			var sink runner.Sink[capacity.SweepRow]
			closeFn := func() error { return nil }
			if csvPath == "" && jsonlPath == "" {
				sink = runner.NewCSV[capacity.SweepRow](cmd.OutOrStdout())
			} else {
				sink, closeFn, err = runner.CreateOutputs[capacity.SweepRow](cmd.OutOrStdout(), csvPath, jsonlPath)
				if err != nil {
					return err
				}
			}
			err = runner.Run(context.Background(), runner.Options{Seed: f.seed, Workers: workers, Shard: sh, Label: "capacity sweep"}, pts, instances,
				func(_ context.Context, it runner.Item[capacity.SweepPoint]) (capacity.SweepRow, error) {
					row, _, err := capacity.RunSweepItem(it.Param, f.seed, it.Rep)
					return row, err
				}, sink)
			if cerr := closeFn(); err == nil {
				err = cerr
			}
			return err
		},
	}
	f.register(cmd, capDefaultAlgos)
	cmd.Flags().StringVar(&vary, "vary", "avgT", "parameter to vary: avgT, pmax, pmin, delta, load, sections")
	cmd.Flags().StringVar(&values, "values", "50,100,200", "comma-separated values of --vary")
	cmd.Flags().IntVar(&instances, "instances", 10, "instances per point")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel workers (0 = all cores; output identical)")
	cmd.Flags().StringVar(&shard, "shard", "", "run shard i/n of the items (0-based)")
	cmd.Flags().StringVar(&csvPath, "csv", "", "write CSV rows here (default: stdout)")
	cmd.Flags().StringVar(&jsonlPath, "jsonl", "", "write JSON lines here")
	return cmd
}
