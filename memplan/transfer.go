package memplan

// This file transfers a plan trained on one machine to another (Section 4.5
// of Gainaru, Goglin, Honoré and Pallez, TPDS 2021): the target only tells
// the walltime of each phase of a few runs, no memory trace.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/profile"
)

// Paper's global transfer of Section 4.5 (Haswell to KNL): every
// reservation scaled by the average slowdown of the total walltime, the
// first reservation of MEM-ALL-CKPT-V2 by a smaller factor so that it still
// ends in the pre-processing.
const (
	PaperGlobalFactor = 1.7
	PaperFirstFactor  = 1.1
)

// PhaseFactors estimates one slowdown per phase from phase walltimes:
// factor i is the mean duration of phase i over the target runs divided by
// its mean over the source runs (a ratio of means, consistent when the
// target's phase i is the source's slowed by a constant). Every run is a
// list of phase durations (seconds); both sets need at least one run, and
// every run the same number of phases. O(n·(s+t)).
func PhaseFactors(source, target [][]float64) ([]float64, error) {
	ms, err := phaseMeans("source", source, -1)
	if err != nil {
		return nil, err
	}
	mt, err := phaseMeans("target", target, len(ms))
	if err != nil {
		return nil, err
	}
	f := make([]float64, len(ms))
	for i := range f {
		if !(ms[i] > 0) {
			return nil, fmt.Errorf("phase %d: mean source duration %v s, want > 0", i+1, ms[i])
		}
		f[i] = mt[i] / ms[i]
		if !(f[i] > 0) || math.IsInf(f[i], 1) {
			return nil, fmt.Errorf("phase %d: mean target duration %v s over mean source duration %v s gives a slowdown of %v, want a finite value > 0", i+1, mt[i], ms[i], f[i])
		}
	}
	return f, nil
}

// phaseMeans is the mean duration of every phase; n ≥ 0 fixes the phase
// count.
func phaseMeans(what string, runs [][]float64, n int) ([]float64, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no %s run", what)
	}
	if n < 0 {
		n = len(runs[0])
	}
	if n == 0 {
		return nil, fmt.Errorf("%s run 1 has no phase", what)
	}
	m := make([]float64, n)
	for k, r := range runs {
		if len(r) != n {
			return nil, fmt.Errorf("%s run %d has %d phases, want %d", what, k+1, len(r), n)
		}
		for i, d := range r {
			if !(d >= 0) || math.IsInf(d, 0) {
				return nil, fmt.Errorf("%s run %d phase %d: duration %v s, want a finite value >= 0", what, k+1, i+1, d)
			}
			m[i] += d / float64(len(runs))
		}
	}
	return m, nil
}

// ScalePlan is the paper's global transfer: the milestones of plan are
// multiplied by factor (the first by first, e.g. 1.1 for MEM-ALL-CKPT-V2,
// or factor again), the work of every reservation follows from them, and
// when scaleCosts is true the checkpoint and restart times are scaled too
// (the paper scales whole reservations; checkpoint and restart costs depend
// on memory, not on the machine's speed, which is the "unnecessary
// scaling" it notes). Memory requests and StopBeforeTask are kept; the
// extension reservations are scaled likewise. The expected metrics are
// those of the source law and are set to 0: price the result on the target
// with ExpectedMetrics. It refuses factors that are not finite and > 0 and
// an empty plan. O(r) for r reservations.
func ScalePlan(plan *MemPlan, factor, first float64, scaleCosts bool) (*MemPlan, error) {
	for _, f := range []float64{factor, first} {
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("scaling factor %v, want a finite value > 0", f)
		}
	}
	if len(plan.Reservations) == 0 {
		return nil, fmt.Errorf("empty plan")
	}
	out := *plan
	out.Reservations = slices.Clone(plan.Reservations)
	out.ExpectedTime, out.ExpectedWeightedMemory = 0, 0
	saved := 0.0
	for k := range out.Reservations {
		r := &out.Reservations[k]
		g := factor
		if k == 0 {
			g = first
		}
		r.Milestone *= g
		r.Work = r.Milestone - saved
		if r.Checkpoint {
			saved = r.Milestone
		}
		r.Saved = saved
		if scaleCosts {
			r.Restart *= g
			r.CheckpointTime *= g
		}
		r.Length = r.Restart + r.Work + r.CheckpointTime
	}
	out.ExtendWork *= factor
	if scaleCosts {
		out.ExtendCkpt *= factor
		out.Restart *= factor
	}
	return &out, nil
}

// TransferApp is the per-phase transfer Section 4.5 expects to do better:
// the source model with task i slowed by factors[i] (profile.App.Scaled,
// memory unchanged), planned again with PlanApp under o. history (past
// total walltimes on the target, for NEURO) may be nil.
func TransferApp(ctx context.Context, app *profile.App, factors []float64, history []float64, o AppPlanOptions) (*AppPlans, error) {
	scaled, err := app.Scaled(factors)
	if err != nil {
		return nil, err
	}
	return PlanApp(ctx, scaled, history, o)
}

// TransferSource moves an application model to another machine from the
// phase walltimes of a few runs there (target, one list of durations per
// run): the per-phase factors are the target's phase means over the
// model's task means (PhaseFactors), the tasks are scaled by them
// (profile.App.Scaled), and the past walltimes become the target runs'
// totals (for NEURO). name says where the runs come from, for Desc. It
// returns the new source and the factors; src is not modified.
func TransferSource(src *profile.Source, target [][]float64, name string) (*profile.Source, []float64, error) {
	means := make([]float64, len(src.App.Tasks))
	for i, t := range src.App.Tasks {
		means[i] = t.Walltime.Mean()
	}
	f, err := PhaseFactors([][]float64{means}, target)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	app, err := src.App.Scaled(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	out := *src
	out.App = app
	out.History = make([]float64, len(target))
	for k, r := range target {
		for _, d := range r {
			out.History[k] += d
		}
	}
	parts := make([]string, len(f))
	for i, x := range f {
		parts[i] = fmt.Sprintf("%.3g", x)
	}
	out.Desc = fmt.Sprintf("%s, per-phase slowdowns %s from %d runs in %s", src.Desc, strings.Join(parts, " "), len(target), name)
	return &out, f, nil
}
