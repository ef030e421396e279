package iosim

import (
	"math"
	"testing"
)

// Section III-B's two jobs under the authors' accounting (src/Trace.C books
// an I/O from its request to its end): shared, both transfers take 2V/β,
// so IO = 2·q·2V/β; ordered, V/β and 2V/β (the wait is I/O), so 3qV/β;
// unlimited, 2qV/β. Nothing is idle.
func TestTwoJobsAuthorsAccounting(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 20, MemoryPerNode: 1e9, Bandwidth: 1e9, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 10, Walltime: 100 * 3600, Input: 50, Checkpoint: 1, Share: 1}},
	}
	V, T, q, beta := 50*10*1e9, 10*3600.0, 10.0, 1e9
	opt := Options{Span: T, NoFailures: true, Accounting: AuthorsAccounting,
		Jobs: []Job{{Class: 0, Work: 100 * 3600}, {Class: 0, Work: 100 * 3600}}}
	for _, tc := range []struct {
		st Strategy
		io float64
	}{
		{Strategy{Name: "shared", Sharing: Proportional, Period: Never{}}, 4 * q * V / beta},
		{Strategy{Name: "ordered", Sharing: Token, Arbiter: FCFS{}, Period: Never{}}, 3 * q * V / beta},
		{Strategy{Name: "free", Sharing: Unlimited, Period: Never{}}, 2 * q * V / beta},
	} {
		r, err := Simulate(&c, tc.st, opt)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.IO-tc.io) > 1e-6 || math.Abs(r.Split.Idle) > 1e-6 || math.Abs(r.Split.Work+r.Split.IO-2*q*T) > 1e-6 {
			t.Errorf("%s: io %v idle %v work %v, want io %v, idle 0, work + io = %v", tc.st.Name, r.Split.IO, r.Split.Idle, r.Split.Work, tc.io, 2*q*T)
		}
	}
}

// One job (q = 10, P = 3600, C = 360), node 3 fails at 5 000 s and at
// 6 000 s. Timeline: compute [0, 3240], commit [3240, 3600], compute
// [3600, 5000] (interrupted), recovery [5000, 5360], compute [5360, 6000]
// (interrupted), recovery [6000, 6360], compute [6360, 8600].
//   - ours: work 10·(3240 + 2240), checkpoint 10·(360·3), lost
//     10·(1400 + 640), idle 0;
//   - authors: the same work; checkpoint 10·360 (the commit); IO 10·360
//     (the second recovery read); lost 10·360 (the first recovery read,
//     relabelled WASTING by the second failure); the two interrupted
//     segments are booked nowhere (idle 10·(1400 + 640)).
func TestFailuresAuthorsAccounting(t *testing.T) {
	c := onePlatformJob()
	st, _ := Lookup("ordered-fixed", 3600)
	fs := []NodeFailure{{Time: 5000, Node: 3}, {Time: 6000, Node: 3}}
	for _, tc := range []struct {
		acc  Accounting
		want Split
	}{
		{OurAccounting, Split{Work: 54800, Checkpoint: 10800, Lost: 20400}},
		{AuthorsAccounting, Split{Work: 54800, Checkpoint: 3600, IO: 3600, Lost: 3600, Idle: 20400}},
	} {
		r, err := Simulate(&c, st, Options{Span: 8600, Jobs: []Job{{Class: 0, Work: 1000 * 3600}}, Failures: fs, Accounting: tc.acc})
		if err != nil {
			t.Fatal(err)
		}
		g, w := r.Split, tc.want
		if d := math.Abs(g.Work-w.Work) + math.Abs(g.Checkpoint-w.Checkpoint) + math.Abs(g.IO-w.IO) + math.Abs(g.Lost-w.Lost) + math.Abs(g.Idle-w.Idle); d > 1e-6 {
			t.Errorf("%v: split %+v, want %+v", tc.acc, g, w)
		}
	}
}

// Under the authors' accounting every node-second is still booked once,
// for every strategy, with failures.
func TestConservationAuthors(t *testing.T) {
	c := small()
	for _, st := range allStrategies(t) {
		r, err := Simulate(&c, st, Options{Span: 12 * Day, Skip: Day, Seed: 3, Accounting: AuthorsAccounting})
		if err != nil {
			t.Fatal(err)
		}
		want := float64(c.Platform.Nodes) * r.Window
		if d := math.Abs(r.Split.Total() - want); d > 1e-9*want {
			t.Errorf("%s: total %v, want %v", st.Name, r.Split.Total(), want)
		}
		for name, v := range map[string]float64{"work": r.Split.Work, "io": r.Split.IO, "ckpt": r.Split.Checkpoint, "lost": r.Split.Lost, "idle": r.Split.Idle} {
			if v < -1e-6*want {
				t.Errorf("%s: negative %s %v", st.Name, name, v)
			}
		}
	}
	if _, err := ParseAccounting("theirs"); err == nil {
		t.Error("unknown accounting accepted")
	}
	if a, err := ParseAccounting("authors"); err != nil || a != AuthorsAccounting || a.String() != "authors" {
		t.Errorf("ParseAccounting(authors) = %v, %v", a, err)
	}
}

// Renormalize divides by the largest baseline of the set (csv2dat.py's
// max over the whole file), not by each trial's own.
func TestRenormalize(t *testing.T) {
	mk := func(base, run float64) TrialResult {
		return TrialResult{Outcome: Outcome{Baseline: Run{Split: Split{Work: base}}, Runs: []Run{{Split: Split{Work: run}}}, Waste: []float64{1 - run/base}}}
	}
	rs := []TrialResult{mk(100, 80), mk(90, 81)}
	Renormalize(rs)
	if math.Abs(rs[0].Outcome.Waste[0]-0.2) > 1e-15 || math.Abs(rs[1].Outcome.Waste[0]-(1-81.0/100)) > 1e-15 {
		t.Fatalf("wastes %v %v, want 0.2 and 0.19", rs[0].Outcome.Waste, rs[1].Outcome.Waste)
	}
}

// The Fixed-period variants of the 1-hour runs use the given period.
func TestFixedVariants(t *testing.T) {
	for name, sharing := range map[string]Sharing{"least-waste-fixed": Token, "interference-free-fixed": Unlimited} {
		st, err := Lookup(name, 1800)
		if err != nil || st.Period != Fixed(1800) || st.Sharing != sharing {
			t.Errorf("%s: %+v %v", name, st, err)
		}
	}
}
