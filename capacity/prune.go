package capacity

// Pruning of DPYIELD's DP1 by a lower bound on its answer (issue 18).
//
// Under ⊕ = (min, +, +) the work x of every value of the table is the
// minimum of the gains of the cases that make it, and along the traceback
// from the answer G'_m(A) the work never decreases downwards: every state
// on it has x ≥ x*, the answer's work. A case whose gain x is below a
// lower bound LB ≤ x* (the work of any feasible assignment) by more than a
// margin can therefore never be on the traceback, and no candidate built
// on it can win against one that is: every comparison it takes part in at
// a state of the traceback it loses by more than the tie tolerance. Such
// cases are dropped before the solve, which changes no decision
// (TestPrunedYieldUnchanged runs both on random instances). What it saves
// is the table: a job left with cases that all take p_j from a capacity
// narrows every layer's box by p_j there (knap.boxes: Σ dmin), and the
// jobs behind in work — those the optimum must run — are exactly the ones
// left with active cases only.
//
// The margin is 8·(m + 2) tie tolerances: the tolerance of the comparisons
// lets a value drift by at most one tolerance per layer from the exact
// lexicographic maximum, so a margin of many layers' worth keeps every
// dropped candidate strictly below every candidate of the traceback.

import (
	"math"
	"slices"
)

// yieldLowerBound returns the work x of a feasible assignment of DP1 under
// ⊕ = min (the least gain over the jobs of one case each, fitting the
// capacities a1 = Π_1 and a2 = Π_2), found by bisection over the gains
// with a greedy feasibility test; ok is false when none was found. Time
// O(k log k + m log k) for k cases.
func yieldLowerBound(opts [][]option, a1, a2 int, vals []float64) (lb float64, ok bool, scratch []float64) {
	vals = vals[:0]
	for _, os := range opts {
		for _, o := range os {
			if !math.IsInf(o.g.x, 0) && !math.IsNaN(o.g.x) {
				vals = append(vals, o.g.x)
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	lo, hi := 0, len(vals)-1 // the answer's index lies in [lo, hi]
	lb = math.Inf(-1)
	for lo <= hi {
		mid := (lo + hi) / 2
		if x, fit := greedyAbove(opts, a1, a2, vals[mid]); fit {
			lb, ok = math.Max(lb, x), true
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return lb, ok, vals
}

// greedyAbove tries to give every job one case of gain ≥ tau within the
// capacities, preferring the cases that take least (none, then Π_2 only,
// then Π_1 only, then both); it returns the least gain of the assignment.
func greedyAbove(opts [][]option, a1, a2 int, tau float64) (float64, bool) {
	x := math.Inf(1)
	for _, os := range opts {
		best, rank := -1, 4
		for oi, o := range os {
			if !(o.g.x >= tau) || o.d[2] != 0 {
				continue
			}
			r := 3
			switch {
			case o.d[0] == 0 && o.d[1] == 0:
				r = 0
			case o.d[0] == 0:
				r = 1
			case o.d[1] == 0:
				r = 2
			}
			if r < rank && o.d[0] <= a1 && o.d[1] <= a2 {
				best, rank = oi, r
			}
		}
		if best < 0 {
			return 0, false
		}
		o := os[best]
		a1, a2 = a1-o.d[0], a2-o.d[1]
		x = math.Min(x, o.g.x)
	}
	return x, true
}

// pruneYield drops from tp.opts the DP1 cases of DPYIELD whose gain is
// below the lower bound of yieldLowerBound by more than the margin, on
// capacities (a1, a2); nothing is dropped without a bound.
func (tp *twoPart) pruneYield(a1, a2 int, init vec) {
	lb, ok, vals := yieldLowerBound(tp.opts, a1, a2, tp.vals)
	tp.vals = vals
	if !ok {
		return
	}
	cut := lb - 8*float64(len(tp.opts)+2)*tieTolerance(tp.opts, init, true)
	tp.kept = tp.kept[:0]
	n := 0
	for _, os := range tp.opts {
		n += len(os)
	}
	if cap(tp.kept) < n {
		tp.kept = make([]option, 0, n)
	}
	for j, os := range tp.opts {
		start := len(tp.kept)
		for _, o := range os {
			if o.g.x >= cut {
				tp.kept = append(tp.kept, o)
			}
		}
		tp.opts[j] = tp.kept[start:len(tp.kept):len(tp.kept)]
	}
}
