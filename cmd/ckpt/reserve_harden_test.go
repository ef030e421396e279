package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/reservation"
)

// Flags that would be ignored are refused with a usage error naming them.
func TestReserveRefusesIgnoredFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reserve", "--evaluate", ""}, "--evaluate"},
		{[]string{"reserve", "--n", "3000", "--epsilon", "0.01"}, "--epsilon"},
		{[]string{"reserve", "--n", "3000", "--max-n", "100"}, "--max-n"},
		{[]string{"reserve", "--column", "x"}, "--column"},
		{[]string{"reserve", "--fit", "gamma"}, "--fit"},
		{[]string{"reserve", "--evaluate", "100h", "--strategy", "no-ckpt"}, "--strategy"},
		{[]string{"reserve", "--all", "--json"}, "--all"},
		{[]string{"reserve", "--strategy", "dp"}, "dyn-prog-count"},
		{[]string{"reserve", "sweep", "--epsilon", "1,1"}, "twice"},
		{[]string{"reserve", "sweep", "--ckpt", "1m,1m"}, "twice"},
		{[]string{"reserve", "sweep", "--ckpt", "1m,"}, "empty"},
		{[]string{"reserve", "sweep", "--json", "--csv", "x.csv"}, "--json"},
		{[]string{"reserve", "sweep", "--fit", "gamma"}, "--fit"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s", tc.args, code, errOut, tc.want)
		}
	}
}

// The caps: --n beyond MaxGridPoints, --max-tau beyond MaxTauLimit, and an
// empirical law with more distinct values than the planner takes.
func TestReserveCaps(t *testing.T) {
	for _, args := range [][]string{
		{"reserve", "--n", fmt.Sprint(reservation.MaxGridPoints + 1)},
		{"reserve", "--max-tau", fmt.Sprint(reservation.MaxTauLimit + 1)},
	} {
		if _, errOut, code := run(t, "", args...); code != 2 || !strings.Contains(errOut, "must be") {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
	var b strings.Builder
	for i := range reservation.MaxDistinctValues + 1 {
		fmt.Fprintf(&b, "%d\n", 1000+i)
	}
	start := time.Now()
	_, errOut, code := run(t, b.String(), "reserve", "--history", "-", "--fit", "empirical")
	if code != 2 || !strings.Contains(errOut, "distinct values") {
		t.Errorf("%d distinct runs: exit %d, %q", reservation.MaxDistinctValues+1, code, errOut)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refusal took %v", d)
	}
}

// Scaling alpha by 1e200 or 1e-200 keeps the plan and scales its costs:
// before normalisation both gave wrong plans, "certified".
func TestReserveAlphaScale(t *testing.T) {
	t.Parallel()
	plan := func(alpha string) planOut {
		out, errOut, code := run(t, "", "reserve", "--alpha", alpha, "--n", "2000", "--json")
		if code != 0 {
			t.Fatalf("--alpha %s: exit %d: %s", alpha, code, errOut)
		}
		return decodePlan(t, out)
	}
	ref := plan("1")
	for _, k := range []float64{1e200, 1e-200} {
		got := plan(fmt.Sprint(k))
		if len(got.Reservations) != len(ref.Reservations) {
			t.Fatalf("alpha %g: %d reservations, want %d", k, len(got.Reservations), len(ref.Reservations))
		}
		for i := range ref.Reservations {
			if got.Reservations[i] != ref.Reservations[i] {
				t.Fatalf("alpha %g: reservation %d %+v, want %+v", k, i+1, got.Reservations[i], ref.Reservations[i])
			}
		}
		for _, p := range [][2]float64{{got.ExpectedCost, ref.ExpectedCost}, {got.LowerBound, ref.LowerBound}, {got.OmniscientCost, ref.OmniscientCost}} {
			if math.Abs(p[0]/k-p[1]) > 1e-12*p[1] {
				t.Errorf("alpha %g: cost %v, want %v x alpha", k, p[0], p[1])
			}
		}
	}
	if _, errOut, code := run(t, "", "reserve", "--alpha", "1e305"); code == 0 || strings.Contains(errOut, "certified") {
		t.Errorf("alpha 1e305: exit %d %q", code, errOut)
	}
}

// Ctrl-C (the command's context) stops a long plan within about a second.
func TestReserveCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	start := time.Now()
	code := execute(ctx, []string{"reserve", "--n", fmt.Sprint(reservation.MaxGridPoints)}, strings.NewReader(""), &out, &errb)
	if d := time.Since(start); d > slow*1500*time.Millisecond {
		t.Errorf("returned after %v, cancelled at 300ms", d)
	}
	if code != 1 || !strings.Contains(errb.String(), context.Canceled.Error()) || out.Len() != 0 {
		t.Errorf("exit %d, stdout %d bytes, stderr %q", code, out.Len(), errb.String())
	}
}

// Every duration flag takes the shared grammar: Slurm's clock too.
func TestReserveDurationGrammar(t *testing.T) {
	t.Parallel()
	a, _, c1 := run(t, "", "reserve", "--ckpt", "00:10:00", "--restart", "10:00", "--n", "500", "--json", "--no-baselines")
	b, _, c2 := run(t, "", "reserve", "--ckpt", "600", "--restart", "600", "--n", "500", "--json", "--no-baselines")
	if c1 != 0 || c2 != 0 || a != b {
		t.Errorf("--ckpt 00:10:00 differs from --ckpt 600 (exit %d, %d)", c1, c2)
	}
	_, _, code := run(t, "", "reserve", "--evaluate", "20:00:00:ckpt,40:00:00,80:00:00,1000:00:00", "--no-baselines")
	if code != 0 {
		t.Errorf("--evaluate with Slurm clocks: exit %d", code)
	}
}

// Binary garbage as --history: one short line naming the file and line.
func TestReserveBinaryHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.bin")
	if err := os.WriteFile(path, bytes.Repeat([]byte("abc\x00\x01\xff\xfe"), 60), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "", "reserve", "--history", path)
	if code != 2 || !strings.Contains(errOut, path+":1:") || len(errOut) > len(path)+120 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// The sweep's --json writes JSON lines on stdout.
func TestReserveSweepJSON(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "", "reserve", "sweep", "--dist", "uniform:a=0,b=10h", "--ckpt", "1m,10m", "--json", "--workers", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["ckpt"] == nil {
			t.Errorf("line %q: %v", l, err)
		}
	}
}

// sacct histories: a COMPLETED job of ElapsedRaw 0 is skipped with a
// warning that counts it; the fixed-width layout is named.
func TestReserveSacctHistory(t *testing.T) {
	in := "JobID|State|ElapsedRaw\n1|COMPLETED|0\n2|COMPLETED|3600\n3|COMPLETED|7200\n4|COMPLETED|5400\n"
	_, errOut, code := run(t, in, "reserve", "--history", "-", "--fit", "empirical", "--json")
	if code != 0 || !strings.Contains(errOut, "stdin: skipped 1 elapsed time 0") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	in = "JobID      State      ElapsedRaw\n------------ ---------- ----------\n1 COMPLETED 100\n"
	if _, errOut, code := run(t, in, "reserve", "--history", "-"); code != 2 || !strings.Contains(errOut, "--parsable2") {
		t.Errorf("fixed-width sacct: exit %d, stderr %q", code, errOut)
	}
}

// A sacct state that does not exist is refused (it used to skip every
// COMPLETED run silently), in reserve and in chain history alike.
func TestReserveRefusesUnknownSacctState(t *testing.T) {
	in := "JobID|State|ElapsedRaw\n1|COMPLETED|3600\n2|COMPLETED|7200\n3|TIMEOUT|9000\n"
	for _, args := range [][]string{
		{"reserve", "--history", "-", "--states", "BOGUS"},
		{"reserve", "--history", "-", "--censored", "TIMEOUT,NOPE"},
		{"chain", "history", "-", "--states", "BOGUS"},
	} {
		out, errOut, code := run(t, in, args...)
		bad := args[len(args)-1]
		if code != 2 || out != "" || !strings.Contains(errOut, "is not a Slurm job state") || !strings.Contains(errOut, strings.Split(bad, ",")[len(strings.Split(bad, ","))-1]) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// Known states in any case still work.
	if _, errOut, code := run(t, in, "reserve", "--history", "-", "--states", "completed", "--fit", "empirical", "--no-baselines"); code != 0 {
		t.Errorf("--states completed: exit %d, %s", code, errOut)
	}
}

// --n fixes the grid of a continuous law; an empirical law is planned
// exactly on its values, so --n (which it used to ignore: --n 100 and
// --n 1000 gave the same plan) is refused.
func TestReserveRefusesGridForEmpiricalLaw(t *testing.T) {
	runs := "3600\n5400\n7200\n9000\n"
	for _, n := range []string{"100", "1000"} {
		out, errOut, code := run(t, runs, "reserve", "--history", "-", "--fit", "empirical", "--n", n)
		if code != 2 || out != "" || !strings.Contains(errOut, "--n") || !strings.Contains(errOut, "discrete law") {
			t.Errorf("--n %s: exit %d, stdout %q, stderr %q", n, code, out, errOut)
		}
	}
	if _, errOut, code := run(t, "", "reserve", "--dist", "discrete:1h@0.5,2h@0.5", "--n", "100"); code != 2 || !strings.Contains(errOut, "--n") {
		t.Errorf("discrete spec with --n: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, runs, "reserve", "--history", "-", "--fit", "empirical"); code != 0 {
		t.Errorf("empirical without --n: exit %d, %s", code, errOut)
	}
}

// A missing input file is a usage error (exit 2) naming it.
func TestReserveMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-runs.txt")
	for _, args := range [][]string{
		{"reserve", "--history", missing},
		{"reserve", "sweep", "--history", missing},
		{"chain", "history", missing},
	} {
		out, errOut, code := run(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, missing) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// --task-dir is the folder of per-run traces; --tasks (a count in ckpt
// array) stays a hidden alias for one release.
func TestReserveTaskDirAlias(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-runs")
	for _, flag := range []string{"--task-dir", "--tasks"} {
		_, errOut, code := run(t, "", "reserve", flag, missing)
		if code != 2 || !strings.Contains(errOut, "no-runs") {
			t.Errorf("%s: exit %d, %q", flag, code, errOut)
		}
	}
	help, _, _ := run(t, "", "reserve", "--help")
	if !strings.Contains(help, "--task-dir") || strings.Contains(help, "--tasks string") {
		t.Errorf("help shows --tasks or lacks --task-dir")
	}
}
