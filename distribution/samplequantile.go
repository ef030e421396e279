package distribution

import "math"

// SampleQuantile is the p-quantile of a sample sorted in increasing order,
// by linear interpolation between order statistics: type 7 of Hyndman and
// Fan (1996), the default of R's quantile() and NumPy's percentile(). With
// n values x[0] ≤ … ≤ x[n−1] (0-based) and h = (n−1)p,
//
//	Q(p) = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]),
//
// so Q(0) is the minimum, Q(1) the maximum and Q(0.5) the usual median.
//
// Special cases: an empty sample, or p outside [0, 1] or NaN, gives NaN; a
// single value is every quantile. The sample is not checked for order.
// O(1).
func SampleQuantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(len(sorted)-1) * p
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
