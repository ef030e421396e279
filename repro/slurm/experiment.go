package slurm

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/usage"
)

// DefaultSeed is the base seed of ckpt repro slurm.
const DefaultSeed = 2020

// QuickDesign is --quick: a few dozen Qball and FCA jobs (SD's jobs last
// a scaled hour), Fig. 8's three strategies and Fig. 9 at 30%.
func QuickDesign(seed uint64) Design {
	return Design{Jobs: 6, Apps: []App{Apps()[0], Apps()[2]}, Variations: []float64{0.3}, Seed: seed}
}

// FullDesign is the paper's: 500 jobs per application and strategy,
// Fig. 9 at 10, 20 and 30%, ten runs of Table 4's mix; jobs scales the
// job counts (500 is the paper's) and mixRuns the runs.
func FullDesign(seed uint64, jobs, mixRuns int) Design {
	return Design{Jobs: jobs, Apps: Apps(), Variations: []float64{0.1, 0.2, 0.3}, MixRuns: mixRuns, MixScale: float64(jobs) / 500, Seed: seed}
}

// DesignFor is the design of a run: QuickDesign when quick, else
// FullDesign with jobs per application and strategy and mixRuns runs of
// Table 4's mix. An error names the field (Jobs, MixRuns) out of range.
func DesignFor(seed uint64, quick bool, jobs, mixRuns int) (Design, error) {
	switch {
	case jobs < 1:
		return Design{}, usage.Fieldf("Jobs", "%d: want at least 1 job per application and strategy", jobs)
	case mixRuns < 0:
		return Design{}, usage.Fieldf("MixRuns", "%d: want 0 or more runs of the mix", mixRuns)
	case quick:
		return QuickDesign(seed), nil
	}
	return FullDesign(seed, jobs, mixRuns), nil
}

// QuickScale is the scale of a quick run that names none.
const QuickScale = 30

// Complete sets the scale of a quick run that names none (QuickScale),
// the defaults of the settings left zero (Ckpt: this binary; 4096 bytes
// per second of C; a poll every 250 ms), and checks the settings against
// a cluster of cpus CPUs; an error names the field (Slots, Scale) out of
// range. A scale of 0 left is set by Run (AutoScale).
func (c *Config) Complete(quick bool, cpus int) error {
	if c.Scale == 0 && quick {
		c.Scale = QuickScale
	}
	if c.Ckpt == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		c.Ckpt = exe
	}
	c.BytesPerSecond, c.Poll = cmp.Or(c.BytesPerSecond, 4096), cmp.Or(c.Poll, 250*time.Millisecond)
	switch {
	case c.Slots < 1 || c.Slots > cpus:
		return usage.Fieldf("Slots", "%d: want 1 to %d, the cluster's CPUs", c.Slots, cpus)
	case !slurm.ValidScale(c.Scale):
		return usage.Fieldf("Scale", "%v: want 0 (automatic) or a factor in [1e-3, 1e6]", c.Scale)
	}
	return nil
}

// Budget is the real time the node time of a run should take when
// AutoScale sets the scale (the rest of 45 minutes is for the tails of
// the last chains and Slurm's scheduling), and MinScale the least scale
// it sets.
const (
	Budget   = 30 * time.Minute
	MinScale = 20
)

// AutoScale is the scale at which the jobs' expected node time (their
// simulated time held) on slots chains at a time takes budget: Σ held /
// (slots · budget), at least floor.
func AutoScale(jobs []Job, slots int, budget time.Duration, floor float64) float64 {
	total := 0.0
	for _, j := range jobs {
		total += SimHeld(j)
	}
	return math.Max(floor, math.Ceil(total/(float64(slots)*budget.Seconds())))
}

// Run runs the design on the cluster and writes jobs.csv (one row per
// job, as it finishes), cells.csv (the measures per cell, on the cluster
// and in simulation), comparisons.csv and states.txt; the tables go to
// rc.Log.
func Run(ctx context.Context, rc repro.Config, cfg Config, d Design) error {
	if cfg.Scale == 0 { // the scale of the paper's plans, then the plans at that scale
		jobs, err := d.Make(ctx)
		if err != nil {
			return err
		}
		cfg.Scale = AutoScale(jobs, cfg.Slots, Budget, MinScale)
	}
	d.Margin = cfg.PlanMargin()
	jobs, err := d.Make(ctx)
	if err != nil {
		return err
	}
	jobs = Interleave(jobs)
	cfg.Dir = rc.Dir
	fmt.Fprintf(rc.Log, "Section 5 on Slurm: %d jobs, scale %g (1 s of real time is %g s of the paper's), %d slots, margin %v, a checkpoint reserves C + %g s\n",
		len(jobs), cfg.Scale, cfg.Scale, cfg.Slots, cfg.Margin, d.Margin)
	t, err := rc.NewTable("jobs.csv", "cell", "experiment", "app", "strategy", "variation", "run", "index", "walltime",
		"planned_reservations", "done", "reservations", "held", "response", "wait_real_s", "sim_held", "startup", "finish", "stopped", "job_ids",
		"plan_margin", "checkpoints", "milestones_reached")
	if err != nil {
		return err
	}
	var results []Result
	start := time.Now()
	runErr := Execute(ctx, cfg, jobs, func(r Result) error {
		results = append(results, r)
		t.Row(r.Cell(), r.Experiment, r.App.Name, r.Strategy, r.Variation, r.Run, r.Index, r.Walltime, len(r.Steps),
			r.Done, r.Reservations, r.Held, r.Response, (r.Response-r.Held)/r.Scale, r.SimHeld, r.Startup, r.Finish, r.Stopped, strings.Join(r.JobIDs, " "),
			repro.Exact(r.Margin), r.Checkpoints, r.Reached)
		return t.Err()
	})
	if err := t.Close(); err != nil {
		return err
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	fmt.Fprintf(rc.Log, "%d of %d jobs' chains ended in %v of real time\n", len(results), len(jobs), time.Since(start).Round(time.Second))
	if err := writeSummaries(ctx, rc, cfg.cluster(), results); err != nil {
		return err
	}
	return runErr
}

// settledAccounting is Accounting once every job has ended in it, read
// again every second for at most wait: a runner records its chain's end
// before its job has left the node, and slurmdbd learns of the end later
// still, so a job read at once may still be RUNNING. Once ctx is done
// (Ctrl-C) it reads once more, without waiting: the summaries of what ran
// are still written.
func settledAccounting(ctx context.Context, cl slurm.Cluster, ids []string, wait time.Duration) (map[string]Acct, error) {
	deadline := time.Now().Add(wait)
	for {
		acct, err := Accounting(context.WithoutCancel(ctx), cl, ids)
		if err != nil || ctx.Err() != nil || time.Now().After(deadline) || allEnded(acct, ids) {
			return acct, err
		}
		select {
		case <-ctx.Done():
			return acct, nil
		case <-time.After(time.Second):
		}
	}
}

// allEnded reports whether every job of ids has an end in acct.
func allEnded(acct map[string]Acct, ids []string) bool {
	for _, id := range ids {
		if a, ok := acct[id]; !ok || a.End.IsZero() || a.State == "RUNNING" || a.State == "PENDING" {
			return false
		}
	}
	return true
}

// writeSummaries writes cells.csv, comparisons.csv and states.txt.
func writeSummaries(ctx context.Context, rc repro.Config, cl slurm.Cluster, results []Result) error {
	var ids []string
	for _, r := range results {
		ids = append(ids, r.JobIDs...)
	}
	acct, aerr := settledAccounting(ctx, cl, ids, 30*time.Second)
	if aerr != nil {
		fmt.Fprintf(rc.Log, "%v (the measures on Slurm's allocation are left empty)\n", aerr)
	}
	attach(results, acct)
	ss := Summarize(results)
	t, err := rc.NewTable("cells.csv", "cell", "experiment", "app", "strategy", "variation", "run", "jobs", "done", "reservations",
		"utilization", "stretch", "sim_utilization", "sim_stretch", "queue_utilization", "queue_stretch", "wait_real_s", "wait_utilization", "wait_stretch",
		"reserved_utilization", "reserved_stretch", "sim_reserved_utilization", "sim_reserved_stretch", "alloc_utilization", "alloc_stretch", "lag_real_s", "timeouts",
		"startup", "finish", "stopped")
	if err != nil {
		return err
	}
	for _, s := range ss {
		t.Row(s.Cell, s.Experiment, s.App, s.Strat, s.Variation, s.Run, s.Jobs, s.Done, s.Reservations, s.Utilization, s.Stretch,
			s.SimUtilization, s.SimStretch, s.QueueUtilization, s.QueueStretch, s.Wait, s.WaitUtilization, s.WaitStretch,
			s.ReservedUtilization, s.ReservedStretch, s.SimReservedUtilization, s.SimReservedStretch, s.AllocUtilization, s.AllocStretch, s.Lag, s.Timeouts,
			s.Startup, s.Finish, s.Stopped)
	}
	if err := t.Close(); err != nil {
		return err
	}
	printSummaries(rc.Log, ss)
	if line := MilestonesLine(results); line != "" {
		fmt.Fprintln(rc.Log, line)
	}
	if err := writeFig8(rc, ss); err != nil {
		return err
	}
	if err := writeFig9(rc, ss); err != nil {
		return err
	}
	cs := Comparisons(ss)
	p, err := rc.Path("comparisons.csv")
	if err != nil {
		return err
	}
	if err := repro.WriteComparisons(p, cs); err != nil {
		return err
	}
	repro.PrintComparisons(rc.Log, "Section 5 on Slurm: paper beside the cluster (simulation and queue in the note)", cs)
	if aerr != nil {
		return nil
	}
	states := map[string]int{}
	for _, a := range acct {
		states[a.State]++
	}
	line := "sacct states of the reservations that ran:" + sortedStates(states) + "\n" + CompletedLine(results, acct) + "\n"
	fmt.Fprint(rc.Log, line)
	sp, err := rc.Path("states.txt")
	if err != nil {
		return err
	}
	return os.WriteFile(sp, []byte(line), 0o644)
}

// CompletedLine counts the jobs as sacct does: those with a reservation
// in state COMPLETED, beside those whose runner recorded the work done,
// and says so when they differ (a record lost, or a runner that exited 0
// without the work done).
func CompletedLine(results []Result, acct map[string]Acct) string {
	completed, done := 0, 0
	for _, r := range results {
		if slices.ContainsFunc(r.JobIDs, func(id string) bool { return acct[id].State == "COMPLETED" }) {
			completed++
		}
		if r.Done {
			done++
		}
	}
	line := fmt.Sprintf("jobs completed: %d of %d (sacct: a reservation COMPLETED)", completed, len(results))
	if done != completed {
		line += fmt.Sprintf("; the runners recorded %d done: the records disagree", done)
	}
	return line
}

// MilestonesLine counts the checkpointed reservations whose saved
// progress reached the plan's milestone (Milestones); "" when none
// checkpointed.
func MilestonesLine(results []Result) string {
	n, reached := 0, 0
	for _, r := range results {
		n, reached = n+r.Checkpoints, reached+r.Reached
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("milestones reached: %d of %d checkpointed reservations saved the progress their plan set", reached, n)
}

// Resummarize rebuilds the results of a run from its jobs.csv (the jobs
// themselves are redrawn from the design, which the seed fixes) and writes
// cells.csv, comparisons.csv and states.txt again, without submitting
// anything: for a run that was interrupted, or made by an older ckpt. The
// accounting comes from cl.
func Resummarize(ctx context.Context, rc repro.Config, cl slurm.Cluster, d Design) error {
	p, err := rc.Path("jobs.csv")
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		return fmt.Errorf("%s: %v", p, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, need := range []string{"cell", "app", "index", "walltime", "done", "reservations", "held", "response", "job_ids"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("%s: no column %q", p, need)
		}
	}
	if len(recs) > 1 { // the plans' margin (none in a run planned with the paper's costs)
		first := row{rec: recs[1], col: col}
		if d.Margin = first.opt("plan_margin"); first.err != nil || d.Margin < 0 {
			return fmt.Errorf("%s: row 2: plan_margin %q: want a number >= 0", p, first.str("plan_margin"))
		}
	}
	jobs, err := d.Make(ctx)
	if err != nil {
		return err
	}
	byKey := map[string]Job{}
	for _, j := range jobs {
		byKey[j.Cell()+"/"+j.App.Name+"/"+strconv.Itoa(j.Index)] = j
	}
	var results []Result
	for n, rec := range recs[1:] {
		rr := row{rec: rec, col: col}
		j, ok := byKey[rr.str("cell")+"/"+rr.str("app")+"/"+rr.str("index")]
		if !ok {
			return fmt.Errorf("%s: job %s %s of another design (give the run's --seed, --jobs-per-cell and --mix-runs)", p, rr.str("cell"), rr.str("index"))
		}
		r := Result{Job: j, Done: rr.str("done") == "true", SimHeld: SimHeld(j)}
		r.Reservations = int(rr.num("reservations"))
		r.Held, r.Response = rr.num("held"), rr.num("response")
		r.JobIDs = strings.Fields(rr.str("job_ids"))
		if w := rr.num("walltime"); rr.err == nil && math.Abs(w-j.Walltime) > 1e-4*j.Walltime {
			return fmt.Errorf("%s: job %s %s has walltime %s, the design %v", p, rr.str("cell"), rr.str("index"), rr.str("walltime"), j.Walltime)
		}
		r.Scale = d.scaleOf(&rr)
		r.Startup, r.Finish, r.Stopped = rr.opt("startup"), rr.opt("finish"), int(rr.opt("stopped"))
		r.Checkpoints, r.Reached = int(rr.opt("checkpoints")), int(rr.opt("milestones_reached"))
		if rr.err != nil {
			return fmt.Errorf("%s: row %d: %w", p, n+2, rr.err)
		}
		if !(r.Scale > 0) || math.IsInf(r.Scale, 0) {
			return fmt.Errorf("%s: row %d: no time scale (a jobs.csv without wait_real_s needs the run's --scale)", p, n+2)
		}
		results = append(results, r)
	}
	fmt.Fprintf(rc.Log, "%d jobs read back from %s\n", len(results), p)
	return writeSummaries(ctx, rc, cl, results)
}

// row reads the columns of one jobs.csv record, remembering the first
// value that does not parse.
type row struct {
	rec []string
	col map[string]int
	err error
}

func (r *row) str(name string) string { return r.rec[r.col[name]] }

// num parses a required numeric column.
func (r *row) num(name string) float64 {
	v, err := strconv.ParseFloat(r.str(name), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		if r.err == nil {
			r.err = fmt.Errorf("column %q: %q is not a finite number", name, r.str(name))
		}
		return 0
	}
	return v
}

// opt parses an optional numeric column (0 when the file has none).
func (r *row) opt(name string) float64 {
	if _, ok := r.col[name]; !ok {
		return 0
	}
	return r.num(name)
}

// scaleOf is the scale of a jobs.csv row: response − held over its
// wait_real_s column (the run's scale), else the design's RunScale.
func (d Design) scaleOf(r *row) float64 {
	if w := r.opt("wait_real_s"); w > 0 {
		return (r.num("response") - r.num("held")) / w
	}
	return d.RunScale
}
