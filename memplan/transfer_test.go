package memplan

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/rng"
)

// transferRuns draws n SLANT-like runs (7 phases, task 5 the hungry one)
// and the same runs on a target where phase i takes factors[i] times
// longer, exactly (no noise).
func transferRuns(n int, factors []float64) (src, dst []profile.Run) {
	g := rng.Stream(7, 45)
	app, _ := profile.Builtin("slant")
	for k := range n {
		d := app.Sample(g)
		a, b := profile.Run{ID: fmt.Sprint(k)}, profile.Run{ID: fmt.Sprint(k)}
		for i, t := range app.Tasks {
			peak := t.Mem * (0.9 + 0.1*g.Float64())
			a.Phases = append(a.Phases, profile.Phase{Duration: d[i], Peak: peak})
			b.Phases = append(b.Phases, profile.Phase{Duration: factors[i] * d[i], Peak: peak})
		}
		src, dst = append(src, a), append(dst, b)
	}
	return src, dst
}

func durations(runs []profile.Run) [][]float64 {
	out := make([][]float64, len(runs))
	for k, r := range runs {
		for _, p := range r.Phases {
			out[k] = append(out[k], p.Duration)
		}
	}
	return out
}

func samePlan(t *testing.T, what string, got, want *MemPlan, tol float64) {
	t.Helper()
	if len(got.Reservations) != len(want.Reservations) {
		t.Fatalf("%s: %d reservations, want %d", what, len(got.Reservations), len(want.Reservations))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }
	for k, r := range got.Reservations {
		w := want.Reservations[k]
		if !near(r.Milestone, w.Milestone) || !near(r.Length, w.Length) || !near(r.Mem, w.Mem) || r.StopBeforeTask != w.StopBeforeTask || r.Checkpoint != w.Checkpoint {
			t.Errorf("%s reservation %d: milestone %v length %v mem %v stop %d, want %v %v %v %d",
				what, k+1, r.Milestone, r.Length, r.Mem, r.StopBeforeTask, w.Milestone, w.Length, w.Mem, w.StopBeforeTask)
		}
	}
}

// TestPhaseFactorsExact: on the same runs slowed by exact factors, the
// estimates are those factors; the global factor is the ratio of the mean
// totals computed by hand.
func TestPhaseFactorsExact(t *testing.T) {
	f := []float64{1.0, 1.6, 1.2, 1.4, 2.4, 1.3, 1.1}
	src, dst := transferRuns(6, f)
	got, err := PhaseFactors(durations(src), durations(dst))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if math.Abs(got[i]-f[i]) > 1e-12 {
			t.Errorf("phase %d: factor %v, want %v", i+1, got[i], f[i])
		}
	}
	var s, d float64
	for k := range src {
		s += src[k].Walltime()
		d += dst[k].Walltime()
	}
	g, err := GlobalFactor(durations(src), durations(dst))
	if err != nil || math.Abs(g-d/s) > 1e-12 {
		t.Errorf("global factor %v (%v), want %v", g, err, d/s)
	}
}

// TestTransferPerPhaseExact: with exact factors and no noise, the
// per-phase transfer of the source model is the model fitted on the target
// (Normal fits scale with the data), so it plans what a plan trained on
// the target itself plans, for every strategy.
func TestTransferPerPhaseExact(t *testing.T) {
	f := []float64{1.0, 1.6, 1.2, 1.4, 2.4, 1.3, 1.1}
	src, dst := transferRuns(8, f)
	sa, err := profile.FitApp("src", src, "normal")
	if err != nil {
		t.Fatal(err)
	}
	ta, err := profile.FitApp("dst", dst, "normal")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultAppPlanOptions(ta)
	o.N, o.Steps = 200, 512
	fs, err := PhaseFactors(durations(src), durations(dst))
	if err != nil {
		t.Fatal(err)
	}
	got, err := TransferApp(context.Background(), sa, fs, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := PlanApp(context.Background(), ta, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{StrategyAllCkpt, StrategyMemAllCkpt, StrategyMemAllCkptV2} {
		samePlan(t, "per-phase "+s, got.Plans[s], want.Plans[s], 1e-6)
	}
}

// TestTransferGlobalExact: when every phase shares one factor c and
// checkpoints and restarts are free, the problem on the target is the
// source's with time multiplied by c, so ScalePlan(source plan, c, c) is
// the target-trained plan; with costs, scaling them too is what the paper
// does and is then not the target's optimum, which pays the same costs.
func TestTransferGlobalExact(t *testing.T) {
	const c = 1.7
	f := []float64{c, c, c, c, c, c, c}
	src, dst := transferRuns(8, f)
	sa, _ := profile.FitApp("src", src, "normal")
	ta, _ := profile.FitApp("dst", dst, "normal")
	o := DefaultAppPlanOptions(ta)
	o.N, o.Steps = 200, 512
	o.Ckpt = profile.CheckpointCost{Latency: 0, Bandwidth: 1e300}
	o.Restart = 0
	sp, err := PlanApp(context.Background(), sa, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := PlanApp(context.Background(), ta, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{StrategyAllCkpt, StrategyMemAllCkpt, StrategyMemAllCkptV2} {
		got, err := ScalePlan(sp.Plans[s], c, c, true)
		if err != nil {
			t.Fatal(err)
		}
		samePlan(t, "global "+s, got, tp.Plans[s], 1e-6)
	}
}

// TestScalePlanHand: a hand-made plan of milestones 10, 30, 60 with R = 2,
// C = 3, scaled by 1.7 with a first factor 1.1: milestones 11, 51, 102,
// work 11, 40, 51; lengths with costs scaled 11 + 5.1 = 16.1, 3.4 + 40 +
// 5.1 = 48.5, 3.4 + 51 = 54.4.
func TestScalePlanHand(t *testing.T) {
	p := &MemPlan{Restart: 2, ExtendWork: 30, ExtendCkpt: 3, ExtendMem: 9}
	ms := []float64{10, 30, 60}
	prev := 0.0
	for k, m := range ms {
		r := MemReservation{Mem: float64(k + 1)}
		r.Milestone, r.Work = m, m-prev
		if k > 0 {
			r.Restart = 2
		}
		if k < 2 {
			r.Checkpoint, r.CheckpointTime = true, 3
		}
		r.Length = r.Restart + r.Work + r.CheckpointTime
		p.Reservations = append(p.Reservations, r)
		prev = m
	}
	q, err := ScalePlan(p, 1.7, 1.1, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ m, w, l float64 }{{11, 11, 11 + 1.1*3}, {51, 40, 3.4 + 40 + 5.1}, {102, 51, 3.4 + 51}}
	for k, w := range want {
		r := q.Reservations[k]
		if math.Abs(r.Milestone-w.m) > 1e-9 || math.Abs(r.Work-w.w) > 1e-9 || math.Abs(r.Length-w.l) > 1e-9 || r.Mem != float64(k+1) {
			t.Errorf("reservation %d: milestone %v work %v length %v mem %v, want %v %v %v %d", k+1, r.Milestone, r.Work, r.Length, r.Mem, w.m, w.w, w.l, k+1)
		}
	}
	if math.Abs(q.ExtendWork-51) > 1e-9 || math.Abs(q.Restart-3.4) > 1e-9 || p.Reservations[0].Milestone != 10 {
		t.Errorf("extensions %v, restart %v, or the source plan was modified", q.ExtendWork, q.Restart)
	}
	r, _ := ScalePlan(p, 1.7, 1.7, false)
	if l := r.Reservations[1].Length; math.Abs(l-(2+34+3)) > 1e-9 {
		t.Errorf("costs kept: length %v, want 39", l)
	}
}

// TestTransferRefusals: wrong shapes and factors are refused with errors.
func TestTransferRefusals(t *testing.T) {
	app, _ := profile.Builtin("slant")
	for _, f := range [][]float64{{1, 2}, {1, 1, 1, 1, math.NaN(), 1, 1}, {1, 1, 1, 1, 0, 1, 1}, {1, 1, 1, 1, math.Inf(1), 1, 1}} {
		if _, err := app.Scaled(f); err == nil {
			t.Errorf("Scaled(%v) accepted", f)
		}
	}
	if _, err := PhaseFactors([][]float64{{1, 2}}, [][]float64{{1}}); err == nil {
		t.Error("phase count mismatch accepted")
	}
	if _, err := PhaseFactors(nil, [][]float64{{1}}); err == nil {
		t.Error("no source run accepted")
	}
	if _, err := PhaseFactors([][]float64{{0, 2}}, [][]float64{{1, 2}}); err == nil {
		t.Error("zero source mean accepted")
	}
	if _, err := GlobalFactor([][]float64{{1, math.NaN()}}, [][]float64{{1, 2}}); err == nil {
		t.Error("NaN duration accepted")
	}
	if _, err := ScalePlan(&MemPlan{}, 1.7, 1.1, true); err == nil {
		t.Error("empty plan accepted")
	}
	if _, err := ScalePlan(&MemPlan{Reservations: make([]MemReservation, 1)}, -1, 1.1, true); err == nil {
		t.Error("negative factor accepted")
	}
}

// TestTransferSource: target runs at exactly f_i times the built-in SLANT
// task means give back f, the tasks' means scaled by f, and the runs'
// totals as history; the source is not modified.
func TestTransferSource(t *testing.T) {
	src, err := profile.OpenProfile("slant")
	if err != nil {
		t.Fatal(err)
	}
	f := []float64{1.0, 1.6, 1.2, 1.4, 2.4, 1.3, 1.1}
	run := make([]float64, len(f))
	total := 0.0
	for i, task := range src.App.Tasks {
		run[i] = f[i] * task.Walltime.Mean()
		total += run[i]
	}
	out, got, err := TransferSource(src, [][]float64{run, run}, "knl")
	if err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if math.Abs(got[i]-f[i]) > 1e-12 || math.Abs(out.App.Tasks[i].Walltime.Mean()-run[i]) > 1e-9 {
			t.Errorf("phase %d: factor %v mean %v, want %v and %v", i+1, got[i], out.App.Tasks[i].Walltime.Mean(), f[i], run[i])
		}
	}
	if len(out.History) != 2 || math.Abs(out.History[0]-total) > 1e-9 || src.History != nil || src.App.Tasks[4].Walltime.Mean() != 3050 {
		t.Errorf("history %v (want 2 × %v), or source modified", out.History, total)
	}
	if _, _, err := TransferSource(src, [][]float64{{1, 2}}, "knl"); err == nil {
		t.Error("2 phases for 7 tasks accepted")
	}
}

// GlobalFactor is the slowdown of the mean total walltime: Σ target means
// over Σ source means (the paper's 1.7 is this quantity, measured). Same
// inputs and refusals as PhaseFactors.
func GlobalFactor(source, target [][]float64) (float64, error) {
	ms, err := phaseMeans("source", source, -1)
	if err != nil {
		return 0, err
	}
	mt, err := phaseMeans("target", target, len(ms))
	if err != nil {
		return 0, err
	}
	var s, t float64
	for i := range ms {
		s += ms[i]
		t += mt[i]
	}
	if !(s > 0) || !(t > 0) {
		return 0, fmt.Errorf("mean walltimes %v s (source) and %v s (target), want both > 0", s, t)
	}
	return t / s, nil
}
