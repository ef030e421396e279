package slurm

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/rng"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// Experiments of Section 5.
const (
	Fig8   = "Fig. 8"
	Fig9   = "Fig. 9"
	Table4 = "Table 4"
)

// Job is one job of the real run: a drawn walltime and its chain.
type Job struct {
	Experiment string
	App        App
	Strategy   string
	// Variation is Fig. 9's C/R variation v (0 elsewhere); Run is Table
	// 4's run (0 elsewhere); Index numbers the job within its cell.
	Variation  float64
	Run, Index int
	// Walltime is the drawn walltime (paper seconds); Seed the stand-in's.
	Walltime float64
	Seed     uint64
	Steps    []slurm.Step
	// Margin is what the plan reserves after each checkpoint besides C
	// (paper seconds; Design.Margin, 0 for the paper's costs).
	Margin float64
}

// Cell names the group of jobs whose measures are reported together.
func (j Job) Cell() string {
	switch j.Experiment {
	case Fig9:
		return fmt.Sprintf("%s %s %s v=%g%%", j.Experiment, j.App.Name, j.Strategy, 100*j.Variation)
	case Table4:
		return fmt.Sprintf("%s run %d %s", j.Experiment, j.Run, j.Strategy)
	}
	return fmt.Sprintf("%s %s %s", j.Experiment, j.App.Name, j.Strategy)
}

// costs are the costs the plans of app are made with: the paper's C and
// R, and a checkpoint reserving C + margin (reservation.Costs.Margin).
func costs(app App, margin float64) reservation.Costs {
	return reservation.Costs{Alpha: 1, C: app.C, R: app.R, Margin: margin}
}

// steps turns a strategy into the chain's reservations (slurm.StepsOf,
// as ckpt reserve --sbatch does).
func steps(s reservation.Strategy, app App, margin float64) ([]slurm.Step, error) {
	return slurm.StepsOf(reservation.Reservations(s, costs(app, margin)), nil)
}

// Design is the size of the real run.
type Design struct {
	// Jobs per application and strategy (Fig. 8 and 9; 500 in the paper).
	Jobs int
	// Apps are the applications run (Table 3's by default).
	Apps []App
	// Variations are Fig. 9's v > 0 (the paper: up to 30%), run with
	// DYN-PROG-COUNT (HPC takes no checkpoint: C/R do not touch it).
	Variations []float64
	// MixRuns is the number of Table 4 runs; MixScale multiplies Mix.
	MixRuns  int
	MixScale float64
	Seed     uint64
	// RunScale is the scale of a run read back (Resummarize) whose
	// jobs.csv does not give it.
	RunScale float64
	// Margin is what every plan reserves after a checkpoint besides C
	// (paper seconds, reservation.Costs.Margin): what the runner and the
	// stand-in really lose (Config.PlanMargin). 0 plans with the paper's
	// costs, whose milestones a real run cannot reach (FINDINGS.md).
	Margin float64
}

// planner caches one plan per application, strategy and margin.
type planner map[string]reservation.Strategy

func (p planner) plan(ctx context.Context, app App, name string, margin float64) (reservation.Strategy, error) {
	key := fmt.Sprintf("%s/%s/%v", app.Name, name, margin)
	if s, ok := p[key]; ok {
		return s, nil
	}
	d, err := app.Dist()
	if err != nil {
		return nil, err
	}
	_, b := d.Support()
	s, err := strategyFor(ctx, name, d, costs(app, margin), nil, b)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", app.Name, name, err)
	}
	p[key] = s
	return s, nil
}

// draw returns n+5 walltimes of app from stream ids (5 warm-up runs for
// HPC's history first).
func draw(app App, n int, seed uint64, ids ...uint64) ([]float64, error) {
	d, err := app.Dist()
	if err != nil {
		return nil, err
	}
	r := rng.Stream(seed, ids...)
	ts := make([]float64, n+5)
	for i := range ts {
		ts[i] = d.Quantile(r.Float64())
	}
	return ts, nil
}

// cellJobs makes the jobs of one application under strategy name on
// walltimes ts (5 warm-up runs first).
func cellJobs(ctx context.Context, p planner, exp string, app App, name string, v float64, run int, ts []float64, seed uint64, margin float64) ([]Job, error) {
	var out []Job
	for i := range len(ts) - 5 {
		var s reservation.Strategy
		var err error
		if name == HPC {
			d, _ := app.Dist()
			_, b := d.Support()
			s, err = strategyFor(ctx, HPC, d, reservation.Costs{}, ts[i:i+5], b)
		} else {
			s, err = p.plan(ctx, app, name, margin)
		}
		if err != nil {
			return nil, err
		}
		t := ts[i+5]
		if t > s.Last() {
			return nil, fmt.Errorf("%s %s: walltime %v not covered", app.Name, name, t)
		}
		st, err := steps(s, app, margin)
		if err != nil {
			return nil, err
		}
		out = append(out, Job{Experiment: exp, App: app, Strategy: name, Variation: v, Run: run, Index: i, Walltime: t,
			Seed: rng.Derive(seed, uint64(i)), Steps: st, Margin: margin})
	}
	return out, nil
}

// Make returns the jobs of the design: Fig. 8 (every application under
// every strategy, the same walltimes for each strategy), Fig. 9 (the same
// walltimes again under DYN-PROG-COUNT with each variation) and Table 4
// (MixRuns runs of the mix, new walltimes per run, DYN-PROG-COUNT and HPC
// on the same ones).
func (d Design) Make(ctx context.Context) ([]Job, error) {
	p := planner{}
	var all []Job
	for ai, app := range d.Apps {
		ts, err := draw(app, d.Jobs, d.Seed, 8, uint64(ai))
		if err != nil {
			return nil, err
		}
		for si, name := range Strategies {
			js, err := cellJobs(ctx, p, Fig8, app, name, 0, 0, ts, rng.Derive(d.Seed, 8, uint64(ai), uint64(si)), d.Margin)
			if err != nil {
				return nil, err
			}
			all = append(all, js...)
		}
		for vi, v := range d.Variations {
			js, err := cellJobs(ctx, p, Fig9, app, DynProgCount, v, 0, ts, rng.Derive(d.Seed, 9, uint64(ai), uint64(vi)), d.Margin)
			if err != nil {
				return nil, err
			}
			all = append(all, js...)
		}
	}
	for run := 1; run <= d.MixRuns; run++ {
		for ai, app := range Apps() {
			n := int(math.Round(float64(Mix[app.Name]) * d.MixScale))
			ts, err := draw(app, n, d.Seed, 4, uint64(run), uint64(ai))
			if err != nil || n == 0 {
				if err != nil {
					return nil, err
				}
				continue
			}
			for si, name := range []string{DynProgCount, HPC} {
				js, err := cellJobs(ctx, p, Table4, app, name, 0, run, ts, rng.Derive(d.Seed, 4, uint64(run), uint64(ai), uint64(si)), d.Margin)
				if err != nil {
					return nil, err
				}
				all = append(all, js...)
			}
		}
	}
	return all, nil
}

// Interleave orders jobs round-robin over their cells, so that every cell
// meets the same queue and an interrupted run leaves each cell partly
// done.
func Interleave(jobs []Job) []Job {
	var cells []string
	by := map[string][]Job{}
	for _, j := range jobs {
		c := j.Cell() + "/" + j.App.Name
		if _, ok := by[c]; !ok {
			cells = append(cells, c)
		}
		by[c] = append(by[c], j)
	}
	out := make([]Job, 0, len(jobs))
	for i := 0; len(out) < len(jobs); i++ {
		for _, c := range cells {
			if i < len(by[c]) {
				out = append(out, by[c][i])
			}
		}
	}
	return out
}

// SimHeld is the time a job holds the node in ckpt's model of the stand-in
// (no scheduler: no queue, no start-up, signals on time): reservation k of
// length L reads the last checkpoint (R·f of its size factor f), works,
// and, if it must checkpoint, starts at L − max(C, C·f_k) − M (M the
// plan's margin Job.Margin, spent by the runner's margin and the app's
// late start; a larger checkpoint at the app's own time) and holds the
// node to the end of the checkpoint and the margin (reserved, so used, as
// Eq. (7) prices it); a reservation without checkpoint that does not finish is held in
// full. With v = 0 it is reservation.CostFor with β = 1 and the plan's
// margin. +Inf when the chain does not finish the job.
func SimHeld(j Job) float64 {
	h, _ := simRun(j)
	return h
}

// SimReservations is the number of reservations the job uses in the model
// of SimHeld (len(Steps)+1 when they do not finish it).
func SimReservations(j Job) int {
	_, n := simRun(j)
	return n
}

// Reserved is the time reserved by the first n reservations of the job:
// their lengths in full (the RESERVATION-ONLY cost, α = 1).
func Reserved(j Job, n int) float64 {
	r := 0.0
	for _, st := range j.Steps[:min(n, len(j.Steps))] {
		r += st.Time
	}
	return r
}

func simRun(j Job) (float64, int) {
	held, saved, fprev := 0.0, 0.0, 1.0
	for k, st := range j.Steps {
		p0, r := 0.0, 0.0
		if st.Restart {
			p0, r = saved, j.App.R*fprev
		}
		if st.Checkpoint {
			f := SizeFactor(j.Seed, k+1, j.Variation)
			trigger := st.Time - math.Max(st.CheckpointTime, st.CheckpointTime*f) - j.Margin
			if r+j.Walltime-p0 <= trigger {
				return held + r + j.Walltime - p0, k + 1
			}
			held += trigger + st.CheckpointTime*f + j.Margin
			saved, fprev = p0+math.Max(trigger-r, 0), f
			continue
		}
		if r+j.Walltime-p0 <= st.Time {
			return held + r + j.Walltime - p0, k + 1
		}
		held += st.Time
	}
	return math.Inf(1), len(j.Steps) + 1
}
