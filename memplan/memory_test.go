package memplan

import (
	"context"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/rng"
	"pgregory.net/rapid"
)

// randomLaw draws a discrete law of n points with per-point checkpoint
// costs and memories.
func randomMemLaw(t *rapid.T, n int, constC bool) MemLaw {
	vals := make([]float64, n)
	probs := make([]float64, n)
	ck := make([]float64, n)
	mem := make([]float64, n)
	x, sum := 0.0, 0.0
	c0 := rapid.Float64Range(0, 5).Draw(t, "c0")
	for i := range n {
		x += rapid.Float64Range(0.1, 10).Draw(t, "gap")
		vals[i] = x
		probs[i] = rapid.Float64Range(0, 1).Draw(t, "p")
		if i == n-1 {
			probs[i] += 0.01
		}
		sum += probs[i]
		ck[i] = c0
		if !constC {
			ck[i] = rapid.Float64Range(0, 8).Draw(t, "c")
		}
		mem[i] = rapid.Float64Range(0, 64).Draw(t, "m")
	}
	for i := range probs {
		probs[i] /= sum
	}
	return MemLaw{Values: vals, Probs: probs, Ckpt: ck, Mem: mem, Mem0: 1, Restart: rapid.Float64Range(0, 5).Draw(t, "r")}
}

// TestMemAllCkptConstantEqualsAllCkpt: with a constant checkpoint cost
// (constant memory), MEM-ALL-CKPT is ALL-CKPT of reservation.DynProgCount.
func TestMemAllCkptConstantEqualsAllCkpt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := randomMemLaw(t, rapid.IntRange(1, 40).Draw(t, "n"), true)
		p, err := MemAllCkpt(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		_, want, err := reservation.DynProgCount(m.Values, m.Probs, reservation.ReservationOnly(m.Ckpt[0], m.Restart), reservation.AllCkpt)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.ExpectedTime-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("MEM-ALL-CKPT %v, ALL-CKPT %v", p.ExpectedTime, want)
		}
	})
}

// exhaustiveMem tries every set of intermediate milestones (all checkpointed)
// and returns the least expected reservation time Σ W_k P(Y > t_{k−1}).
func exhaustiveMem(m MemLaw) float64 {
	n := len(m.Values)
	surv := func(x float64) float64 {
		s := 0.0
		for i, v := range m.Values {
			if v > x {
				s += m.Probs[i]
			}
		}
		return s
	}
	best := math.Inf(1)
	for mask := 0; mask < 1<<(n-1); mask++ {
		var idx []int
		for i := range n - 1 {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		idx = append(idx, n-1)
		cost, prev := 0.0, -1
		for k, i := range idx {
			start := 0.0
			w := 0.0
			if k > 0 {
				start = m.Values[prev]
				w += m.Restart
			}
			w += m.Values[i] - start
			if i < n-1 {
				w += m.Ckpt[i]
			}
			cost += w * surv(start)
			if k == 0 {
				cost += 0 // P(Y > 0) = 1 for positive support
			}
			prev = i
		}
		best = math.Min(best, cost)
	}
	return best
}

func TestMemAllCkptMatchesExhaustiveSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := randomMemLaw(t, rapid.IntRange(1, 11).Draw(t, "n"), false)
		p, err := MemAllCkpt(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		want := exhaustiveMem(m)
		if math.Abs(p.ExpectedTime-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("DP %v, exhaustive %v", p.ExpectedTime, want)
		}
	})
}

// TestExpectedMetricsMatchRuns replays the plan on one run per support
// point (a single task, no memory kill possible) and checks that the
// probability-weighted means of EvaluateRun's metrics are the plan's
// expectations.
func TestExpectedMetricsMatchRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := randomMemLaw(t, rapid.IntRange(1, 30).Draw(t, "n"), false)
		for _, v2 := range []bool{false, true} {
			var p *MemPlan
			var err error
			if v2 && len(m.Values) > 1 {
				p, err = MemAllCkptV2(context.Background(), m, rapid.IntRange(0, len(m.Values)-2).Draw(t, "first"), 0, rapid.Float64Range(0, 64).Draw(t, "m1"))
			} else {
				p, err = MemAllCkpt(context.Background(), m)
			}
			if err != nil {
				t.Fatal(err)
			}
			var et, ew float64
			for i, v := range m.Values {
				r, err := EvaluateRun(p, []float64{v}, []float64{0})
				if err != nil {
					t.Fatal(err)
				}
				if r.Kills != 0 {
					t.Fatal("kill without memory")
				}
				et += m.Probs[i] * r.Time
				ew += m.Probs[i] * r.WeightedMemory
			}
			if math.Abs(et-p.ExpectedTime) > 1e-9*math.Max(1, et) || math.Abs(ew-p.ExpectedWeightedMemory) > 1e-9*math.Max(1, ew) {
				t.Logf("law %v %v ckpt %v R %v", m.Values, m.Probs, m.Ckpt, m.Restart)
				for _, r := range p.Reservations {
					t.Logf("%+v", r.Reservation)
				}
				t.Fatalf("runs give (%v, %v), plan says (%v, %v)", et, ew, p.ExpectedTime, p.ExpectedWeightedMemory)
			}
		}
	})
}

func TestEvaluateRunByHand(t *testing.T) {
	// Two reservations: work 100 at 10 GB with a 5 s checkpoint, then
	// restart 3 s and work 100 at 50 GB. Tasks: 60 s at 8 GB, 60 s at 40 GB.
	p := &MemPlan{Restart: 3, ExtendWork: 50, ExtendCkpt: 5, ExtendMem: 50}
	r1 := MemReservation{Mem: 10}
	r1.Work, r1.Milestone, r1.Checkpoint, r1.CheckpointTime, r1.Length = 100, 100, true, 5, 105
	r2 := MemReservation{Mem: 50}
	r2.Restart, r2.Work, r2.Milestone, r2.Length = 3, 100, 200, 103
	p.Reservations = []MemReservation{r1, r2}
	// Task 2 (40 GB) starts at 60 < 100 inside reservation 1 (10 GB): killed;
	// reservation 1 again at 50 GB: the job reaches 100, checkpoints; then
	// reservation 2 finishes it (120 ≤ 200).
	got, err := EvaluateRun(p, []float64{60, 60}, []float64{8, 40})
	if err != nil {
		t.Fatal(err)
	}
	wantT := 105.0 + 105 + 103
	wantM := (105*10 + 105*50 + 103*50) / wantT
	if got.Kills != 1 || got.Reservations != 3 || got.Time != wantT || math.Abs(got.WeightedMemory-wantM) > 1e-12 || got.Utilisation != 120/wantT {
		t.Fatalf("got %+v, want time %v, memory %v, 1 kill", got, wantT, wantM)
	}
	// With StopBeforeTask = 2 the first reservation stops at 60 and takes
	// its checkpoint: no kill; reservation 2 then covers 60 → 160 ≥ 120.
	p.Reservations[0].StopBeforeTask = 2
	got, err = EvaluateRun(p, []float64{60, 60}, []float64{8, 40})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kills != 0 || got.Time != 208 || got.WeightedMemory != (105*10+103*50)/208.0 {
		t.Fatalf("V2 got %+v", got)
	}
}

func TestNeuroByHand(t *testing.T) {
	p, err := Neuro([]float64{100, 300, 200}, false, 10, 5, 51)
	if err != nil {
		t.Fatal(err)
	}
	// T1 = 300. A run of 500 s: 300+10, then (5+150+10) → 450, then (5+150+10) → done.
	got, err := EvaluateRun(p, []float64{500}, []float64{51})
	if err != nil {
		t.Fatal(err)
	}
	if got.Time != 310+165+165 || got.Reservations != 3 || got.WeightedMemory != 51 {
		t.Fatalf("got %+v", got)
	}
	a, _ := Neuro([]float64{100, 300, 200}, true, 10, 5, 51)
	if a.Reservations[0].Work != 200 {
		t.Fatalf("NEURO-AVG T1 %v", a.Reservations[0].Work)
	}
}

// TestExpectedMetricsAgreesWithPlan: ExpectedMetrics reproduces the DP's
// own expectation (exact sum over the support, computed differently).
func TestExpectedMetricsAgreesWithPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := randomMemLaw(t, rapid.IntRange(1, 30).Draw(t, "n"), false)
		p, err := MemAllCkpt(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		et, ew, err := ExpectedMetrics(p, m.Values, m.Probs)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(et-p.ExpectedTime) > 1e-9*math.Max(1, et) || math.Abs(ew-p.ExpectedWeightedMemory) > 1e-9*math.Max(1, ew) {
			t.Fatalf("(%v, %v) vs plan (%v, %v)", et, ew, p.ExpectedTime, p.ExpectedWeightedMemory)
		}
	})
	// NEURO by hand: T1 = 10, C = 1, R = 2; Y = 5 or 14 with probability ½:
	// 11, or 11 + (2 + 5 + 1) = 19 → expected 15.
	n, _ := Neuro([]float64{10}, false, 1, 2, 4)
	et, ew, err := ExpectedMetrics(n, []float64{5, 14}, []float64{0.5, 0.5})
	if err != nil || et != 15 || ew != 4 {
		t.Fatalf("NEURO expected (%v, %v, %v), want (15, 4)", et, ew, err)
	}
}

func BenchmarkMemAllCkpt1000(b *testing.B) {
	r := rng.New(1)
	n := 1000
	m := MemLaw{Values: make([]float64, n), Probs: make([]float64, n), Ckpt: make([]float64, n), Mem: make([]float64, n), Restart: 60}
	for i := range n {
		m.Values[i] = float64(i + 1)
		m.Probs[i] = 1 / float64(n)
		m.Ckpt[i] = 10 + 200*r.Float64()
	}
	for b.Loop() {
		if _, err := MemAllCkpt(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}
