package reservation

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// rapidLaw draws a discrete law: n support values with gaps that may be
// tiny (so that αv_j collide in float64 and the equal-slope path runs),
// zero masses (ties), and costs with or without β and γ.
func rapidLaw(t *rapid.T, maxN int) (values, probs []float64, c Costs) {
	n := rapid.IntRange(1, maxN).Draw(t, "n")
	x := rapid.Float64Range(0, 5).Draw(t, "start")
	total := 0.0
	for i := range n {
		gap := rapid.SampledFrom([]float64{1e-13, 1e-3, 0.1, 0.5, 2, 7}).Draw(t, "gap")
		if i > 0 || x == 0 {
			next := x + gap*rapid.Float64Range(0.5, 1.5).Draw(t, "jitter")
			if next <= x {
				next = math.Nextafter(x, math.Inf(1))
			}
			x = next
		}
		values = append(values, x)
		p := rapid.SampledFrom([]float64{0, 0.01, 0.2, 1}).Draw(t, "p") * rapid.Float64Range(0.5, 1).Draw(t, "pj")
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
	c = Costs{Alpha: rapid.Float64Range(0.1, 3).Draw(t, "alpha"),
		C: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "C"),
		R: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "R")}
	if rapid.Bool().Draw(t, "beta") {
		c.Beta = rapid.Float64Range(0, 2).Draw(t, "betaValue")
	}
	if rapid.Bool().Draw(t, "gamma") {
		c.Gamma = rapid.Float64Range(0, 5).Draw(t, "gammaValue")
	}
	return values, probs, c
}

// The flat kernel (and the pipelined rows, any worker count, and pieces
// rescued from a stalled worker) must give
// bit for bit what the straightforward hull DP gives: the optimum, every
// diagonal state, the checkpoint envelope and its argmins, and the plan.
func TestKernelMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		values, probs, c := rapidLaw(t, 300)
		class := rapid.SampledFrom([]Class{Mixed, AllCkpt, NoCkpt}).Draw(t, "class")
		workers := rapid.IntRange(1, 3).Draw(t, "workers")
		sup, err := newSupport(values, probs)
		if err != nil {
			t.Fatal(err)
		}
		wantCost, wantDiag, wantM1, wantJ1, wantPlan := refSolve(sup, c, class)
		s := newSolver(sup, c, class)
		s.workers = workers
		s.pipelineMin = 1 // pipeline even tiny laws
		// Pieces of a few steps and few rows in progress, so that rows
		// change hands mid-way and workers wait on the frontier.
		s.chunk = rapid.IntRange(1, 64).Draw(t, "chunk")
		s.maxOpen = rapid.IntRange(1, 6).Draw(t, "maxOpen")
		// A worker stalled for 2 ms in its first piece of one row, so
		// that its partner rescues the piece (recomputes it from the
		// row's first step) and the two race to publish it; when the
		// first rescue stalls for 5 ms, the holder publishes first and
		// the rescue is dropped.
		if stallRow := rapid.IntRange(-1, len(values)-1).Draw(t, "stallRow"); stallRow >= 0 {
			slowRescue := rapid.Bool().Draw(t, "slowRescue")
			var stalled, rescueStalled atomic.Bool
			s.inPiece = func(ic int, rescue bool) {
				switch {
				case ic == stallRow && !rescue && stalled.CompareAndSwap(false, true):
					time.Sleep(2 * time.Millisecond)
				case rescue && slowRescue && rescueStalled.CompareAndSwap(false, true):
					time.Sleep(5 * time.Millisecond)
				}
			}
		}
		got := s.solve()
		if !same(got, wantCost) {
			t.Fatalf("cost %v, reference %v", got, wantCost)
		}
		for i := range wantDiag {
			if class == NoCkpt && i > 0 && i < len(wantDiag)-1 {
				continue // rows after a checkpoint are not computed
			}
			if !same(s.diag[i], wantDiag[i]) || !same(s.m1[i], wantM1[i]) || s.j1[i] != wantJ1[i] {
				t.Fatalf("state %d: (%v, %v, %d), reference (%v, %v, %d)", i, s.diag[i], s.m1[i], s.j1[i], wantDiag[i], wantM1[i], wantJ1[i])
			}
		}
		plan := s.strategy()
		if len(plan) != len(wantPlan) {
			t.Fatalf("plan %v, reference %v", plan, wantPlan)
		}
		for i := range plan {
			if plan[i] != wantPlan[i] {
				t.Fatalf("plan %v, reference %v", plan, wantPlan)
			}
		}
	})
}

// same is bit equality, NaN included.
func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// On the grids `ckpt reserve` plans on by default (the neuroscience
// LogNormal, C = R = 600 s, n = 16 653), the plan's and the lower bound's,
// the kernel and the concurrent solves match the reference exactly.
func TestKernelMatchesReferenceOnDefaultGrid(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two O(n²) reference solves at n = 16 653")
	}
	d, err := distribution.Parse("lognormal:mean=21.4h,sd=19.7h")
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := Law(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := Costs{Alpha: 1, C: 600, R: 600}
	var r Result
	if err := r.sizeGrid(x, Options{Costs: c, Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	if r.N != 16653 {
		t.Fatalf("grid of %d points, want the 16 653 of the issue", r.N)
	}
	y, err := distribution.Discretize(x, r.N)
	if err != nil {
		t.Fatal(err)
	}
	a, b := x.Support()
	var want [2]float64
	for k, values := range [][]float64{y.Values, lowerGrid(y.Values, a, b, r.N)} {
		sup, err := newSupport(values, y.Probs)
		if err != nil {
			t.Fatal(err)
		}
		cost, diag, _, _, plan := refSolve(sup, c, Mixed)
		want[k] = cost
		s := newSolver(sup, c, Mixed)
		s.workers = 1
		if got := s.solve(); !same(got, cost) {
			t.Fatalf("grid %d: cost %v, reference %v", k, got, cost)
		}
		for i := range diag {
			if !same(s.diag[i], diag[i]) {
				t.Fatalf("grid %d: E(%d, %d) = %v, reference %v", k, i, i, s.diag[i], diag[i])
			}
		}
		if got := s.strategy(); fmt.Sprint(got) != fmt.Sprint(plan) {
			t.Fatalf("grid %d: plan %v, reference %v", k, got, plan)
		}
	}
	ap, err := Approximate(x, c, Mixed, r.N, true)
	if err != nil {
		t.Fatal(err)
	}
	// The lower bound is read off the plan's dynamic program (β = 0) and
	// scaled by 1 − shareMargin: at most the reference's, and below it by
	// no more than that margin and rounding.
	ref := math.Min(want[1], ap.Cost)
	if lo := ref * (1 - shareMargin(a, b, r.N) - 1e-12); !(ap.LowerBound <= ref && ap.LowerBound >= lo) {
		t.Fatalf("lower bound %v, want in [%v, %v] (the reference min(%v, %v))", ap.LowerBound, lo, ref, want[1], ap.Cost)
	}
}
