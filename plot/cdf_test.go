package plot

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestDecimateWithinOneStep: the decimated ECDF, read as a post-step
// function, is within 1/maxSteps of the exact ECDF at every sample value
// (the exact one counted directly, an independent oracle).
func TestDecimateWithinOneStep(t *testing.T) {
	for _, n := range []int{10, maxSteps, maxSteps + 1, 3*maxSteps + 7, 25000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64((i * 7919) % n) // a permutation of 0…n−1, with no ties
		}
		sorted := SortedFinite(xs)
		d := decimate(ecdfSteps(sorted))
		if n <= maxSteps && len(d) != n+1 {
			t.Errorf("n = %d: a short curve was decimated to %d corners", n, len(d))
		}
		if len(d) > maxSteps+1 {
			t.Errorf("n = %d: %d corners, at most %d", n, len(d), maxSteps+1)
		}
		j := 0
		for i, x := range sorted {
			exact := float64(i+1) / float64(n)
			for j+1 < len(d) && d[j+1].X <= x {
				j++
			}
			if drawn := d[j].Y; math.Abs(drawn-exact) > 1.0/maxSteps+1e-12 {
				t.Fatalf("n = %d: at x = %g the curve is %g, exact %g", n, x, drawn, exact)
			}
		}
	}
}

// TestECDFSeriesSteps: the series is the step function of the sample,
// checked against counting (an independent oracle): at every x of the
// sample, the top of its jump is #(values ≤ x)/n and the bottom
// #(values < x)/n.
func TestECDFSeriesSteps(t *testing.T) {
	vals := []float64{3, 1, 2, 2, math.NaN(), 5, math.Inf(1)}
	s := ECDFSeries("s", vals)
	fin := []float64{1, 2, 2, 3, 5}
	if len(s.X) != 2*(len(fin)+1) || len(s.X) != len(s.Y) { // the (x₁, 0) start, then one corner per value
		t.Fatalf("%d x and %d y values for %d values", len(s.X), len(s.Y), len(fin))
	}
	count := func(x float64, strict bool) float64 {
		n := 0
		for _, v := range fin {
			if v < x || (!strict && v == x) {
				n++
			}
		}
		return float64(n) / float64(len(fin))
	}
	lo, hi := map[float64]float64{}, map[float64]float64{}
	for i := 0; i < len(s.X); i += 2 {
		x := s.X[i]
		if s.X[i+1] != x || s.Y[i+1] < s.Y[i] {
			t.Fatalf("pair %d is not a vertical rise: (%v, %v), (%v, %v)", i/2, s.X[i], s.Y[i], s.X[i+1], s.Y[i+1])
		}
		if v, ok := lo[x]; !ok || s.Y[i] < v {
			lo[x] = s.Y[i]
		}
		hi[x] = math.Max(hi[x], s.Y[i+1])
	}
	for x := range hi {
		if hi[x] != count(x, false) || lo[x] != count(x, true) {
			t.Errorf("jump at %g from %g to %g, want %g to %g", x, lo[x], hi[x], count(x, true), count(x, false))
		}
	}
	if e := ECDFSeries("none", []float64{math.NaN()}); len(e.X) != 0 {
		t.Errorf("no finite value: %d points", len(e.X))
	}
	big := make([]float64, 10*maxSteps)
	for i := range big {
		big[i] = float64(i)
	}
	if b := ECDFSeries("big", big); len(b.X) > 2*(maxSteps+1) {
		t.Errorf("%d points for a sample of %d, want at most %d", len(b.X), len(big), 2*(maxSteps+1))
	}
}

// TestTimeUnit pins the unit thresholds.
func TestTimeUnit(t *testing.T) {
	for _, c := range []struct {
		hi   float64
		name string
		secs float64
	}{{119, "s", 1}, {120, "min", 60}, {7199, "min", 60}, {7200, "h", 3600}, {14*86400 - 1, "h", 3600}, {14 * 86400, "d", 86400}} {
		if n, s := TimeUnit(c.hi); n != c.name || s != c.secs {
			t.Errorf("TimeUnit(%g) = %s, %g; want %s, %g", c.hi, n, s, c.name, c.secs)
		}
	}
}

// The drawn step function, read as a post-step curve (its value at x is
// the y of the last corner with X ≤ x), is the empirical CDF counted
// directly.
func TestECDFStepsMatchCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.IntRange(-5, 5), 1, 30).Draw(t, "xs")
		vals := make([]float64, len(xs))
		for i, x := range xs {
			vals[i] = float64(x)
		}
		pts := ecdfSteps(SortedFinite(vals))
		for q := -6.0; q <= 6; q += 0.5 {
			count := 0
			for _, v := range vals {
				if v <= q {
					count++
				}
			}
			want := float64(count) / float64(len(vals))
			got := 0.0
			for _, p := range pts {
				if p.X <= q {
					got = p.Y
				}
			}
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("F(%g) drawn %g, counted %g", q, got, want)
			}
		}
	})
	pts := ecdfSteps([]float64{1, 2, 2, 3})
	want := []float64{0, 0.25, 0.5, 0.75, 1}
	for i, p := range pts {
		if p.Y != want[i] {
			t.Fatalf("corners %v", pts)
		}
	}
}
