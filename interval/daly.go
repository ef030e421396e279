package interval

import "math"

// Daly returns Daly's higher-order estimate of the optimum period (Daly,
// "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), 2006, Eq. 37):
//
//	τ = √(2CM)·[1 + ⅓·√(C/(2M)) + ⅑·C/(2M)] − C   if C < 2M,
//	τ = M                                          otherwise,
//
// the work between two checkpoints for checkpoint cost C and exponential
// failures of mean M. It is within a fraction of a percent of the exact
// optimum of the exponential model for C/M up to about 1, where Young's
// period is already several percent off; both agree as C/M → 0.
//
// Special cases: Daly(C, +Inf) = +Inf; C and M must be > 0, otherwise NaN.
func Daly(c, mtbf float64) float64 {
	if !(c > 0) || !(mtbf > 0) {
		return math.NaN()
	}
	if math.IsInf(mtbf, 1) {
		return math.Inf(1)
	}
	if c >= 2*mtbf {
		return mtbf
	}
	r := c / (2 * mtbf)
	return math.Sqrt(2*c*mtbf)*(1+math.Sqrt(r)/3+r/9) - c
}
