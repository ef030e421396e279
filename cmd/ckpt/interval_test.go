package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type intervalOut struct {
	ExpectedFailures float64 `json:"expected_failures"`
	MTBF             float64 `json:"mtbf"`
	Methods          map[string]struct {
		Intervals         int     `json:"intervals"`
		Period            float64 `json:"period"`
		ExpectedWallclock float64 `json:"expected_wallclock"`
	}
	StorageChoice string `json:"storage_choice"`
}

func decodeInterval(t *testing.T, s string) intervalOut {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
	var o intervalOut
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatal(err)
	}
	o.Methods = map[string]struct {
		Intervals         int     `json:"intervals"`
		Period            float64 `json:"period"`
		ExpectedWallclock float64 `json:"expected_wallclock"`
	}{}
	for _, m := range []string{"young", "daly", "mnof"} {
		v := o.Methods[m]
		if err := json.Unmarshal(raw[m], &v); err != nil {
			t.Fatalf("method %s: %v\n%s", m, err, s)
		}
		o.Methods[m] = v
	}
	return o
}

// The paper's worked examples: Te = 18 s, C = 2 s, E(Y) = 2 → 3 intervals
// of 6 s; Te = 441 s, C = 1 s, E(Y) = 2 → 21 intervals.
func TestIntervalWorkedExamples(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	o := decodeInterval(t, out)
	if m := o.Methods["mnof"]; m.Intervals != 3 || m.Period != 6 || m.ExpectedWallclock != 28 {
		t.Errorf("mnof = %+v, want 3 intervals of 6 s, E(Tw) = 18+4+6 = 28", m)
	}
	out, _, code = run(t, "", "interval", "--te", "441", "--ckpt", "1", "--failures", "2", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	o = decodeInterval(t, out)
	if m := o.Methods["mnof"]; m.Intervals != 21 || m.Period != 21 {
		t.Errorf("mnof = %+v, want 21 intervals", m)
	}
	// Corollary 1: MTBF = 441/2 and Young's period √(2·220.5) = 21.
	if m := o.Methods["young"]; m.Period != 21 || m.Intervals != 21 {
		t.Errorf("young = %+v", m)
	}
	if o.MTBF != 220.5 {
		t.Errorf("mtbf = %v", o.MTBF)
	}
}

func TestIntervalTextAndSources(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "2h", "--ckpt", "30s", "--restart", "1m", "--mtbf", "6h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"young", "daly", "mnof", "expected wall-clock"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat("../../../shared/data/google2011/gloudsim-task-traces/mix-jobTrace-dec.dat"); err != nil {
		t.Skip("real data not available")
	}
	// Table 7 of the paper: mix trace, priority 2 (file 1), tasks < 1000 s:
	// MNOF 1.06, MTBF 179.
	out, errOut, code = run(t, "", "interval", "--te", "900", "--ckpt", "2", "--json", "--priority", "1", "--max-length", "1000",
		"--trace", "../../../shared/data/google2011/gloudsim-task-traces/mix-jobTrace-dec.dat")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	o := decodeInterval(t, out)
	if o.ExpectedFailures < 1.055 || o.ExpectedFailures > 1.065 || o.MTBF < 178.5 || o.MTBF > 179.5 {
		t.Errorf("estimated E(Y) %v MTBF %v, paper 1.06 and 179", o.ExpectedFailures, o.MTBF)
	}
	out, errOut, code = run(t, "", "interval", "--te", "200", "--failures", "2", "--memory", "160", "--json",
		"--blcr", "../../../shared/data/checkpoint-costs/blcr")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if o := decodeInterval(t, out); o.StorageChoice != "local" {
		t.Errorf("storage choice %q, want local", o.StorageChoice)
	}
}

func TestIntervalBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--te", "0", "--ckpt", "1", "--failures", "1"},
		{"--te", "-5", "--ckpt", "1", "--failures", "1"},
		{"--te", "10", "--ckpt", "0", "--failures", "1"},
		{"--te", "10", "--ckpt", "-1", "--failures", "1"},
		{"--te", "10", "--ckpt", "1", "--failures", "-1"},
		{"--te", "10", "--ckpt", "1", "--failures", "NaN"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "0"},
		{"--te", "10", "--ckpt", "1"},
		{"--ckpt", "1", "--failures", "1"},
		{"--te", "abc", "--ckpt", "1", "--failures", "1"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--restart", "-1"},
		{"--te", "10", "--ckpt", "1", "--trace", "/nonexistent.dat"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--memory", "-3"},
	} {
		out, errOut, code := run(t, "", append([]string{"interval"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stdout %q)", args, code, out)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || errOut == "" {
			t.Errorf("%v: want a one-line error, got %q", args, errOut)
		}
	}
}

// A GloudSim trace with segments out of order is an input error (exit 2).
func TestIntervalBadTrace(t *testing.T) {
	dir := t.TempDir()
	bad := "jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:1 jobMeanLength=1  mkspan=3  start=0  s=2  vs=2\n" +
		"      btMeanLength=1  sTime=0  totalTaskLength=3  wclockLength=5\n        0 2.0 4.0 2.0\n        0 0.0 1.0 1.0\n"
	path := dir + "/bad.dat"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "", "interval", "--te", "10", "--ckpt", "1", "--trace", path)
	if code != 2 || !strings.Contains(errOut, "bad.dat:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
