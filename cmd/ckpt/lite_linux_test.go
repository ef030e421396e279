package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLiteStartup compares the start-up of the lite build (go build -tags
// lite) with the full build's, 20 runs of each alternated: the process's
// CPU (user + system) and its minor page faults, of --help and of a light
// command. It runs when $CKPT_LITE_DIR names a folder holding both, as ckpt
// and ckpt-full (.ci/run builds them). The CPU is only logged: a shared
// machine's load says nothing about the code. The page faults, which the
// load does not change (the pages a process touches), are asserted: the
// lite build's below 0.7 × the full build's.
func TestLiteStartup(t *testing.T) {
	dir := os.Getenv("CKPT_LITE_DIR")
	if dir == "" {
		t.Skip("set CKPT_LITE_DIR to a folder holding the lite ckpt and ckpt-full")
	}
	bins := []string{filepath.Join(dir, "ckpt"), filepath.Join(dir, "ckpt-full")}
	for _, args := range [][]string{{"--help"}, {"interval", "--te", "441", "--ckpt", "1", "--failures", "2"}} {
		var cpu [2][]time.Duration
		var faults [2][]int64
		for range 20 {
			for i, bin := range bins {
				cmd := exec.Command(bin, args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
				}
				cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				faults[i] = append(faults[i], cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt)
			}
		}
		load, _ := os.ReadFile("/proc/loadavg")
		lc, fc, lf, ff := median(cpu[0]), median(cpu[1]), median(faults[0]), median(faults[1])
		t.Logf("ckpt %s: median CPU lite %v, full %v (%.2f); page faults lite %d, full %d (%.2f); loadavg %s",
			strings.Join(args, " "), lc, fc, float64(lc)/float64(fc), lf, ff, float64(lf)/float64(ff), strings.TrimSpace(string(load)))
		if float64(lf) >= 0.7*float64(ff) {
			t.Errorf("ckpt %s: the lite build touches %d pages, the full build %d: not below 0.7 × (does it link a heavy package? go list -deps -tags lite ./cmd/ckpt)", strings.Join(args, " "), lf, ff)
		}
	}
}

func median[T time.Duration | int64](v []T) T {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
