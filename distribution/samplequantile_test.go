package distribution

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Reference values of R's quantile(x, p, type = 7) (= numpy.percentile's
// default), worked by hand from h = (n−1)p: for x = 1..10 and p = 0.1,
// h = 0.9 and Q = 1 + 0.9 = 1.9; for x = (7, 15, 36, 39, 40, 41) and
// p = 0.25, h = 1.25 and Q = 15 + 0.25·21 = 20.25.
func TestSampleQuantileType7(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	six := []float64{7, 15, 36, 39, 40, 41}
	for _, tc := range []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{ten, 0, 1}, {ten, 0.1, 1.9}, {ten, 0.25, 3.25}, {ten, 0.5, 5.5}, {ten, 0.75, 7.75}, {ten, 0.9, 9.1}, {ten, 1, 10},
		{six, 0.1, 11}, {six, 0.25, 20.25}, {six, 0.5, 37.5}, {six, 0.75, 39.75}, {six, 0.9, 40.5},
		{[]float64{4}, 0.3, 4}, {[]float64{1, 3}, 0.25, 1.5}, {[]float64{1, 3}, 0.5, 2},
		{[]float64{-2, -2, 5}, 0.5, -2}, {[]float64{0, 1}, 1.0 / 3, 1.0 / 3},
	} {
		if q := SampleQuantile(tc.xs, tc.p); math.Abs(q-tc.want) > 1e-12 {
			t.Errorf("Q(%v, %g) = %.17g, want %g", tc.xs, tc.p, q, tc.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if q := SampleQuantile(ten, p); !math.IsNaN(q) {
			t.Errorf("Q(p = %g) = %g, want NaN", p, q)
		}
	}
	if q := SampleQuantile(nil, 0.5); !math.IsNaN(q) {
		t.Errorf("Q(empty) = %g, want NaN", q)
	}
}

// Properties: Q is monotone in p, between the extremes, and the fraction
// of the sample strictly below Q(p) is at most p (type 7 is continuous
// from the order statistics, so ⌈h⌉ values are ≤ Q(p)).
func TestSampleQuantileProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), 1, 50).Draw(t, "xs")
		slices.Sort(xs)
		p1 := rapid.Float64Range(0, 1).Draw(t, "p1")
		p2 := rapid.Float64Range(p1, 1).Draw(t, "p2")
		q1, q2 := SampleQuantile(xs, p1), SampleQuantile(xs, p2)
		if q1 > q2 || q1 < xs[0] || q2 > xs[len(xs)-1] {
			t.Fatalf("Q(%g) = %g, Q(%g) = %g on [%g, %g]", p1, q1, p2, q2, xs[0], xs[len(xs)-1])
		}
		below := 0
		for _, x := range xs {
			if x < q1 {
				below++
			}
		}
		if h := float64(len(xs)-1) * p1; float64(below) > math.Ceil(h)+1e-9 {
			t.Fatalf("%d values below Q(%g) = %g, h = %g", below, p1, q1, h)
		}
	})
}
