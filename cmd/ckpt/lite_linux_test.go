package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestLiteStartup compares the start-up of the lite build (go build -tags
// lite) with the full build's: $CKPT_LITE_DIR holds both, as ckpt and
// ckpt-full (.ci/run builds them), and optionally ckpt-old (an older build,
// for a side-by-side) and empty (an empty Go program: the floor). Each
// command runs 20 rounds, the binaries alternated in a rotating order; it
// logs per binary the medians of the process CPU (user + system), of its
// minor page faults, and of the per-round CPU ratio to ckpt-full
// (min–max), with /proc/loadavg. The CPU is only logged: a shared machine's
// load says nothing about the code. The page faults, which the load does
// not change (the pages a process touches), are asserted: the lite
// build's below 0.7 × the full build's.
func TestLiteStartup(t *testing.T) {
	dir := os.Getenv("CKPT_LITE_DIR")
	if dir == "" {
		t.Skip("set CKPT_LITE_DIR to a folder holding the lite ckpt and ckpt-full")
	}
	bins := []string{"ckpt", "ckpt-full"}
	for _, b := range []string{"ckpt-old", "empty"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err == nil {
			bins = append(bins, b)
		}
	}
	for _, args := range [][]string{{"--help"}, {"interval", "--te", "441", "--ckpt", "1", "--failures", "2"}, {"iosim", "bound", "--bandwidth", "80GB/s"}} {
		const rounds = 20
		cpu, faults := make([][]float64, len(bins)), make([][]float64, len(bins))
		for r := range rounds {
			for k := range bins {
				i := (k + r) % len(bins)
				cmd := exec.Command(filepath.Join(dir, bins[i]), args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %v\n%s", bins[i], strings.Join(args, " "), err, out)
				}
				cpu[i] = append(cpu[i], float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/1e6)
				faults[i] = append(faults[i], float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt))
			}
		}
		load, _ := os.ReadFile("/proc/loadavg")
		var b strings.Builder
		for i, name := range bins {
			ratio := make([]float64, rounds)
			for r := range ratio {
				ratio[r] = cpu[i][r] / cpu[1][r]
			}
			fmt.Fprintf(&b, "\n  %-9s CPU %6.2f ms, page faults %4.0f, CPU / ckpt-full %.2f (%.2f–%.2f)", name, median(cpu[i]), median(faults[i]), median(ratio), slices.Min(ratio), slices.Max(ratio))
		}
		t.Logf("ckpt %s: median of %d rounds, loadavg %s%s", strings.Join(args, " "), rounds, strings.TrimSpace(string(load)), b.String())
		if lf, ff := median(faults[0]), median(faults[1]); lf >= 0.7*ff {
			t.Errorf("ckpt %s: the lite build touches %.0f pages, the full build %.0f: not below 0.7 × (does it link a heavy package? go list -deps -tags lite ./cmd/ckpt)", strings.Join(args, " "), lf, ff)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
