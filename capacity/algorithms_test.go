package capacity

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGreedyGoodputHandComputed(t *testing.T) {
	st := &State{Platform: Platform{PMin: 1, PMax: 10, Delta: 2}, P: 10, T: 10,
		Jobs:   []Job{{P: 4, C: 1, R: 1}, {P: 5, C: 1, R: 1}, {P: 3, C: 1, R: 1}},
		Status: []Status{Idle, Idle, Idle}, Work: make([]float64, 3), Avail: make([]float64, 3)}
	pl, err := (&GreedyGoodput{}).Plan(st)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Validate(st, pl)
	if err != nil {
		t.Fatal(err)
	}
	// Widest first: 5 then 4 (9 ≤ 10), 3 does not fit. Keep 5 ≤ 8; 4 more
	// would make 9 > 8, so it checkpoints: 5·9 + 4·8 = 77.
	if out.Area != 77 || out.End[1] != Running || out.End[0] != Checkpointed || out.End[2] != Idle {
		t.Fatalf("area %v end %v", out.Area, out.End)
	}
}

func TestGreedyYieldHandComputed(t *testing.T) {
	st := &State{Platform: Platform{PMin: 1, PMax: 10, Delta: 2}, P: 10, T: 10,
		Jobs:   []Job{{P: 5, C: 1, R: 1}, {P: 4, C: 1, R: 1}, {P: 3, C: 1, R: 1}},
		Status: []Status{Checkpointed, Idle, Idle}, Work: []float64{50, 10, 10}, Avail: []float64{100, 100, 100}}
	pl, err := (&GreedyYield{}).Plan(st)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Validate(st, pl)
	if err != nil {
		t.Fatal(err)
	}
	// Yields 0.5, 0.1, 0.1: jobs 1 (p=4) then 2 (p=3) start, job 0 (5) does
	// not fit in the 3 left; all checkpoint at the end: 4·8 + 3·8 = 56.
	if out.Area != 56 || out.End[0] != Idle || out.End[1] != Checkpointed || out.End[2] != Checkpointed {
		t.Fatalf("area %v end %v", out.Area, out.End)
	}
}

func TestBoundsHandComputed(t *testing.T) {
	in := &Instance{Platform: Platform{PMin: 2, PMax: 8, Delta: 2},
		Sections: []Section{{4, 10}, {6, 10}},
		Jobs:     []Job{{P: 3, C: 1, R: 3}, {P: 3, C: 2, R: 1}}}
	// MW_1 = 40 − 4·1 − 2·1 = 34; MW_2 = 60 − 2·1 − 2·1 = 56.
	g, y := Bounds(in)
	if !feq(g, 0.9) || !feq(y, 90.0/6/20) {
		t.Fatalf("bounds %v %v", g, y)
	}
}

func smallInstance(seed uint64, sections int) *Instance {
	pr := Params{Sections: sections, AvgT: 100, PMax: 30, PMinFrac: 0.2, Delta: 0.1, Load: 2, CLo: 5, CHi: 20}
	r := rand.New(rand.NewPCG(seed, 7))
	in, err := Generate(r, pr, []int{1, 1, 2, 2, 3, 4, 5, 6})
	if err != nil {
		panic(err)
	}
	return in
}

func TestEveryAlgorithmSimulatesWithinBounds(t *testing.T) {
	in := smallInstance(1, 40)
	specs := []string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-goodput-best-cnf",
		"dp-goodput-slow", "dp-yield", "dp-bic:15", "dp-bic-best-cnf:5", "target-yield:0.5"}
	for _, n := range Names() {
		if f, _ := algorithms.Lookup(n); !f.HasParam && !slices.Contains(specs, n) {
			specs = append(specs, n)
		}
	}
	for _, s := range specs {
		a, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Simulate(in, a)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if res.Goodput > res.GoodputBound+1e-12 || res.MinYield > res.YieldBound+1e-12 || res.Goodput <= 0 {
			t.Errorf("%s: goodput %v (bound %v), min yield %v (bound %v)", s, res.Goodput, res.GoodputBound, res.MinYield, res.YieldBound)
		}
		for _, y := range res.Yields {
			if y < 0 || y > 1+1e-12 {
				t.Errorf("%s: yield %v", s, y)
			}
		}
	}
}

// DPBiC(0) is DPGOODPUT (Section 6.3.2): the same plan in every section.
func TestDPBiCZeroIsDPGoodput(t *testing.T) {
	in := smallInstance(2, 60)
	a, b := &DPBiC{X: 0}, &DPGoodput{}
	st := NewState(in)
	for i, s := range in.Sections {
		st.P, st.T = s.P, s.Length
		pa, err := a.Plan(st)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.Plan(st)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pa.Case, pb.Case) || pa.Gain != pb.Gain {
			t.Fatalf("section %d: DPBiC(0) %v, DPGoodput %v", i, pa.Case, pb.Case)
		}
		if _, err := Advance(st, pa, 5, 5); err != nil {
			t.Fatal(err)
		}
	}
	// And a positive X changes something on this instance.
	ra, _ := Simulate(in, &DPBiC{X: 15})
	rb, _ := Simulate(in, &DPGoodput{})
	if ra.MinYield <= rb.MinYield {
		t.Errorf("DPBiC(15) min yield %v not above DPGoodput's %v", ra.MinYield, rb.MinYield)
	}
}

// The best-C_nf variants try a superset of C_nf values: never worse on a
// section from the same state.
func TestBestCnfNeverWorseOnASection(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 300 {
		st := randomState(r, false)
		for _, pair := range [][2]Algorithm{{&DPGoodputSlow{}, &DPGoodputSlow{BestCnf: true}}, {&DPGoodput{}, &DPGoodput{BestCnf: true}}} {
			p0, err0 := pair[0].Plan(st)
			p1, err1 := pair[1].Plan(st)
			if err0 != nil {
				continue
			}
			if err1 != nil {
				t.Fatalf("%s fails where %s succeeds", pair[1].Name(), pair[0].Name())
			}
			o0, _ := Validate(st, p0)
			o1, _ := Validate(st, p1)
			if o1.Area < o0.Area-1e-9 {
				t.Fatalf("%s %v < %s %v", pair[1].Name(), o1.Area, pair[0].Name(), o0.Area)
			}
		}
	}
}

// DPYield maximises the minimum work among jobs over the ten-case shapes:
// no greedy plan of the same section does better on the minimum work.
func TestDPYieldRaisesMinimumWork(t *testing.T) {
	in := smallInstance(3, 80)
	ry, err := Simulate(in, &DPYield{})
	if err != nil {
		t.Fatal(err)
	}
	rg, _ := Simulate(in, &DPGoodput{})
	if !(ry.MinYield > rg.MinYield) || math.IsNaN(ry.MinYield) {
		t.Fatalf("DPYield min yield %v, DPGoodput %v", ry.MinYield, rg.MinYield)
	}
}

func TestNewParsesSpecs(t *testing.T) {
	for _, bad := range []string{"nope", "dp-bic", "dp-goodput:3", "dp-bic:x", "dp-bic:-1"} {
		if _, err := New(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	a, err := New("dp-bic:15")
	if err != nil || a.Name() != "dp-bic:15" {
		t.Fatalf("%v %v", a, err)
	}
}

// TARGETGOODPUT(G) keeps the relative goodput at the target (it is a
// budget on the unused area relative to the Section 3.4 bound), and with
// G = 0 the budget never binds: the schedule of DPYIELD.
func TestTargetGoodputMeetsTarget(t *testing.T) {
	in := smallInstance(4, 60)
	ry, _ := Simulate(in, &DPYield{})
	r0, err := Simulate(in, &TargetGoodput{G: 0})
	if err != nil {
		t.Fatal(err)
	}
	if r0.Goodput != ry.Goodput || r0.MinYield != ry.MinYield {
		t.Errorf("TargetGoodput(0) %v/%v, DPYield %v/%v", r0.Goodput, r0.MinYield, ry.Goodput, ry.MinYield)
	}
	for _, g := range []float64{0.8, 0.9} {
		r, err := Simulate(in, &TargetGoodput{G: g})
		if err != nil {
			t.Fatal(err)
		}
		if r.RelGoodput < g-0.01 {
			t.Errorf("TargetGoodput(%v): relative goodput %v", g, r.RelGoodput)
		}
	}
}

// TARGETYIELD(Y) runs DPGOODPUT once every job has yield ≥ Y, DPYIELD
// before (Section 4.3.1).
func TestTargetYieldSwitches(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 100 {
		st := randomState(r, false)
		y := minYieldAt(st)
		for _, target := range []float64{y, y + 0.01} {
			got, err1 := (&TargetYield{Y: target}).Plan(st)
			var want *Plan
			var err2 error
			if y >= target {
				want, err2 = (&DPGoodput{}).Plan(st)
			} else {
				want, err2 = (&DPYield{}).Plan(st)
			}
			if (err1 == nil) != (err2 == nil) || (err1 == nil && !slices.Equal(got.Case, want.Case)) {
				t.Fatalf("target %v, min yield %v: %v vs %v", target, y, got, want)
			}
		}
	}
}

// Two identical idle jobs compete for the only slot: DPBIC(X > 0) and
// DPYIELD give it to the one behind in yield (weight (2 − 0.1)^X against
// (2 − 0.5)^X), whichever its index; DPGOODPUT sees a tie.
func TestDPBiCPrefersLowYield(t *testing.T) {
	for _, w := range [][]float64{{5, 1}, {1, 5}} {
		st := &State{Platform: Platform{PMin: 0, PMax: 2, Delta: 2}, P: 2, T: 50,
			Jobs:   []Job{{P: 2, C: 1, R: 1}, {P: 2, C: 1, R: 1}},
			Status: []Status{Idle, Idle}, Work: w, Avail: []float64{10, 10}}
		low := 1
		if w[0] < w[1] {
			low = 0
		}
		for _, a := range []Algorithm{&DPBiC{X: 1}, &DPBiC{X: 15, BestCnf: true}, &DPYield{}, &GreedyYield{}} {
			p, err := a.Plan(st)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Jobs[low]) == 0 || len(p.Jobs[1-low]) != 0 {
				t.Fatalf("%s with work %v: cases %v", a.Name(), w, p.Case)
			}
		}
	}
}
