package interval

import (
	"math"

	"github.com/ckpt-hpc/ckpt/usage"
)

// MethodEY is Theorem 1 under the coordinator's name: MethodMNOF, Te split
// into x equal intervals for E(Y) expected failures.
const MethodEY = "ey"

// Period is the one place a method's checkpoint period is chosen: the work
// between two checkpoints that method (young, daly, or mnof/ey) gives a
// task of work te, checkpoint cost c and failures of mean mtbf (> 0; +Inf:
// none) or ey expected failures during te (> 0; 0 or NaN: te/mtbf,
// Corollary 1). Young is √(2·C·MTBF) (Eq. 6), Daly his higher-order period,
// mnof/ey te/x with x = Intervals(te, c, E(Y)) (Theorem 1), +Inf for one
// interval (no checkpoint); young and daly do not read te. The error is a
// usage error naming what is missing ("mtbf", "work", "ey", "c", or
// "method"). O(1).
func Period(method string, te, c, mtbf, ey float64) (float64, error) {
	var p float64
	switch method {
	case MethodMNOF, MethodEY:
		if !(te > 0) {
			return math.NaN(), usage.Fieldf("work", "method %s needs the task's work Te", method)
		}
		if !(ey > 0) {
			if !(mtbf > 0) {
				return math.NaN(), usage.Fieldf("ey", "method %s needs E(Y) or the MTBF", method)
			}
			ey = te / mtbf
		}
		x := Intervals(te, c, ey)
		if x < 1 {
			return math.NaN(), usage.Fieldf("c", "no interval count for Te=%g C=%g E(Y)=%g", te, c, ey)
		}
		p = te / float64(x)
		if x == 1 {
			p = math.Inf(1) // one interval: no checkpoint
		}
	case MethodYoung, MethodDaly:
		if !(mtbf > 0) {
			return math.NaN(), usage.Fieldf("mtbf", "method %s needs the MTBF", method)
		}
		p = Young(c, mtbf)
		if method == MethodDaly {
			p = Daly(c, mtbf)
		}
	default:
		return math.NaN(), usage.Fieldf("method", "unknown method %q (young, daly, mnof or ey)", method)
	}
	if math.IsNaN(p) {
		return p, usage.Fieldf("c", "no period for C=%g, MTBF=%g", c, mtbf)
	}
	return p, nil
}
