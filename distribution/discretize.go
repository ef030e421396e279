package distribution

import (
	"fmt"
	"math"
)

// Discretize returns the discrete law Y_n of Eq. (9) (Algorithm 1, line 4)
// for a law d with bounded support [a, b]:
//
//	v_i = a + i(b−a)/n,   f_i = P(v_{i−1} < X ≤ v_i),   i = 1..n,
//
// with v_n = b exactly and f_1 = P(X ≤ v_1), which adds to Eq. (9) only an
// atom at a (none for a continuous law). The masses are differences of
// CDFs while the CDF is at most ½ and differences of survival functions
// beyond, so the upper tail keeps its digits; they are renormalised to sum
// to 1 (Section 4.2) and trailing zero-mass points are dropped so that the
// last value has positive mass. Points of zero mass elsewhere are kept:
// they are still admissible reservation lengths.
//
// Unbounded supports are an error (use Bound first), as is n < 1 or a grid
// so fine that consecutive v_i coincide in float64.
//
// Complexity: n+1 evaluations of CDF or Survival (one per grid point, never
// both except at the median) and O(n) time and memory otherwise.
func Discretize(d Distribution, n int) (*Discrete, error) {
	if err := validate(d); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("discretize: n must be >= 1, got %d", n)
	}
	a, b := d.Support()
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return nil, fmt.Errorf("discretize: support [%v, %v] of %v is unbounded; truncate it first (Bound)", a, b, d)
	}
	values := make([]float64, n)
	step := (b - a) / float64(n)
	for i := range values {
		values[i] = a + float64(i+1)*step
	}
	values[n-1] = b
	for i := 1; i < n; i++ {
		if !(values[i] > values[i-1]) {
			return nil, fmt.Errorf("discretize: n=%d is too fine for the support [%v, %v] in float64", n, a, b)
		}
	}
	if n > 1 && !(values[0] > a) {
		return nil, fmt.Errorf("discretize: n=%d is too fine for the support [%v, %v] in float64", n, a, b)
	}
	probs := make([]float64, n)
	// F(v_0) = P(X < a) = 0 and S(v_0) = 1 by definition of the support;
	// F(v_n) = 1, S(v_n) = 0.
	prevF, prevS := 0.0, 1.0
	upper := false // once true, masses come from survival differences
	for i := range n {
		var f float64
		switch {
		case i == n-1:
			if upper {
				f = prevS
			} else {
				f = 1 - prevF // prevF ≤ ½: no cancellation
			}
		case upper:
			s := d.Survival(values[i])
			f = prevS - s
			prevS = s
		default:
			F := d.CDF(values[i])
			f = F - prevF
			prevF = F
			if F > 0.5 {
				upper = true
				prevS = d.Survival(values[i])
			}
		}
		if !(f > 0) {
			f = 0 // rounding noise in a non-monotone numerical CDF
		}
		probs[i] = f
	}
	if s := compensatedSum(probs); !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("discretize: masses of %v sum to %v", d, s)
	}
	return newDiscrete(values, probs)
}
