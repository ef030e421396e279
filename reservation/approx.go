package reservation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// GridSize is lines 2–3 of Algorithm 1 (DYN-PROG-COUNT(X, ε)):
//
//	c0 = 3(b − a)·min(1 / min(max(a, εE[X]/3), R, C), (α + β)/γ)
//	n  = ⌈c0/ε⌉
//
// for a law X on the bounded support [a, b]. With γ = 0 the second term is
// +∞; with C = 0 or R = 0 (and a = 0) the first is, and if both are the
// optimum needs arbitrarily many reservations, so no n gives the guarantee
// and an error says to choose n directly. n saturates at math.MaxInt32.
func GridSize(d distribution.Distribution, c Costs, eps float64) (n int, c0 float64, err error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return 0, 0, fmt.Errorf("epsilon must be > 0, got %v", eps)
	}
	g, err := newGridLaw(d)
	if err != nil {
		return 0, 0, err
	}
	c0 = g.c0(c, eps)
	if math.IsInf(c0, 1) {
		return 0, c0, errNoGuarantee
	}
	// Heavy tails can ask for astronomically many points; n saturates at
	// MaxInt32 and callers cap it (Plan reports the guarantee the capped
	// grid achieves, see Guarantee).
	nf := math.Min(math.Ceil(c0/eps), math.MaxInt32)
	return max(int(nf), 1), c0, nil
}

var errNoGuarantee = errors.New("no grid size guarantees 1+epsilon when C or R is 0 and gamma is 0 (the optimum needs arbitrarily many reservations); set the number of points n instead")

// gridLaw holds what Algorithm 1's c0 needs of a bounded law.
type gridLaw struct{ a, b, mean float64 }

func newGridLaw(d distribution.Distribution) (gridLaw, error) {
	a, b := d.Support()
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return gridLaw{}, fmt.Errorf("approximation (Algorithm 1) needs a bounded support, got [%v, %v]", a, b)
	}
	return gridLaw{a, b, d.Mean()}, nil
}

// c0 is line 2 of Algorithm 1. It does not increase with ε, so c0(ε)/ε
// strictly decreases.
func (g gridLaw) c0(c Costs, eps float64) float64 {
	small := math.Min(math.Max(g.a, eps*g.mean/3), math.Min(c.R, c.C))
	inv := math.Inf(1)
	if small > 0 {
		inv = 1 / small
	}
	ratio := math.Inf(1)
	if c.Gamma > 0 {
		ratio = (c.Alpha + c.Beta) / c.Gamma
	}
	return 3 * (g.b - g.a) * math.Min(inv, ratio)
}

// fits reports whether Algorithm 1 with parameter eps asks for at most n
// points: ⌈c0(ε)/ε⌉ ≤ n, computed exactly as GridSize does.
func (g gridLaw) fits(c Costs, eps float64, n int) bool {
	return math.Ceil(g.c0(c, eps)/eps) <= float64(n)
}

// Guarantee is the approximation guarantee that a grid of n points achieves
// for the bounded law d: the smallest ε with ⌈c0(ε)/ε⌉ ≤ n, that is, the
// smallest ε for which Algorithm 1 would have asked for no more than n
// points, so that Theorem 3 applies to the plan with that ε. c0 is returned
// at that ε. Since c0(ε)/ε strictly decreases, ε is found by bisection down
// to adjacent floats, keeping the end where GridSize(d, c, ε) ≤ n holds. When
// no ε gives a finite c0 (C or R is 0 and γ = 0), the error says so.
//
// Theorem 3 bounds the plan's cost by (1 + ε/3)² times the optimum, which
// is at most 1 + ε only for ε ≤ 3: see GuaranteeFactor.
func Guarantee(d distribution.Distribution, c Costs, n int) (eps, c0 float64, err error) {
	if n < 1 {
		return 0, 0, fmt.Errorf("number of grid points must be >= 1, got %d", n)
	}
	g, err := newGridLaw(d)
	if err != nil {
		return 0, 0, err
	}
	// As ε grows c0(ε) stops changing (once εE[X]/3 exceeds min(R, C)), so
	// c0(ε)/ε → 0 and doubling finds a feasible ε unless c0 is infinite.
	hi := 1.0
	for !g.fits(c, hi, n) {
		hi *= 2
		if math.IsInf(hi, 1) || math.IsInf(g.c0(c, hi), 1) {
			return math.Inf(1), math.Inf(1), errNoGuarantee
		}
	}
	for hi/2 > 0 && g.fits(c, hi/2, n) {
		hi /= 2
	}
	lo := hi / 2 // does not fit (or is 0)
	// Bisect to adjacent floats: about 53 steps.
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if g.fits(c, mid, n) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, g.c0(c, hi), nil
}

// GuaranteeFactor is the factor of the optimum within which Theorem 3
// guarantees the cost of DYN-PROG-COUNT(X, ε): its proof combines two
// factors 1 + ε/3 (Lemma 1 with ε/3, then Lemma 2), and (1 + ε/3)² ≤ 1 + ε
// only for ε ≤ 3; the paper's last step assumes that. GuaranteeFactor
// returns 1 + ε for ε ≤ 3, the bound the paper states, and (1 + ε/3)²
// beyond.
func GuaranteeFactor(eps float64) float64 {
	if eps <= 3 {
		return 1 + eps
	}
	return (1 + eps/3) * (1 + eps/3)
}

// Approximation is the result of DYN-PROG-COUNT(X, ε) on a continuous law.
type Approximation struct {
	// Strategy is the optimal plan for the discretised law Y_n of Eq. (9).
	Strategy Strategy
	// Cost is the plan's exact expected cost for X (Theorem 1 on X).
	Cost float64
	// LowerBound is a certified lower bound on the optimal expected cost for
	// X within the class, or NaN when not computed: the optimum for the law
	// that moves the mass of every grid cell (v_{i−1}, v_i] to v_{i−1}.
	// That law is stochastically smaller than X and the cost of any fixed
	// strategy is non-decreasing in the walltime, so its optimum is ≤ X's.
	// When read off the plan's dynamic program (mixed class, β = 0) it is
	// scaled by 1 − shareMargin (a few 10⁻¹²) to stay below that optimum
	// despite rounding.
	LowerBound float64
	// N is the number of grid points.
	N int
}

// Approximate runs Algorithm 1 with n grid points: discretise the bounded law
// X by Eq. (9), solve the discrete problem with DynProgCount in the given
// class, and price the plan on X itself. With lowerBound it also bounds the
// optimum from below by the optimum on the lower grid: read off the plan's
// dynamic program in O(n) in the mixed class with β = 0 (sharedLowerBound),
// otherwise a second dynamic program run side by side on two cores.
func Approximate(x distribution.Distribution, c Costs, class Class, n int, lowerBound bool) (*Approximation, error) {
	return approximate(context.Background(), x, c, class, n, lowerBound, nil)
}

// ApproximateContext is Approximate stopped by ctx (checked once per row
// of each dynamic program): it returns ctx.Err() within a row's time.
func ApproximateContext(ctx context.Context, x distribution.Distribution, c Costs, class Class, n int, lowerBound bool) (*Approximation, error) {
	return approximate(ctx, x, c, class, n, lowerBound, nil)
}

// approximate is Approximate with cancellation (checked once per row of
// each dynamic program) and progress reporting.
func approximate(ctx context.Context, x distribution.Distribution, c Costs, class Class, n int, lowerBound bool, progress func(step string, done, total int)) (*Approximation, error) {
	if n < 1 {
		return nil, fmt.Errorf("number of grid points must be >= 1, got %d", n)
	}
	a, b := x.Support()
	if math.IsInf(b, 0) {
		return nil, fmt.Errorf("approximation (Algorithm 1) needs a bounded support, got [%v, %v]", a, b)
	}
	y, err := distribution.Discretize(x, n)
	if err != nil {
		return nil, err
	}
	o := Options{Progress: progress}
	// In the mixed class with β = 0 the lower bound is read off the plan's
	// dynamic program in O(n) (sharedLowerBound), which then has every
	// worker. Otherwise the
	// two dynamic programs are independent: with two workers or more each
	// takes half of them, side by side, with no synchronisation between the
	// two (a busy core slows both evenly rather than stalling a pipeline).
	share := lowerBound && canShareLowerBound(c, class, a, b, n)
	workers := runtime.GOMAXPROCS(0)
	lb, lbWorkers := math.NaN(), 0
	var wg sync.WaitGroup
	lbCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	lbProgress := o.progress(class.String() + " lower bound")
	solveLB := func() {
		_, cost, err := dynProgCount(lbCtx, lowerGrid(y.Values, a, b, n), y.Probs, c, class, lbProgress, lbWorkers)
		if err == nil {
			lb = cost
		}
	}
	if lowerBound && !share && workers > 1 {
		lbWorkers = workers / 2
		workers -= lbWorkers
		wg.Go(solveLB)
	}
	sol, _, err := solveLaw(ctx, y.Values, y.Probs, c, class, o.progress(class.String()), workers)
	var s Strategy
	var cost float64
	if err == nil {
		s = sol.strategy()
		cost, err = expectedCostOn(s, x, c)
	}
	if err != nil {
		cancel()
		wg.Wait()
		return nil, err
	}
	switch {
	case share:
		if v, ok := sharedLowerBound(sol, lowerGrid(y.Values, a, b, n), y.Probs); ok {
			lb = v * (1 - shareMargin(a, b, n))
			if lbProgress != nil {
				lbProgress(n, n)
			}
		}
	case lowerBound && lbWorkers == 0:
		solveLB()
	}
	wg.Wait()
	if ctxErr := ctx.Err(); lowerBound && ctxErr != nil {
		return nil, ctxErr
	}
	out := &Approximation{Strategy: s, Cost: cost, LowerBound: math.NaN(), N: n}
	if lowerBound && !math.IsNaN(lb) {
		out.LowerBound = math.Min(lb, cost)
	}
	return out, nil
}

// lowerGrid moves every grid point of Eq. (9) down by one cell, to the
// lower end of its cell (v_i − h, at least a): the support of the law
// whose optimum bounds X's from below.
func lowerGrid(values []float64, a, b float64, n int) []float64 {
	h := (b - a) / float64(n)
	lower := make([]float64, len(values))
	for i, v := range values {
		lower[i] = math.Max(a, v-h)
	}
	return lower
}

// expectedCostOn prices s on x, tolerating the rounding of the grid's last
// point a few ulps below the top of the support.
func expectedCostOn(s Strategy, x distribution.Distribution, c Costs) (float64, error) {
	return expectedCostOnAbove(s, x, c, math.Inf(1))
}

// expectedCostOnAbove is expectedCostOn that stops pricing once the cost
// exceeds bound (expectedCostAbove): a result above bound may be a partial
// sum, but then the full cost is above bound as well.
func expectedCostOnAbove(s Strategy, x distribution.Distribution, c Costs, bound float64) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if p := x.Survival(s.Last()); p > 1e-12 {
		return math.Inf(1), fmt.Errorf("%w: last milestone %g leaves P(X > %g) = %.3g", ErrNotCovered, s.Last(), s.Last(), p)
	}
	return expectedCostAbove(s, c, x.Survival, x.Mean(), bound), nil
}
