package units

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

func TestParseSecondsSlurmForms(t *testing.T) {
	for in, want := range map[string]float64{
		"05:30":        330,
		"01:30:00":     5400,
		"100:00:00":    360000,
		"2-00":         2 * 86400,
		"1-12":         86400 + 12*3600,
		"1-02:03":      86400 + 2*3600 + 3*60,
		"3-04:05:06":   3*86400 + 4*3600 + 5*60 + 6,
		"0-00:00:01":   1,
		"1.5h":         5400,
		"2d":           172800,
		"-90m":         -5400,
		" 00:10:00 ":   600,
		"1e3":          1000,
		"0.5y":         Year / 2,
		"1h30m":        5400,
		"00:00:00":     0,
		"999999999:00": 999999999 * 60,
	} {
		got, err := ParseSeconds(in)
		if err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1:2:3:4", "1-25", "1-00:60", "00:60", "1:-2", "-1:00", "a:b", "1-", "1--2", ":30",
		"1e301y", "1e308d", "NaN", "Inf", "-Inf", "", "1x", "1-00:00:00:00", "1234567890:00"} {
		if v, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) = %v, want an error", in, v)
		}
	}
}

// The Slurm clock forms the history readers met (trace.ReadHistory's
// former parseClock): the seconds may carry a fraction, as sacct's
// TotalCPU prints them; everything else stays refused.
func TestParseSecondsHistoryClockForms(t *testing.T) {
	for in, want := range map[string]float64{"02:05:13": 7513, "1-01:02:03": 90123, "05:06": 306, "00:00:01.5": 1.5,
		"2-00": 172800, "1-02:30": 95400, "00:59:59": 3599, "100:00:00": 360000, "05:00.5": 300.5, "1-00:00:59.250": 86459.25} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1:2:3:4", "00:60:00", "00:00:60", "00:00:60.5", "-1:00:00", "a:00", "1-", "x-01:00:00", "01:1e3",
		"00:-5", "1:+5", "01:02:0x1p3", "1-2-03:00:00", "INVALID", "UNLIMITED", "05:00.", "05:.5", "05:00.5.5", "1.5:00",
		"1-02.5", "05:00.-5", "05:00.1e3", "05:00.1234567890", "1-24:00:00"} {
		if v, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) = %v, want an error", in, v)
		}
	}
}

// SlurmTime's output reads back as its whole minutes: the plan's --time
// and ckpt's own input agree.
func TestSlurmTimeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sec := rapid.Float64Range(1e-3, 1e9).Draw(t, "sec")
		s := SlurmTime(sec)
		got, err := ParseSeconds(s)
		if err != nil {
			t.Fatalf("ParseSeconds(SlurmTime(%v) = %q): %v", sec, s, err)
		}
		if want := 60 * math.Ceil(sec/60-1e-9); got != want {
			t.Fatalf("ParseSeconds(%q) = %v, want %v", s, got, want)
		}
	})
}

func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"3600", "90m", "1.5h", "2d", "1y", "01:30:00", "1-02:03:04", "05:30", "1e301y", "-1s", "1:2", "2d04h", "1.5e3s", "-1d00h30m", "-2d-4h", "2d+4h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSeconds(s)
		if err != nil {
			if strings.Count(err.Error(), "\n") > 0 {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("ParseSeconds(%q) = %v", s, v)
		}
		checkDaysAnd(t, s, v)
	})
}

// checkDaysAnd: a parsed "[-]<digits>d<rest>" is the days plus what rest
// reads alone, a non-negative duration, with the sign applied to both.
func checkDaysAnd(t *testing.T, s string, v float64) {
	u, neg := strings.CutPrefix(strings.TrimSpace(s), "-")
	d, rest, ok := strings.Cut(u, "d")
	if !ok || rest == "" || d == "" || strings.Trim(d, "0123456789") != "" {
		return
	}
	days, err := ParseSeconds(d + "d")
	if err != nil {
		t.Fatalf("%q parsed as %v, but its days %q do not", s, v, d+"d")
	}
	r, err := ParseSeconds(rest)
	if err != nil || r < 0 {
		t.Fatalf("%q parsed as %v, but its duration %q reads as %v, %v", s, v, rest, r, err)
	}
	want := days + r
	if neg {
		want = -want
	}
	// rest goes through time.ParseDuration, which keeps whole nanoseconds.
	if math.Abs(v-want) > 1e-9+1e-15*math.Abs(want) {
		t.Fatalf("%q parsed as %v, want %v (days %v, duration %v)", s, v, want, days, r)
	}
}

func TestSecondsAndBandwidthInConfigs(t *testing.T) {
	var y struct {
		A Seconds   `yaml:"a"`
		B Seconds   `yaml:"b"`
		C Seconds   `yaml:"c"`
		W Bandwidth `yaml:"w"`
		X Bandwidth `yaml:"x"`
	}
	if err := yaml.Unmarshal([]byte("a: 24h\nb: 600\nc: '1-00:00:00'\nw: 20GB/s\nx: 4e10\n"), &y); err != nil {
		t.Fatal(err)
	}
	if y.A != 86400 || y.B != 600 || y.C != 86400 || y.W != 20e9 || y.X != 4e10 {
		t.Fatalf("yaml: %+v", y)
	}
	var j struct {
		A Seconds   `json:"a"`
		B Seconds   `json:"b"`
		W Bandwidth `json:"w"`
	}
	if err := json.Unmarshal([]byte(`{"a":"00:10:00","b":90,"w":"1.5TB/s"}`), &j); err != nil {
		t.Fatal(err)
	}
	if j.A != 600 || j.B != 90 || j.W != 1.5e12 {
		t.Fatalf("json: %+v", j)
	}
	for _, bad := range []string{`{"a":true}`, `{"a":"soon"}`, `{"w":"fast"}`, `{"w":[1]}`} {
		if err := json.Unmarshal([]byte(bad), &j); err == nil {
			t.Errorf("json %s accepted", bad)
		}
	}
	if err := yaml.Unmarshal([]byte("a: 1e301y\n"), &y); err == nil {
		t.Error("yaml 1e301y accepted")
	}
}

func TestParseBandwidthOverflow(t *testing.T) {
	for _, s := range []string{"1e308PB/s", "1e300P", "NaN", "GB/s", ""} {
		if v, err := ParseBandwidth(s); err == nil {
			t.Errorf("ParseBandwidth(%q) = %v, want an error", s, v)
		}
	}
}

func TestSecondsAndBandwidthMarshalNumbers(t *testing.T) {
	b, err := json.Marshal(struct {
		S Seconds   `json:"s"`
		B Bandwidth `json:"b"`
	}{5400, 2e10})
	if err != nil || string(b) != `{"s":5400,"b":20000000000}` {
		t.Fatalf("got %s, %v", b, err)
	}
	var back struct {
		S Seconds   `json:"s"`
		B Bandwidth `json:"b"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.S != 5400 || back.B != 2e10 {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if _, err := json.Marshal(Seconds(math.Inf(1))); err == nil {
		t.Fatal("Inf seconds marshalled")
	}
}
