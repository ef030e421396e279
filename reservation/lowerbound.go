package reservation

import "math"

// canShareLowerBound reports whether the certified lower bound of Algorithm 1
// on the Eq. (9) grid of n points over [a, b] is read off the plan's
// dynamic program (sharedLowerBound) instead of a second one: for the
// mixed class (the others' dynamic programs are O(n) already, and stay bit
// for bit as they were), when β = 0 and the rounding margin (shareMargin)
// is at most maxShareMargin. See sharedLowerBound for why.
func canShareLowerBound(c Costs, class Class, a, b float64, n int) bool {
	return class == Mixed && c.Beta == 0 && shareMargin(a, b, n) <= maxShareMargin
}

// maxShareMargin is the largest relative rounding margin (shareMargin) for
// which the lower bound is shared; beyond it (supports far from 0 on fine
// grids) the full dynamic program is run, so that the margin never loosens
// the bound noticeably.
const maxShareMargin = 1e-10

// shareMargin bounds, relative to the optimum, how far the shared lower
// bound can lie above the optimum of the lower law because w_j − w_{i_c}
// and v_j − v_{i_c} round differently (see sharedLowerBound): each
// w_j = fl(v_j − h) is within u·b of v_j − h (u = 2⁻⁵³, all values are at
// most b), so every reservation after a checkpoint is priced with a length
// off by at most 2u·b, that is α·2u·b per reservation the job reaches. Such a
// reservation is at least a cell long, h = (b − a)/n, and costs at least
// α·h for each time it is reached, so the expected number reached is at
// most cost/(α·h): the error is at most 2u·(b/h) = 2⁻⁵²·n·b/(b − a) of the
// cost. The shared bound, scaled by (1 − shareMargin), is below the lower
// law's optimum up to the dynamic programs' own rounding, which the full
// dynamic program has as well. At the default n = 16 653 on [0, b] it is
// 3.7·10⁻¹².
func shareMargin(a, b float64, n int) float64 {
	if !(b > a) {
		return math.Inf(1)
	}
	return 0x1p-52 * float64(n) * b / (b - a)
}

// sharedLowerBound is the optimum of the lower law — the grid of plan
// moved down one cell, w_i = max(a, v_i − h), with the same probabilities
// (lowerGrid) — computed from the plan's solved dynamic program in O(n)
// time and memory instead of a second O(n²) one. It needs β = 0
// (canShareLowerBound); the caller scales it by 1 − shareMargin to stay
// below the lower law's optimum despite rounding. ok is false when the lower grid is not a law
// (the full dynamic program would refuse it too).
//
// Why it holds. The Eq. (9) grid is v_i = a + i·h (v_n = b), so
// v_1 − h = a and the lower grid is the plan's translated down by h:
// w_i = v_i − h for every i ≥ 1 (in exact arithmetic; the max with a only
// absorbs the rounding of v_1 − h). The survivals are the same,
// S'_i = P(Y' > w_i) = S_i, since the masses are. In solver's recurrence
// (see its comment) with β = 0, row i_c ≥ 1 has b = v_{i_c}, ρ = R and
//
//	δ=0: E(i_c, j) + S_l·(α(v_j − v_{i_c}) + αR + γ)
//	δ=1: E(j, j)   + S_l·(α(v_j − v_{i_c}) + αR + αC + γ)
//
// with E(·, n) = β·E[Y] = 0: the values enter only as differences
// v_j − v_{i_c} = w_j − w_{i_c}. By induction on i_c from n − 1 down, and
// within a row on i_l from n − 1 down, E'(i_c, i_l) = E(i_c, i_l) for every
// i_c ≥ 1, in particular E'(j, j) = E(j, j) for 1 ≤ j < n. Row 0 differs
// (b = ρ = 0: a reservation there costs α·v_j, not α·(v_j − b), and every
// reservation of the row is h shorter on the lower law), so it is solved
// anew on the lower grid, O(n) with its hull, reading E(j, j) from the
// plan's diagonal and building the checkpoint envelope
// m1'(l) = min_{l<j<n} E(j, j) + α·w_j·S_l from it.
//
// With β > 0 the terminal value β·E[Y'] = β(E[Y] − h) would shift every
// E' by −βh and the terms βS_j(v_j − b) stay differences, so the rows
// would still agree up to a constant; that case is left to the full
// dynamic program. NoCkpt never reads the diagonal (row 0 alone); AllCkpt
// and Mixed read it through m1'.
//
// In floating point w_j − w_{i_c} and v_j − v_{i_c} round differently, so
// the result differs from the full dynamic program's by rounding only
// (TestSharedLowerBoundMatchesFullDP bounds it by 10⁻¹² relative; at the
// default n = 16 653 it is about one ulp), and by at most shareMargin from
// the lower law's exact optimum for the same reason.
func sharedLowerBound(plan *solver, lower, probs []float64) (lb float64, ok bool) {
	sup, err := newSupport(lower, probs)
	if err != nil || sup.n() != plan.sup.n() || plan.c.Beta != 0 {
		return math.NaN(), false
	}
	s := newSolver(sup, plan.c, plan.class)
	n := sup.n()
	copy(s.diag[1:n], plan.diag[1:n])
	s.diag[n] = s.base
	if s.class != NoCkpt {
		v, S, c := sup.v, sup.surv, s.c
		shared := newHull(n)
		for il := n - 1; il >= 0; il-- {
			if j := il + 1; j < n {
				shared.add(c.Alpha*v[j], s.diag[j]+c.Beta*c.C*S[j], int32(j))
			}
			s.m1[il], s.j1[il] = math.Inf(1), 0
			if !shared.empty() {
				s.m1[il], s.j1[il] = shared.query(S[il])
			}
		}
	}
	return s.runRow(0, nil, s.row, &s.hull), true
}
