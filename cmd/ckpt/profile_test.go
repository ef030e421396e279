package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const drdTasks = "../../../shared/data/slant/drd-tasks"

func TestReserveProfileJSON(t *testing.T) {
	out, errOut, code := run(t, "", "reserve", "--profile", "slant", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Algorithm    string  `json:"algorithm"`
		Expected     float64 `json:"expected_reservation_time"`
		Weighted     float64 `json:"expected_weighted_memory"`
		Reservations []struct {
			Length float64 `json:"length"`
			Mem    float64 `json:"mem"`
			Time   string  `json:"sbatch_time"`
		} `json:"reservations"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Algorithm != "mem-all-ckpt" || len(p.Reservations) < 2 || p.Reservations[0].Mem != 50 || p.Reservations[1].Mem != 10 {
		t.Fatalf("unexpected plan %+v", p)
	}
	// The expected time lies between the mean walltime (7157 s) and the
	// single reservation covering the whole support.
	if !(p.Expected > 7157 && p.Expected < 7157+6*817) || !(p.Weighted > 25.7 && p.Weighted < 50) {
		t.Fatalf("expected time %v, weighted memory %v", p.Expected, p.Weighted)
	}
}

func TestReserveTasksAndSbatch(t *testing.T) {
	if _, err := os.Stat(drdTasks); err != nil {
		t.Skip(err)
	}
	out, errOut, code := run(t, "", "reserve", "--tasks", drdTasks, "--mem-strategy", "mem-all-ckpt-v2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "88 runs") || !strings.Contains(out, "sbatch --mem") || !strings.Contains(out, "strategy: mem-all-ckpt-v2") {
		t.Fatalf("output:\n%s", out)
	}
	// NEURO is priced under the fitted model too (no NaN in the JSON).
	out, errOut, code = run(t, "", "reserve", "--tasks", drdTasks, "--mem-strategy", "neuro", "--mem-margin", "0.1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Expected     float64 `json:"expected_reservation_time"`
		Reservations []struct {
			Mem float64 `json:"mem"`
		} `json:"reservations"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	// 1.1 × the largest task-5 peak of the 88 runs (47.99 GiB = 51.53 GB).
	if len(p.Reservations) != 1 || p.Reservations[0].Mem < 56.6 || p.Reservations[0].Mem > 56.8 || !(p.Expected > 7000) {
		t.Fatalf("NEURO plan %+v", p)
	}
	out, errOut, code = run(t, "", "reserve", "--profile", "macruise", "--sbatch", "job.sh")
	if code != 0 || !strings.Contains(out, "--mem=7153M") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
}

func TestReserveProfileBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: -1\n"), 0o644)
	missing := filepath.Join(dir, "runs")
	os.MkdirAll(filepath.Join(missing, "1"), 0o755)
	os.WriteFile(filepath.Join(missing, "1", "task1.csv"), []byte("0, 1\n2, 2\n"), 0o644)
	os.WriteFile(filepath.Join(missing, "1", "task3.csv"), []byte("0, 1\n2, 2\n"), 0o644)
	back := filepath.Join(dir, "back")
	os.MkdirAll(filepath.Join(back, "7"), 0o755)
	os.WriteFile(filepath.Join(back, "7", "task1.csv"), []byte("0, 1\n4, 2\n2, 3\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", bad}, "bad.yaml:3: task 1: mem -1 GB is negative"},
		{[]string{"--tasks", missing}, "phase 2 is missing"},
		{[]string{"--tasks", back}, "task1.csv:3: timestamp 2 does not follow 4"},
		{[]string{"--profile", "slant", "--tasks", missing}, "not both"},
		{[]string{"--profile", "slant", "--ckpt", "60"}, "--ckpt does not apply"},
		{[]string{"--profile", "slant", "--mem-strategy", "nope"}, "--mem-strategy"},
		{[]string{"--profile", "slant", "--mem-strategy", "neuro"}, "needs past runs"},
		{[]string{"--profile", "macruise", "--mem-strategy", "mem-all-ckpt-v2"}, "not defined"},
	} {
		out, errOut, code := run(t, "", append([]string{"reserve"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", c.args, code, out, errOut, c.want)
		}
	}
}
