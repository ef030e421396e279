package interval

import "math"

// OptimalIntervals is Theorem 1's x* = √(Te·E(Y)/(2C)) (Eq. 3): the real
// number of equal checkpointing intervals that minimises the expected
// wall-clock time E(Tw) of Eq. (4) for a task of work Te, checkpoint cost C
// and expected number of failures E(Y). It does not depend on R nor on the
// law of the failures, only on their mean number.
//
// Special cases: E(Y) = 0 gives 0 (Eq. 4 then decreases with fewer
// intervals: one interval, no checkpoint, is best); Te, C must be > 0 and
// E(Y) ≥ 0, otherwise NaN.
func OptimalIntervals(te, c, ey float64) float64 {
	if !(te > 0) || !(c > 0) || !(ey >= 0) || math.IsInf(te, 0) || math.IsInf(ey, 0) {
		return math.NaN()
	}
	return math.Sqrt(te * ey / (2 * c))
}

// Intervals is the integer number x ≥ 1 of equal intervals that minimises
// E(Tw) of Eq. (4). Eq. (4) is C·x + Te·E(Y)/(2x) plus constants, a convex
// function of x, so the integer optimum is ⌊x*⌋ or ⌈x*⌉: x = n is at least
// as good as n+1 exactly when n(n+1) ≥ x*², and Intervals returns the
// smallest such n ≥ 1 (ties go to fewer checkpoints). The paper's examples:
// Te = 18 s, C = 2 s, E(Y) = 2 gives 3; Te = 441 s, C = 1 s, E(Y) = 2 gives
// 21 (20 checkpoints). O(1).
//
// Special cases: E(Y) = 0 gives 1; invalid arguments (see OptimalIntervals)
// give 0. Counts beyond 2⁵³ saturate.
func Intervals(te, c, ey float64) int {
	xs := OptimalIntervals(te, c, ey)
	if math.IsNaN(xs) {
		return 0
	}
	if xs > 1<<53 {
		return 1 << 53
	}
	a := te * ey / (2 * c) // x*²
	n := math.Floor(xs)
	if n < 1 {
		return 1
	}
	// n(n+1) ≥ x*² ⇔ C(n) ≤ C(n+1); x*² ≤ (⌊x*⌋+1)⌊x*⌋ may fail only by
	// rounding of the square root, so test n−1 as well.
	if n > 1 && (n-1)*n >= a {
		return int(n - 1)
	}
	if n*(n+1) >= a {
		return int(n)
	}
	return int(n + 1)
}

// ExpectedWallclock is Eq. (4): the expected wall-clock time of a task of
// work Te with x equal intervals (x−1 checkpoints of cost C), E(Y) expected
// failures each costing R plus the lost work, Te/(2x) on average:
//
//	E(Tw) = Te + C·(x−1) + R·E(Y) + Te·E(Y)/(2x).
//
// x may be fractional, as in the paper's Section 4.2.2 example. x must be
// ≥ 1 (NaN otherwise) and the other arguments as for OptimalIntervals with
// R ≥ 0. O(1).
func ExpectedWallclock(te, c, r, ey, x float64) float64 {
	if !(te > 0) || !(c > 0) || !(r >= 0) || !(ey >= 0) || !(x >= 1) {
		return math.NaN()
	}
	return te + c*(x-1) + r*ey + te*ey/(2*x)
}

// Overhead is ExpectedWallclock − Te: C·(x−1) + R·E(Y) + Te·E(Y)/(2x), the
// expected total cost that Section 4.2.2 compares between local and shared
// storage.
func Overhead(te, c, r, ey, x float64) float64 {
	return ExpectedWallclock(te, c, r, ey, x) - te
}

// ExpectedWallclockPeriod generalises Eq. (4) to checkpoints every `period`
// of work with a shorter last interval, as Young's and Daly's periods give:
// intervals of length P, …, P, Te − (x−1)P with x = ⌈Te/P⌉. Under Eq. (4)'s
// assumption that a failure strikes uniformly over the work, independently
// of the checkpoints, one failure loses Σ len_i²/(2·Te) on average, so
//
//	E(Tw) = Te + C·(x−1) + R·E(Y) + E(Y)·Σ len_i²/(2·Te).
//
// With P = Te/x it equals ExpectedWallclock. A period ≥ Te means no
// checkpoint. O(1).
func ExpectedWallclockPeriod(te, c, r, ey, period float64) float64 {
	x := IntervalsForPeriod(te, period)
	if x == 0 || !(c > 0) || !(r >= 0) || !(ey >= 0) {
		return math.NaN()
	}
	fx := float64(x)
	last := te - (fx-1)*period
	sq := (fx-1)*period*period + last*last
	return te + c*(fx-1) + r*ey + ey*sq/(2*te)
}

// IntervalsForPeriod is the number of intervals ⌈Te/P⌉ (at least 1) of a
// task of work Te checkpointed every P of work; 0 for invalid arguments.
// A last interval shorter than 1e-9·Te is merged into the previous one (a
// checkpoint at the very end of the task would be useless).
func IntervalsForPeriod(te, period float64) int {
	if !(te > 0) || !(period > 0) || math.IsInf(te, 0) {
		return 0
	}
	if period >= te {
		return 1
	}
	q := te / period
	if q > 1<<53 {
		return 1 << 53
	}
	n := math.Ceil(q - 1e-9)
	if n < 1 {
		n = 1
	}
	return int(n)
}
