package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReserveTransferRuns: --transfer-runs with runs whose phases all last
// exactly twice the built-in SLANT means (Table 2: 255, 871, 588, 459,
// 3050, 804, 1130 s) gives factors of 2 and a total law of mean 2·7157 s.
func TestReserveTransferRuns(t *testing.T) {
	t.Parallel()
	means := []float64{255, 871, 588, 459, 3050, 804, 1130}
	var b strings.Builder
	b.WriteString("# target machine\n")
	for range 3 {
		for i, m := range means {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(strconv.FormatFloat(2*m, 'g', -1, 64))
		}
		b.WriteString("\n")
	}
	file := filepath.Join(t.TempDir(), "knl.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "reserve", "--profile", "slant", "--transfer-runs", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Factors []float64 `json:"transfer_factors"`
		Total   string    `json:"total_walltime_law"`
		Source  string    `json:"source"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Factors) != 7 {
		t.Fatalf("factors %v", p.Factors)
	}
	for i, f := range p.Factors {
		if math.Abs(f-2) > 1e-12 {
			t.Errorf("phase %d: factor %v, want 2", i+1, f)
		}
	}
	if !strings.Contains(p.Total, "mu=14314") || !strings.Contains(p.Source, "per-phase slowdowns 2 2 2 2 2 2 2 from 3 runs") {
		t.Errorf("total %q, source %q", p.Total, p.Source)
	}
	// NEURO needs past runs: the target runs are.
	if _, errOut, code := run(t, "", "reserve", "--profile", "slant", "--transfer-runs", file, "--mem-strategy", "neuro"); code != 0 {
		t.Errorf("neuro with --transfer-runs: exit %d: %s", code, errOut)
	}
}

func TestReserveTransferRunsBad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "slant", "--transfer-runs", filepath.Join(dir, "missing")}, "--transfer-runs"},
		{[]string{"--profile", "slant", "--transfer-runs", write("three.csv", "1,2,3\n")}, "phases"},
		{[]string{"--profile", "slant", "--transfer-runs", write("bad.csv", "1,2,3,4,5,6,x\n")}, "phase 7"},
		{[]string{"--transfer-runs", write("ok.csv", "1,2,3,4,5,6,7\n")}, "applies only with --profile or --task-dir"},
	} {
		_, errOut, code := run(t, "", append([]string{"reserve"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q on one line", c.args, code, errOut, c.want)
		}
	}
}
