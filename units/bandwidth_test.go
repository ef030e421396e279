package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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

// FuzzParseBandwidth asserts the grammar's properties: an accepted value
// is finite; a bare number means bytes/s exactly as strconv reads it; a
// unit multiplies by its power of ten whichever spelling ("G", "GB",
// "GB/s"); what FormatBandwidth prints reads back within its 4 significant
// digits; a refusal is one line that quotes the input.
func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"40GB/s", "1e12", "40G", "1.5TB", "0.5kB/s", " 7 ", "GB/s", "-3MB/s", "1e308P", "NaN", "0x1p4", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q should be one line quoting the input", err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%q → %v", s, v)
		}
		if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && x != v {
			t.Fatalf("bare number %q read as %v, strconv says %v", s, v, x)
		}
		if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			for unit, mult := range map[string]float64{"k": 1e3, "MB": 1e6, "G": 1e9, "GB/s": 1e9, "TB/s": 1e12, "P": 1e15} {
				w, err := ParseBandwidth(strings.TrimSpace(s) + unit)
				if math.IsInf(x*mult, 0) {
					if err == nil {
						t.Fatalf("%q%s overflows but was accepted as %v", s, unit, w)
					}
					continue
				}
				if err != nil || w != x*mult {
					t.Fatalf("%q%s = %v, %v; want %v", s, unit, w, err, x*mult)
				}
			}
		}
		if v == 0 || math.Abs(v) >= 1e-300 {
			back, err := ParseBandwidth(FormatBandwidth(v))
			if err != nil || math.Abs(back-v) > 5e-4*math.Abs(v) {
				t.Fatalf("FormatBandwidth(%v) = %q reads back as %v, %v", v, FormatBandwidth(v), back, err)
			}
		}
	})
}

// TestParseSize: a size is a bandwidth's number and unit without "/s",
// and positive; the refusal names the value.
func TestParseSize(t *testing.T) {
	for in, want := range map[string]float64{"2TB": 2e12, "40e9": 40e9, " 1.5G ": 1.5e9, "512": 512} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"40GB/s", "0", "-1G", "", "x", "1e400"} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("ParseSize(%q): %v, want a refusal naming it", in, err)
		}
	}
}

// TestParseGBps: a bandwidth with a unit in GB/s; a bare number, which
// ckpt reserve --ckpt-bandwidth once read as GB/s and ParseBandwidth reads
// as bytes/s, is refused asking for a unit (40e9 was 4e10 GB/s).
func TestParseGBps(t *testing.T) {
	for in, want := range map[string]float64{"40GB/s": 40, "500MB/s": 0.5, "2T": 2000, " 1B/s ": 1e-9} {
		if got, err := ParseGBps(in); err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"40e9", "0.207", " 7 ", "0x1p4", "Inf", "fast", "GB/s", ""} {
		if _, err := ParseGBps(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	if _, err := ParseGBps("40e9"); err == nil || !strings.Contains(err.Error(), "give a unit, e.g. 40GB/s") {
		t.Errorf("40e9: %v", err)
	}
}
