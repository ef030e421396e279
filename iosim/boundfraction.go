package iosim

import (
	"errors"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/optimize"
)

// Theorem 1 and what the simulator measures.
//
// Theorem 1 rests on three assumptions that the simulated platforms can
// break:
//
//  1. Steady state: every job checkpoints every P_i for ever. A job of
//     work w with k checkpoints pays k·C_i, not w·C_i/P_i: its last segment
//     ends in its output, not in a checkpoint. With P_eff = w/(k+1) its
//     first-order overhead is C_i/P_eff − C_i/w + q_i/μ (P_eff/2 + R_i) (the
//     k+1 segments of total w lose at least w/(2(k+1)) per failure), below
//     Eq. (3) by C_i/w. With Daly periods of 16 h and jobs of 24 h (the
//     `dept` platform of issue 14) this is a third of the checkpoint cost.
//  2. Eq. (3) counts the time lost per unit of useful time (an overhead
//     H, unbounded); the simulator's waste is the fraction of node-time
//     lost, φ = H/(1+H) ≤ H. For exponential failures the exact expected
//     time of a period, μ_j e^{R/μ_j}(e^{P/μ_j} − 1), is at least
//     P(1 + P/(2μ_j) + R/μ_j), so H ≥ Eq. (3) at any P: Theorem 1 bounds
//     the overhead, and the fraction only through φ ≥ W/(1+W) per class.
//     At W = 0.73 (Cielo, node MTBF 365 d) the two units differ by 1.73×.
//  3. The I/O constraint counts k checkpoints per job, w·(1/P_eff − 1/w)
//     of them.
//
// FractionBound is the bound in the simulator's unit under these three
// corrections; it is what `iosim run` and `iosim sweep` print.

// fractionGrid is the number of log-spaced periods of the inner search.
const fractionGrid = 256

// FractionBound is a lower bound on the fraction of node-time lost (the
// waste iosim runs report) for the classes in the steady state of
// Theorem 1, with finite jobs (BoundClass.Work, the longest work of the
// class; 0 for jobs that never end): it minimises Σ a_i f(H_i(P_i)) with
// a_i = n_i q_i / N, f(x) = x/(1+x), H_i(P) = C_i/P + q_i/μ (P/2 + R_i) −
// C_i/w_i and P_i ≤ w_i, subject to Σ n_i C_i (1/P_i − 1/w_i) ≤ 1. The
// problem is not convex (f is concave), so the bound is its Lagrangian dual
// max_λ≥0 Σ_i min_P [a_i f(H_i(P)) + λ n_i C_i (1/P − 1/w_i)] − λ, which
// is below the minimum by weak duality whatever the convexity; each inner
// minimum is found on a log grid of fractionGrid periods refined by golden
// section. Without failures the bound is 0.
//
// O(K · (fractionGrid + 60) · 120) for K classes.
func FractionBound(cs []BoundClass, N, mu float64) (float64, error) {
	if len(cs) == 0 {
		return 0, errors.New("bound: no class")
	}
	if !(N > 0) || !(mu > 0) || math.IsInf(mu, 0) {
		return 0, fmt.Errorf("bound: need N > 0 and finite μ > 0, got N=%v μ=%v", N, mu)
	}
	for _, c := range cs {
		if !(c.Jobs >= 0) || !(c.Nodes > 0) || !(c.C > 0) || !(c.R >= 0) || !(c.Work >= 0) {
			return 0, fmt.Errorf("bound: class %s: need n ≥ 0, q > 0, C > 0, R ≥ 0, w ≥ 0", c.Name)
		}
	}
	dual := func(l float64) float64 {
		d := -l
		for _, c := range cs {
			d += innerMin(c, N, mu, l)
		}
		return d
	}
	// The dual is concave in λ: bracket its maximum by doubling, then
	// golden section.
	lo, hi := 0.0, 1.0
	for dual(2*hi) > dual(hi) && hi < 1e12 {
		lo, hi = hi, 2*hi
	}
	hi *= 2
	best := math.Max(dual(0), dual(hi/2))
	r := optimize.Golden{Steps: 100, Ties: optimize.TiesLeft}.Maximize(dual, lo, hi)
	f1, f2 := r.F1, r.F2
	return math.Max(0, math.Max(best, math.Max(f1, f2))), nil
}

// innerMin is min over P of a f(H(P)) + λ n C (1/P − 1/w) for class c.
func innerMin(c BoundClass, N, mu, l float64) float64 {
	a := c.Jobs * c.Nodes / N
	invW := 0.0
	if c.Work > 0 {
		invW = 1 / c.Work
	}
	val := func(P float64) float64 {
		h := c.C/P + c.Nodes/mu*(P/2+c.R) - c.C*invW
		return a*h/(1+h) + l*c.Jobs*c.C*(1/P-invW)
	}
	daly := math.Sqrt(2 * mu / c.Nodes * c.C)
	pmax := daly * 1e6
	if c.Work > 0 {
		pmax = c.Work
	}
	pmin := math.Min(daly, pmax) // below Daly both terms grow
	best := val(pmax)
	if c.Work == 0 {
		best = math.Min(best, a) // never checkpointing: f → 1, no I/O
	}
	if pmax <= pmin {
		return best
	}
	r := math.Log(pmax / pmin)
	bi, bv := 0, math.Inf(1)
	for i := 0; i <= fractionGrid; i++ {
		if v := val(pmin * math.Exp(r*float64(i)/fractionGrid)); v < bv {
			bi, bv = i, v
		}
	}
	x, y := float64(max(bi-1, 0))/fractionGrid, float64(min(bi+1, fractionGrid))/fractionGrid
	at := func(t float64) float64 { return val(pmin * math.Exp(r*t)) }
	g := optimize.Golden{Steps: 60, Ties: optimize.TiesRight}.Minimize(at, x, y)
	bv = math.Min(bv, math.Min(g.F1, g.F2))
	return math.Min(best, bv)
}
