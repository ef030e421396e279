package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReserveSweepShardsMergeToTheUnsplitBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"reserve", "sweep", "--dist", "uniform:a=1h,b=20h", "--ckpt", "1m,6m,30m", "--restart", "6m,12m", "--epsilon", "1,2", "--max-tau", "50"}
	full, errOut, code := run(t, "", append(args, "--workers", "2")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if lines := strings.Count(full, "\n"); lines != 1+3*2*2 {
		t.Fatalf("%d lines, want a header and 12 rows:\n%s", lines, full)
	}
	one, _, _ := run(t, "", append(args, "--workers", "1")...)
	if one != full {
		t.Fatal("output depends on the number of workers")
	}
	var parts []string
	for i := range 3 {
		p := filepath.Join(dir, "part"+string(rune('0'+i))+".csv")
		if _, errOut, code := run(t, "", append(args, "--shard", string(rune('0'+i))+"/3", "--csv", p)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.csv")
	if _, errOut, code := run(t, "", append([]string{"merge", "--out", merged, "--expect", "12"}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(merged)
	if string(got) != full {
		t.Fatalf("merged shards differ from the unsplit run:\n%s\nvs\n%s", got, full)
	}
	// Losing a shard is caught.
	if _, errOut, code := run(t, "", append([]string{"merge", "--out", filepath.Join(dir, "bad.csv"), "--expect", "12"}, parts[:2]...)...); code == 0 {
		t.Fatalf("merge with a missing shard succeeded: %s", errOut)
	}
}

func TestReserveSweepBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reserve", "sweep", "--ckpt", "1m,abc"}, "abc"},
		{[]string{"reserve", "sweep", "--ckpt", "-1m"}, "-1m"},
		{[]string{"reserve", "sweep", "--epsilon", "0"}, "epsilon"},
		{[]string{"reserve", "sweep", "--shard", "3/2"}, "shard"},
		{[]string{"reserve", "sweep", "--csv", ""}, "--csv"},
		{[]string{"reserve", "sweep", "--dist", "uniform:a=2,b=1"}, "uniform"},
	} {
		out, errOut, code := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", tc.args, code, errOut, out)
		}
	}
}

func TestReserveSbatchChain(t *testing.T) {
	t.Parallel()
	js, _, code := run(t, "", "reserve", "--dist", "uniform:a=1h,b=3h", "--ckpt", "5m", "--restart", "5m", "--json", "--no-baselines")
	if code != 0 {
		t.Fatal("plan failed")
	}
	p := decodePlan(t, js)
	out, errOut, code := run(t, "", "reserve", "--dist", "uniform:a=1h,b=3h", "--ckpt", "5m", "--restart", "5m", "--no-baselines", "--sbatch", "job.sh", "--ahead", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\nsubmit "); n != len(p.Reservations) {
		t.Fatalf("%d submissions for %d reservations:\n%s", n, len(p.Reservations), out)
	}
	if _, errOut, code := run(t, "", "reserve", "--sbatch", "job.sh", "--json"); code != 2 || !strings.Contains(errOut, "--sbatch") {
		t.Errorf("--sbatch with --json: exit %d, %q", code, errOut)
	}
}

// A law of infinite mean (Pareto, alpha <= 1) still plans once truncated
// (at Q(1 - 1e-4) = 3.6e8 s here: at the default 1e-7 it would reach
// 2e12 s, beyond the limit), says so on stderr, and its JSON stays valid.
func TestReserveInfiniteMeanLaw(t *testing.T) {
	js, errOut, code := run(t, "", "reserve", "--dist", "pareto:xm=1h,alpha=0.8", "--tail-mass", "1e-4", "--json", "--no-baselines", "--max-n", "3000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "infinite mean") || !strings.Contains(errOut, "truncated") {
		t.Errorf("no warning about the infinite mean: %q", errOut)
	}
	p := decodePlan(t, js)
	if len(p.Reservations) == 0 || !(p.ExpectedCost > p.OmniscientCost) {
		t.Fatalf("implausible %+v", p)
	}
	if !strings.Contains(js, `"mean_s": null`) {
		t.Errorf("infinite mean not reported as null")
	}
}
