package main

import (
	"strings"
	"testing"
)

// Without a cluster (no sinfo on PATH), ckpt repro slurm says so on one
// line and exits 1; nothing is written.
func TestReproSlurmWithoutCluster(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := t.TempDir()
	stdout, stderr, code := run(t, "", "repro", "slurm", "--quick", "--out", out)
	if code != 1 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "no Slurm cluster") {
		t.Errorf("exit %d, stdout %q, stderr %q; want one line naming the missing cluster, exit 1", code, stdout, stderr)
	}
}

// Bad values of ckpt run --scale and --start-grace are usage errors, one line.
func TestRunScaleFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--chain-dir", "x", "--reservation", "1", "--scale", "-2", "--", "true"},
		{"run", "--chain-dir", "x", "--reservation", "1", "--start-grace", "0s", "--", "true"},
	} {
		_, stderr, code := run(t, "", args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want a one-line usage error", args, code, stderr)
		}
	}
}

// --jobs-per-cell is the count of jobs per cell; its previous name, --jobs
// (a file in other commands), stays hidden for one release.
func TestReproSlurmJobsPerCell(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, flag := range []string{"--jobs-per-cell", "--jobs"} {
		_, stderr, code := run(t, "", "repro", "slurm", flag, "5", "--out", t.TempDir())
		if code != 1 || !strings.Contains(stderr, "no Slurm cluster") {
			t.Errorf("%s: exit %d, %q", flag, code, stderr)
		}
	}
	help, _, _ := run(t, "", "repro", "--help")
	if !strings.Contains(help, "--jobs-per-cell") || strings.Contains(help, "--jobs ") {
		t.Errorf("help:\n%s", help)
	}
}

// A design out of range is a usage error naming the flag, also where no
// cluster is asked (--resummarize).
func TestReproSlurmDesignFlags(t *testing.T) {
	for flag, want := range map[string]string{"--jobs-per-cell": "--jobs-per-cell 0: want at least 1", "--mix-runs": "--mix-runs -1: want 0 or more"} {
		v := "0"
		if flag == "--mix-runs" {
			v = "-1"
		}
		_, stderr, code := run(t, "", "repro", "slurm", "--resummarize", flag, v, "--out", t.TempDir())
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s %s: exit %d, %q", flag, v, code, stderr)
		}
	}
}
