package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseSeconds(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{"3600", 3600}, {" 42.5 ", 42.5}, {"1e3", 1000}, {"90m", 5400}, {"2h", 7200},
		{"1h30m", 5400}, {"250ms", 0.25}, {"1.5d", 129600}, {"-5", -5}, {"0", 0},
	}
	for _, c := range cases {
		got, err := ParseSeconds(c.in)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "NaN", "inf", "abc", "2x", "h", "d", "1.2.3h"} {
		if _, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", bad)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	cases := map[float64]string{0.5: "0.500s", 45: "45.0s", 750: "12m30s", 11100: "3h05m", 187200: "2d04h", -60: "-1m00s"}
	for in, want := range cases {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q; want %q", in, got, want)
		}
	}
}

func TestSlurmTime(t *testing.T) {
	cases := map[float64]string{60: "00:01:00", 61: "00:02:00", 5400: "01:30:00", 90000: "1-01:00:00", 0: "00:00:00"}
	for in, want := range cases {
		if got := SlurmTime(in); got != want {
			t.Errorf("SlurmTime(%v) = %q; want %q", in, got, want)
		}
	}
}

func TestParseYears(t *testing.T) {
	if v, err := ParseSeconds("2y"); err != nil || v != 2*365*86400 {
		t.Errorf("2y = %v, %v", v, err)
	}
	if _, err := ParseSeconds("xy"); err == nil {
		t.Error("xy accepted")
	}
}

// Huge values must not overflow the int64 conversions into negative or
// garbage text (exponential:rate=1e-300 once printed "-384307168202282325d-8h").
func TestFormattersOnHugeValues(t *testing.T) {
	for _, v := range []float64{1e10, 1e15, 3.3e22, 1e300, math.MaxFloat64} {
		got := FormatSeconds(v)
		var d, h int64
		if _, err := fmt.Sscanf(got, "%dd%dh", &d, &h); err == nil {
			// Days and hours, rounded to the hour.
			if d < 0 || h < 0 || h > 23 || math.Abs(float64(d)*86400+float64(h)*3600-v) > 1800+v*1e-15 {
				t.Errorf("FormatSeconds(%g) = %q", v, got)
			}
		} else if back, err := strconv.ParseFloat(strings.TrimSuffix(got, "s"), 64); err != nil && !math.IsInf(back, 1) || err == nil && math.Abs(back-v) > 1e-3*v {
			t.Errorf("FormatSeconds(%g) = %q reads back as %v, %v", v, got, back, err)
		}
		if got := FormatSeconds(-v); got != "-"+FormatSeconds(v) {
			t.Errorf("FormatSeconds(%g) = %q", -v, got)
		}
		if s := SlurmTime(v); strings.HasPrefix(s, "-") || strings.Count(s, "-") > 1 || strings.Contains(s, ":-") {
			t.Errorf("SlurmTime(%g) = %q", v, s)
		}
	}
	for v, want := range map[float64]string{1e300: "1e+300s", 1e10: "115740d18h", 1e15: "11574074074d02h"} {
		if got := FormatSeconds(v); got != want {
			t.Errorf("FormatSeconds(%g) = %q, want %q", v, got, want)
		}
	}
	// 1e10 s = 166 666 667 minutes (rounded up) = 115 740 days 17 h 47 min.
	if got := SlurmTime(1e10); got != "115740-17:47:00" {
		t.Errorf("SlurmTime(1e10) = %q", got)
	}
	if got := SlurmTime(60 * MaxSlurmMinutes); got != "2982616-04:13:00" {
		t.Errorf("SlurmTime(max) = %q", got)
	}
	for _, v := range []float64{1e300, math.Inf(1), 60 * (MaxSlurmMinutes + 1)} {
		if got := SlurmTime(v); got != "INFINITE" {
			t.Errorf("SlurmTime(%g) = %q, want INFINITE", v, got)
		}
	}
	for _, v := range []float64{math.NaN(), -5, math.Inf(-1)} {
		if got := SlurmTime(v); got != "00:00:00" {
			t.Errorf("SlurmTime(%v) = %q", v, got)
		}
	}
}
