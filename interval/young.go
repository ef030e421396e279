package interval

import "math"

// Young returns Young's first-order optimum period √(2·C·M) (Eq. 6 of the
// paper; Young, CACM 1974): the work between two checkpoints for checkpoint
// cost C and mean time between failures M, assuming exponential failure
// intervals and C ≪ M.
//
// Special cases: Young(C, +Inf) = +Inf (no failure, never checkpoint);
// C and M must be > 0, otherwise the result is NaN.
func Young(c, mtbf float64) float64 {
	if !(c > 0) || !(mtbf > 0) {
		return math.NaN()
	}
	return math.Sqrt(2 * c * mtbf)
}
