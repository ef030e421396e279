package reservation

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// randomLaw draws a discrete law with n support values in (0, 20].
func randomLaw(rng *rand.Rand, n int) (values, probs []float64) {
	x := 0.0
	total := 0.0
	for range n {
		x += 0.1 + rng.Float64()*3
		values = append(values, x)
		p := rng.Float64()
		if rng.IntN(5) == 0 {
			p = 0 // zero-mass points exercise ties
		}
		probs = append(probs, p)
		total += p
	}
	if probs[n-1] == 0 {
		probs[n-1] = 0.3
		total += 0.3
	}
	for i := range probs {
		probs[i] /= total
	}
	return values, probs
}

func randomCosts(rng *rand.Rand) Costs {
	c := Costs{Alpha: 0.2 + rng.Float64()*2, C: rng.Float64() * 4, R: rng.Float64() * 4}
	if rng.IntN(2) == 0 {
		c.Beta = rng.Float64() * 2
	}
	if rng.IntN(2) == 0 {
		c.Gamma = rng.Float64() * 5
	}
	return c
}

// directCost prices s on a discrete law with Eq. (5) summed over the
// support: no use of Theorem 1 or of the dynamic program.
func directCost(s Strategy, c Costs, values, probs []float64) float64 {
	sum := 0.0
	for i, x := range values {
		if probs[i] > 0 {
			sum += probs[i] * CostFor(s, c, x)
		}
	}
	return sum
}

// exhaustive returns the minimal Eq. (5) cost over every strategy whose
// milestones are a subset of the support ending at the largest value, with
// every checkpoint vector allowed by the class.
func exhaustive(values, probs []float64, c Costs, class Class) float64 {
	n := len(values)
	best := math.Inf(1)
	for subset := 0; subset < 1<<(n-1); subset++ {
		var ms []float64
		for i := 0; i < n-1; i++ {
			if subset&(1<<i) != 0 {
				ms = append(ms, values[i])
			}
		}
		ms = append(ms, values[n-1])
		k := len(ms)
		for mask := 0; mask < 1<<k; mask++ {
			s := make(Strategy, k)
			ok := true
			for i := range s {
				s[i] = Step{Milestone: ms[i], Checkpoint: mask&(1<<i) != 0}
				switch class {
				case NoCkpt:
					ok = ok && !s[i].Checkpoint
				case AllCkpt:
					ok = ok && s[i].Checkpoint == (i < k-1)
				}
			}
			if ok {
				best = math.Min(best, directCost(s, c, values, probs))
			}
		}
	}
	return best
}

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestDynProgCountMatchesExhaustiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		n := 1 + rng.IntN(7)
		values, probs := randomLaw(rng, n)
		c := randomCosts(rng)
		for _, class := range []Class{Mixed, AllCkpt, NoCkpt} {
			want := exhaustive(values, probs, c, class)
			for name, algo := range map[string]func([]float64, []float64, Costs, Class) (Strategy, float64, error){
				"fast": DynProgCount, "theorem2": DynProgCountTheorem2,
			} {
				s, got, err := algo(values, probs, c, class)
				if err != nil {
					t.Fatalf("trial %d %v %s: %v", trial, class, name, err)
				}
				if !closeRel(got, want, 1e-9) {
					t.Fatalf("trial %d %v %s: DP cost %v, exhaustive %v (values %v probs %v costs %+v)", trial, class, name, got, want, values, probs, c)
				}
				// The returned plan must actually cost what the DP claims.
				if direct := directCost(s, c, values, probs); !closeRel(direct, got, 1e-9) {
					t.Fatalf("trial %d %v %s: plan %v costs %v by Eq. (5), DP said %v", trial, class, name, s, direct, got)
				}
				checkClass(t, s, class)
			}
		}
	}
}

func checkClass(t *testing.T, s Strategy, class Class) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatalf("invalid plan %v: %v", s, err)
	}
	for i, st := range s {
		last := i == len(s)-1
		if class == NoCkpt && st.Checkpoint || class == AllCkpt && st.Checkpoint == last {
			t.Fatalf("plan %v is not in class %v", s, class)
		}
	}
}

func TestFastDPMatchesTheorem2OnLargerLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 30 {
		n := 20 + rng.IntN(300)
		values, probs := randomLaw(rng, n)
		c := randomCosts(rng)
		for _, class := range []Class{Mixed, AllCkpt, NoCkpt} {
			_, want, err := DynProgCountTheorem2(values, probs, c, class)
			if err != nil {
				t.Fatal(err)
			}
			s, got, err := DynProgCount(values, probs, c, class)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(got, want, 1e-9) {
				t.Fatalf("trial %d n=%d %v: fast %v, Theorem 2 %v", trial, n, class, got, want)
			}
			if direct := directCost(s, c, values, probs); !closeRel(direct, got, 1e-9) {
				t.Fatalf("trial %d %v: plan costs %v by Eq. (5), DP said %v", trial, class, direct, got)
			}
			checkClass(t, s, class)
		}
	}
}

func TestMixedIsNeverWorseThanItsVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		values, probs := randomLaw(rng, 1+rng.IntN(60))
		c := randomCosts(rng)
		_, mixed, _ := DynProgCount(values, probs, c, Mixed)
		_, all, _ := DynProgCount(values, probs, c, AllCkpt)
		_, none, _ := DynProgCount(values, probs, c, NoCkpt)
		if mixed > all*(1+1e-12) || mixed > none*(1+1e-12) {
			t.Fatalf("mixed %v exceeds all-ckpt %v or no-ckpt %v", mixed, all, none)
		}
	}
}

// With free checkpoints and restarts, ALL-CKPT on a discrete law reserves
// each support value in turn and pays exactly the increments.
func TestFreeCheckpointsReserveEveryValue(t *testing.T) {
	values := []float64{1, 2, 4, 8}
	probs := []float64{0.4, 0.3, 0.2, 0.1}
	s, cost, err := DynProgCount(values, probs, ReservationOnly(0, 0), Mixed)
	if err != nil {
		t.Fatal(err)
	}
	// E = 1 + 1·P(Y>1) + 2·P(Y>2) + 4·P(Y>4) = 1 + 0.6 + 0.6 + 0.4 = 2.6,
	// which equals E[Y] = 0.4+0.6+0.8+0.8 = 2.6: the omniscient cost.
	if !closeRel(cost, 2.6, 1e-12) || len(s) != 4 {
		t.Fatalf("got %v cost %v, want 4 reservations costing 2.6", s, cost)
	}
}

func TestDynProgCountRejectsBadInput(t *testing.T) {
	good := Costs{Alpha: 1, C: 1, R: 1}
	cases := []struct {
		values, probs []float64
		c             Costs
	}{
		{nil, nil, good},
		{[]float64{1, 2}, []float64{1}, good},
		{[]float64{2, 1}, []float64{0.5, 0.5}, good},
		{[]float64{1, 2}, []float64{0.5, 0}, good},
		{[]float64{1, math.NaN()}, []float64{0.5, 0.5}, good},
		{[]float64{1, 2}, []float64{0.5, 0.6}, good},
		{[]float64{1, 2}, []float64{0.5, 0.5}, Costs{Alpha: 0, C: 1, R: 1}},
		{[]float64{1, 2}, []float64{0.5, 0.5}, Costs{Alpha: 1, C: -1, R: 1}},
		{[]float64{1, 2}, []float64{0.5, 0.5}, Costs{Alpha: 1, C: 1, R: math.NaN()}},
	}
	for i, tc := range cases {
		if _, _, err := DynProgCount(tc.values, tc.probs, tc.c, Mixed); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
}

// The pipelined solver must reproduce the sequential one bit for bit, plan
// included, for any number of workers.
func TestParallelRowsMatchSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 4 {
		values, probs := randomLaw(rng, parallelRows+rng.IntN(1500))
		c := randomCosts(rng)
		sup, err := newSupport(values, probs)
		if err != nil {
			t.Fatal(err)
		}
		seq := newSolver(sup, c, Mixed)
		seq.workers = 1
		want := seq.solve()
		wantPlan := seq.strategy()
		for _, w := range []int{2, 3, 8} {
			par := newSolver(sup, c, Mixed)
			par.workers = w
			if got := par.solve(); got != want {
				t.Fatalf("trial %d workers %d: cost %v, sequential %v", trial, w, got, want)
			}
			if got := par.strategy(); len(got) != len(wantPlan) {
				t.Fatalf("trial %d workers %d: plan differs", trial, w)
			} else {
				for i := range got {
					if got[i] != wantPlan[i] {
						t.Fatalf("trial %d workers %d: plan differs at %d", trial, w, i)
					}
				}
			}
			for i := range seq.diag {
				if seq.diag[i] != par.diag[i] || seq.m1[i] != par.m1[i] {
					t.Fatalf("trial %d workers %d: state differs at %d", trial, w, i)
				}
			}
		}
	}
}

// A worker stalled in the middle of a row (as when the system deschedules
// it) must not stall its partner: while it holds its piece, the other runs
// pieces of the other rows in progress (the rows run in lockstep would let
// it finish one row at most), and the result is still the sequential one.
func TestParallelStalledWorker(t *testing.T) {
	values, probs := randomLaw(rand.New(rand.NewPCG(17, 18)), 3000)
	c := Costs{Alpha: 1, Beta: 0.5, Gamma: 0, C: 2, R: 3}
	sup, err := newSupport(values, probs)
	if err != nil {
		t.Fatal(err)
	}
	seq := newSolver(sup, c, Mixed)
	seq.workers = 1
	want := seq.solve()
	n := sup.n()
	par := newSolver(sup, c, Mixed)
	par.workers, par.chunk, par.maxOpen = 2, 64, 8
	var (
		mu      sync.Mutex
		stalled bool
		others  = map[int]bool{} // rows below the stalled one run meanwhile
	)
	release := make(chan struct{})
	par.onPiece = func(ic int) {
		mu.Lock()
		if !stalled && ic == n/2 {
			stalled = true
			mu.Unlock()
			select {
			case <-release:
			case <-time.After(20 * time.Second):
				t.Error("the partner of a stalled worker ran no other rows")
			}
			return
		}
		if stalled && ic < n/2 && !others[ic] {
			others[ic] = true
			if len(others) == 7 { // every other row in progress
				close(release)
			}
		}
		mu.Unlock()
	}
	if got := par.solve(); got != want {
		t.Fatalf("cost %v, sequential %v", got, want)
	}
	for i := range seq.diag {
		if seq.diag[i] != par.diag[i] || seq.m1[i] != par.m1[i] {
			t.Fatalf("state differs at %d", i)
		}
	}
}

// A worker stalled for good, before its piece or in the middle of it (its
// row's hull half updated in place), must not stop the solve: its partner
// computes the held piece itself (from the row's first step, on a hull of
// its own) and then every other row, alone, and the result is the
// sequential one, bit for bit. The stalled worker is released only once
// every row is done (or after 20 s, which fails the test: a partner that
// waits for the held piece never finishes). With pieces of 1 000 steps
// (and 96 of 4), the stalled piece is the first of a row or a later one.
func TestParallelWorkerStalledForever(t *testing.T) {
	values, probs := randomLaw(rand.New(rand.NewPCG(19, 20)), 3000)
	for _, tc := range []struct {
		name   string
		c      Costs
		chunk  int
		middle bool // stall after the piece's first rowCheck steps
	}{
		{"before/fast", Costs{Alpha: 1, Beta: 0.5, C: 2, R: 3}, 1000, false},
		{"middle/fast", Costs{Alpha: 1, Beta: 0.5, C: 2, R: 3}, 2000, true},
		{"middle/no-beta", Costs{Alpha: 1, C: 2, R: 3, Gamma: 1}, 2000, true},
		{"before/small-pieces", Costs{Alpha: 1, Beta: 0.5, C: 2, R: 3}, 4, false},
		{"middle/small-pieces", Costs{Alpha: 1, Beta: 0.5, C: 2, R: 3}, 96, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sup, err := newSupport(values, probs)
			if err != nil {
				t.Fatal(err)
			}
			seq := newSolver(sup, tc.c, Mixed)
			seq.workers = 1
			want := seq.solve()
			n := sup.n()
			par := newSolver(sup, tc.c, Mixed)
			par.workers, par.chunk = 2, tc.chunk
			release := make(chan struct{})
			par.progress = func(done, total int) {
				if done == total {
					close(release)
				}
			}
			var stalled atomic.Bool
			stall := func(ic int) {
				if ic != n/2 || !stalled.CompareAndSwap(false, true) {
					return
				}
				select {
				case <-release:
				case <-time.After(20 * time.Second):
					t.Error("the partner of a worker stalled for good did not finish the solve alone")
				}
			}
			if tc.middle {
				par.inPiece = func(ic int, rescue bool) {
					if !rescue {
						stall(ic)
					}
				}
			} else {
				par.onPiece = stall
			}
			if got := par.solve(); !same(got, want) {
				t.Fatalf("cost %v, sequential %v", got, want)
			}
			for i := range seq.diag {
				if !same(seq.diag[i], par.diag[i]) || !same(seq.m1[i], par.m1[i]) || seq.j1[i] != par.j1[i] {
					t.Fatalf("state %d differs", i)
				}
			}
			if par.stats.rescued == 0 {
				t.Fatalf("no piece rescued: %+v", par.stats)
			}
		})
	}
}
