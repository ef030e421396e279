package units

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestFormatSecondsCarries: a value whose rounding reaches the next unit
// is printed in that unit (59.96 s is a minute, not "60.0s").
func TestFormatSecondsCarries(t *testing.T) {
	for in, want := range map[float64]string{
		0.9996: "1.0s", 59.96: "1m00s", 59.94: "59.9s", 3599.6: "1h00m", 3599.4: "59m59s",
		86399: "1d00h", 86369: "23h59m", 89999: "1d01h", -59.96: "-1m00s", 119.5: "2m00s",
	} {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

var (
	minSec  = regexp.MustCompile(`^(\d+)m(\d\d)s$`)
	hourMin = regexp.MustCompile(`^(\d+)h(\d\d)m$`)
	dayHour = regexp.MustCompile(`^(\d+)d(\d\d)h$`)
	plain   = regexp.MustCompile(`^(\d+(?:\.(\d+))?)(?:e([-+]\d+))?s$`)
)

// printedPrecision returns half a unit of the last field of a printed
// (non-negative) duration, and whether every field stays below its unit's
// range: seconds and minutes below 60, hours below 24, a leading field at
// least 1, and a plain "N.Ns" below a minute (or beyond 2⁵³ hours in
// scientific notation).
func printedPrecision(s string) (half float64, ok bool) {
	atoi := func(x string) int64 { n, _ := strconv.ParseInt(x, 10, 64); return n }
	if m := minSec.FindStringSubmatch(s); m != nil {
		return 0.5, atoi(m[1]) >= 1 && atoi(m[1]) < 60 && atoi(m[2]) < 60
	}
	if m := hourMin.FindStringSubmatch(s); m != nil {
		return 30, atoi(m[1]) >= 1 && atoi(m[1]) < 24 && atoi(m[2]) < 60
	}
	if m := dayHour.FindStringSubmatch(s); m != nil {
		return 1800, atoi(m[1]) >= 1 && atoi(m[2]) < 24
	}
	m := plain.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	exp := int(atoi(m[3]))
	half = 0.5 * math.Pow(10, float64(exp-len(m[2])))
	v, _ := strconv.ParseFloat(m[1], 64)
	v *= math.Pow(10, float64(exp))
	switch {
	case m[3] != "" && v >= 1: // only beyond 2⁵³ hours
		return half, v >= maxExactHours*3600*(1-1e-3)
	case m[3] == "" && len(m[2]) == 3: // "0.123s"
		return half, v < 1
	default: // "59.9s", or three significant digits below half a millisecond
		return half, v < 60
	}
}

// TestFormatSecondsReadsBack: every finite value prints in a form that
// ParseSeconds reads back to within half a unit of its last printed
// digit, with no field overflowing its unit; negatives print as "-" and the
// positive's text.
func TestFormatSecondsReadsBack(t *testing.T) {
	boundaries := []float64{0.0005, 1, 60, 3600, 86400, maxExactHours * 3600}
	rapid.Check(t, func(t *rapid.T) {
		var v float64
		if rapid.Bool().Draw(t, "nearBoundary") {
			b := rapid.SampledFrom(boundaries).Draw(t, "boundary")
			v = b * (1 + rapid.Float64Range(-1e-3, 1e-3).Draw(t, "offset"))
		} else {
			v = math.Pow(10, rapid.Float64Range(-12, 300).Draw(t, "log10"))
		}
		checkReadsBack(t, v)
	})
}

func checkReadsBack(t interface{ Fatalf(string, ...any) }, v float64) {
	s := FormatSeconds(v)
	half, ok := printedPrecision(s)
	if !ok {
		t.Fatalf("FormatSeconds(%v) = %q: a field overflows its unit or the form is unknown", v, s)
	}
	back, err := ParseSeconds(s)
	if err != nil {
		t.Fatalf("FormatSeconds(%v) = %q does not read back: %v", v, s, err)
	}
	if math.Abs(back-v) > half*(1+1e-9)+1e-12*v {
		t.Fatalf("FormatSeconds(%v) = %q reads back as %v: off by more than %v", v, s, back, half)
	}
	if n := FormatSeconds(-v); v != 0 && n != "-"+s {
		t.Fatalf("FormatSeconds(%v) = %q, want %q", -v, n, "-"+s)
	}
	if nb, err := ParseSeconds(FormatSeconds(-v)); err != nil || nb != -back {
		t.Fatalf("FormatSeconds(%v) = %q reads back as %v, %v", -v, FormatSeconds(-v), nb, err)
	}
}

// FuzzFormatSeconds: the read-back property for any float64 bit pattern;
// non-finite values print as strconv writes them and are refused.
func FuzzFormatSeconds(f *testing.F) {
	for _, v := range []float64{0, 59.96, 3599.6, 86399, 1e300, 4.2e-5, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Abs(math.Float64frombits(bits))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if s := FormatSeconds(v); s != strconv.FormatFloat(v, 'g', -1, 64) {
				t.Fatalf("FormatSeconds(%v) = %q", v, s)
			}
			if _, err := ParseSeconds(FormatSeconds(v)); err == nil {
				t.Fatalf("%q read back", FormatSeconds(v))
			}
			return
		}
		checkReadsBack(t, v)
	})
}

// TestParseDaysAnd: the compound day form and the exponent seconds form
// (closed forms), and their refusals.
func TestParseDaysAnd(t *testing.T) {
	for in, want := range map[string]float64{
		"2d04h": 2*86400 + 4*3600, "-2d04h": -(2*86400 + 4*3600), "1d00h30m": 86400 + 1800,
		"0d90m": 5400, "1.5e3s": 1500, "4.2e-05s": 4.2e-5, "-1e2s": -100, "115740d18h": 115740*86400 + 18*3600,
	} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"1.5d4h", "2d-4h", "2d+4h", "d4h", "2dh", "2d04", "2d04x", "1e400s", "NaNs", "infs", "--2d04h"} {
		if v, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) = %v, want an error", bad, v)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSeconds(%q): multi-line error", bad)
		}
	}
}

// TestFormatSecondsLargest: four digits of the values next to the largest
// float64 round above it ("1.798e+308s" would not read back); they print
// in full instead.
func TestFormatSecondsLargest(t *testing.T) {
	for _, v := range []float64{math.MaxFloat64, math.Nextafter(math.MaxFloat64, 0), 1.7975e308, 1.7974e308} {
		checkReadsBack(t, v)
	}
}
