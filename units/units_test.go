package units

import (
	"math"
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
