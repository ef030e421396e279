package draw

import (
	"math"
	"slices"
	"strconv"
	"testing"

	gplot "gonum.org/v1/plot"
	"pgregory.net/rapid"
)

// Reference values from numpy.percentile (default "linear" method) and
// R's quantile(type = 7), computed by hand from their definition.
func TestQuantileType7(t *testing.T) {
	for _, tc := range []struct {
		xs        []float64
		q1, m, q3 float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 3.25, 5.5, 7.75},
		{[]float64{7, 15, 36, 39, 40, 41}, 20.25, 37.5, 39.75},
		{[]float64{4}, 4, 4, 4},
		{[]float64{1, 3}, 1.5, 2, 2.5},
	} {
		if q := quantile(tc.xs, 0.25); q != tc.q1 {
			t.Errorf("Q1(%v) = %g, want %g", tc.xs, q, tc.q1)
		}
		if q := quantile(tc.xs, 0.5); q != tc.m {
			t.Errorf("median(%v) = %g, want %g", tc.xs, q, tc.m)
		}
		if q := quantile(tc.xs, 0.75); q != tc.q3 {
			t.Errorf("Q3(%v) = %g, want %g", tc.xs, q, tc.q3)
		}
	}
}

func TestBoxStatsTukey(t *testing.T) {
	s := statsOf([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 100})
	// Q1 = 3.25, Q3 = 7.75, IQR = 4.5, fences −3.5 and 14.5.
	if s.q1 != 3.25 || s.q3 != 7.75 || s.lo != 1 || s.hi != 9 || len(s.out) != 1 || s.out[0] != 100 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBoxStatsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), 1, 60).Draw(t, "xs")
		slices.Sort(xs)
		s := statsOf(xs)
		if !(s.min <= s.lo && s.lo <= s.q1 && s.q1 <= s.med && s.med <= s.q3 && s.q3 <= s.hi && s.hi <= s.max) {
			t.Fatalf("order broken: %+v", s)
		}
		iqr := s.q3 - s.q1
		below, out := 0, 0
		for _, x := range xs {
			if x <= s.med {
				below++
			}
			if x < s.q1-1.5*iqr || x > s.q3+1.5*iqr {
				out++
			} else if x < s.lo || x > s.hi {
				t.Fatalf("%g inside the fences but outside the whiskers %+v", x, s)
			}
		}
		if 2*below < len(xs) {
			t.Fatalf("only %d of %d values ≤ median %g", below, len(xs), s.med)
		}
		if out != len(s.out) {
			t.Fatalf("%d values beyond the fences, %d outliers", out, len(s.out))
		}
	})
}

func checkTicks(t interface{ Fatalf(string, ...any) }, name string, lo, hi float64, ticks []gplot.Tick, minLabels int) {
	labels := 0
	prev := math.Inf(-1)
	for _, tk := range ticks {
		if tk.Value < lo || tk.Value > hi {
			t.Fatalf("%s(%g, %g): tick %g outside", name, lo, hi, tk.Value)
		}
		if tk.Value <= prev {
			t.Fatalf("%s(%g, %g): ticks not increasing at %g", name, lo, hi, tk.Value)
		}
		prev = tk.Value
		if tk.Label != "" {
			labels++
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-6*math.Max(math.Abs(tk.Value), math.Abs(hi-lo)) {
				t.Fatalf("%s(%g, %g): label %q for %g", name, lo, hi, tk.Label, tk.Value)
			}
		}
	}
	if labels < minLabels || labels > 12 {
		t.Fatalf("%s(%g, %g): %d labels", name, lo, hi, labels)
	}
}

func TestLinTicks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Float64Range(-1e5, 1e5).Draw(t, "lo")
		width := math.Pow(10, rapid.Float64Range(-4, 6).Draw(t, "log width"))
		hi := lo + width
		if hi == lo {
			return
		}
		checkTicks(t, "linTicks", lo, hi, ticksOf(linTicks{}, lo, hi), 3)
	})
	got := ticksOf(linTicks{}, -0.05, 1.05)
	var labels []string
	for _, tk := range got {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := "0.0 0.2 0.4 0.6 0.8 1.0"; join(labels) != want {
		t.Fatalf("linTicks(-0.05, 1.05) labels %q, want %q", join(labels), want)
	}
}

func TestLogTicks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := math.Pow(10, rapid.Float64Range(-12, 12).Draw(t, "log lo"))
		hi := lo * math.Pow(10, rapid.Float64Range(0.1, 20).Draw(t, "decades"))
		checkTicks(t, "logTicks", lo, hi, ticksOf(logTicks{}, lo, hi), 2)
	})
	var labels []string
	for _, tk := range ticksOf(logTicks{}, 0.5, 3000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := "1 10 100 1000"; join(labels) != want {
		t.Fatalf("logTicks(0.5, 3000) labels %q, want %q", join(labels), want)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func FuzzTicks(f *testing.F) {
	f.Add(0.0, 1.0)
	f.Add(-3.5, 1e6)
	f.Add(1e-300, 1e300)
	f.Add(5e-324, 1e-323)
	f.Fuzz(func(t *testing.T, lo, hi float64) {
		// Neither ticker may panic or flood on any input.
		if n := len(ticksOf(linTicks{}, lo, hi)); n > 500 {
			t.Fatalf("linTicks(%g, %g): %d ticks", lo, hi, n)
		}
		if n := len(ticksOf(logTicks{}, lo, hi)); n > 9*700 {
			t.Fatalf("logTicks(%g, %g): %d ticks", lo, hi, n)
		}
	})
}

func ticksOf(tk gplot.Ticker, lo, hi float64) []gplot.Tick { return tk.Ticks(lo, hi) }
