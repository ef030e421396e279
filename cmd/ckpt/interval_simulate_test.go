package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/trace"
)

// The mean of `interval simulate` with exponential failures agrees with the
// closed form of `interval` (ExactWallclockExp) within its interval, and the
// per-run rows are the same bytes for 1 and 3 workers.
func TestIntervalSimulateExponential(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "simulate", "--te", "600", "--ckpt", "20", "--restart", "50", "--mtbf", "4m",
		"--strategy", "count:6", "--runs", "40000", "--seed", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	want := interval.ExactWallclockExp(600, 100, 20, 50, 240)
	mean, hw := o["mean_wallclock_s"].(float64), o["ci95_half_width_s"].(float64)
	if math.Abs(mean-want) > 2*hw || hw > 0.005*want || o["intervals"].(float64) != 6 {
		t.Errorf("mean %v ± %v, closed form %v (%s)", mean, hw, want, out)
	}
	dir := t.TempDir()
	var csvs []string
	for _, w := range []string{"1", "3"} {
		p := filepath.Join(dir, "w"+w+".csv")
		if _, errOut, code := run(t, "", "interval", "simulate", "--te", "1d", "--ckpt", "5m", "--dist", "weibull:k=0.7,lambda=5h,loc=10m",
			"--runs", "300", "--workers", w, "--csv", p); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, string(b))
	}
	if csvs[0] != csvs[1] || !strings.HasPrefix(csvs[0], "item,point,rep,seed,wallclock_s,wpr,failures,lost_s,restart_s\n") ||
		strings.Count(csvs[0], "\n") != 301 {
		t.Errorf("rows differ with the workers or lack the header:\n%.300s", csvs[0])
	}
}

// A file of failure times is replayed (the hand case of
// TestSimulateTaskByHand), and the model switches change the result.
func TestIntervalSimulateReplay(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte("3\n4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"":                            "mean wall-clock: 17 s",
		"--restart-failures=false":    "mean wall-clock: 19 s",
		"--first-restart=false":       "mean wall-clock: 15 s",
		"--checkpoint-failures=false": "mean wall-clock: 17 s",
	} {
		a := []string{"interval", "simulate", "--te", "10", "--ckpt", "1", "--restart", "2", "--failure-times", p, "--strategy", "period:5", "--runs", "1"}
		if args != "" {
			a = append(a, args)
		}
		out, errOut, code := run(t, "", a...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, %s%s, want %q", args, code, out, errOut, want)
		}
	}
}

func TestIntervalSimulateRefusals(t *testing.T) {
	for _, a := range [][]string{
		{"--te", "10", "--ckpt", "1"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "1h", "--dist", "exponential:rate=1"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "1h", "--strategy", "bogus"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "1h", "--runs", "0"},
		{"--te", "10", "--ckpt", "1", "--dist", "weibull:k=1"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "1h", "--system", "3"},
		{"--te", "10", "--ckpt", "1", "--failure-times", "/nonexistent/f"},
		// runs that could not finish are refused up front (issue 22)
		{"--te", "1d", "--ckpt", "5m", "--failures", "1e308"},
		{"--te", "1d", "--ckpt", "5m", "--failures", "3", "--strategy", "period:1e-9"},
		{"--te", "1d", "--ckpt", "5m", "--failures", "0"},
		{"--te", "1d", "--ckpt", "5m", "--failures", "3", "--strategy", "period:1e-9", "--csv", "/nonexistent/runs.csv"},
	} {
		if _, errOut, code := run(t, "", append([]string{"interval", "simulate"}, a...)...); code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q", a, code, errOut)
		}
	}
}

// Ctrl-C (the command's context) stops a long simulation within a second.
func TestIntervalSimulateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	start := time.Now()
	code := execute(ctx, []string{"interval", "simulate", "--te", "30d", "--ckpt", "1", "--mtbf", "1h", "--strategy", "count:1000",
		"--runs", "100000000"}, strings.NewReader(""), &out, &errb)
	if d := time.Since(start); d > slow*1300*time.Millisecond {
		t.Errorf("returned after %v, cancelled at 300ms", d)
	}
	if code != 1 || !strings.Contains(errb.String(), context.Canceled.Error()) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// --lanl draws from the law fitted to a LANL system (the best by AIC), and
// the policies use its mean as the MTBF.
func TestIntervalSimulateLANL(t *testing.T) {
	t.Parallel()
	path := datadirtest.ForTest(t, trace.LANLData...)
	out, errOut, code := run(t, "", "interval", "simulate", "--te", "1d", "--ckpt", "5m", "--lanl", path, "--system", "20",
		"--strategy", "young", "--runs", "200", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if f, _ := o["failures"].(string); f == "" {
		t.Errorf("failures %q", o["failures"])
	}
	if w, _ := o["mean_wpr"].(float64); !(w > 0 && w <= 1) || o["runs"].(float64) != 200 {
		t.Errorf("mean WPR %v, runs %v", o["mean_wpr"], o["runs"])
	}
	if _, errOut, code := run(t, "", "interval", "simulate", "--te", "1d", "--ckpt", "5m", "--lanl", path, "--system", "99999"); code != 2 {
		t.Errorf("unknown system: exit %d %q", code, errOut)
	}
}

// A failed stdout write is an exit 1, for the text and for --json.
func TestIntervalSimulateWriteError(t *testing.T) {
	for _, extra := range [][]string{nil, {"--json"}} {
		var errb bytes.Buffer
		args := append([]string{"interval", "simulate", "--te", "100", "--ckpt", "1", "--mtbf", "1h", "--runs", "10"}, extra...)
		code := execute(context.Background(), args, strings.NewReader(""), failingWriter{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", extra, code, errb.String())
		}
	}
}
