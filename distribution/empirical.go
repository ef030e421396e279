package distribution

import (
	"fmt"
	"math"
	"slices"
)

// Empirical returns the empirical law of past walltimes: each distinct
// sample value with its relative frequency as mass. Samples must be finite
// and ≥ 0; an empty slice is an error. It sorts a copy: O(N log N).
func Empirical(samples []float64) (*Discrete, error) {
	if err := checkSamples("empirical", samples, 1); err != nil {
		return nil, err
	}
	xs := slices.Clone(samples)
	slices.Sort(xs)
	var values, counts []float64
	for _, x := range xs {
		if n := len(values); n > 0 && values[n-1] == x {
			counts[n-1]++
			continue
		}
		values = append(values, x)
		counts = append(counts, 1)
	}
	for i := range counts {
		counts[i] /= float64(len(xs))
	}
	return newDiscrete(values, counts)
}

// checkSamples rejects fewer than minN samples and any NaN, infinite or
// negative value, naming the first offender's index and value.
func checkSamples(what string, samples []float64, minN int) error {
	if len(samples) < minN {
		if minN == 1 {
			return fmt.Errorf("%s: no samples", what)
		}
		return fmt.Errorf("%s: need at least %d samples, got %d", what, minN, len(samples))
	}
	for i, x := range samples {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("%s: sample %d is not finite: %v", what, i, x)
		case x < 0:
			return fmt.Errorf("%s: sample %d is negative: %v", what, i, x)
		}
	}
	return nil
}
