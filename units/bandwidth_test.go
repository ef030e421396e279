package units

import (
	"math"
	"testing"
)

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]float64{"40e9": 40e9, "40GB/s": 40e9, "40G": 40e9, "1.5TB/s": 1.5e12, "500MB/s": 5e8, "2PB/s": 2e15, " 7 ": 7} {
		got, err := ParseBandwidth(in)
		if err != nil || math.Abs(got-want) > 1e-6*want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "fast", "GB/s", "NaN", "1e400"} {
		if _, err := ParseBandwidth(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	if s := FormatBandwidth(40e9); s != "40GB/s" {
		t.Errorf("%s", s)
	}
}

func FuzzParseBandwidth(f *testing.F) {
	f.Add("40GB/s")
	f.Add("1e12")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q → %v", s, v)
		}
	})
}
