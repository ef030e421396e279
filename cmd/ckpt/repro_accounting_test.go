package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

func TestReproAccountingFlag(t *testing.T) {
	for _, args := range [][]string{
		{"repro", "reservation", "--quick", "--accounting", "authors"},
		{"repro", "cloud", "--quick", "--accounting", "nope"},
	} {
		args = append(args, "--out", t.TempDir())
		_, errb, code := run(t, "", args...)
		if code != 2 || !strings.Contains(errb, "--accounting") || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
	datadir.ForTest(t, "google2011", "gloudsim-task-traces")
	out := t.TempDir()
	if _, errb, code := run(t, "", "repro", "cloud", "--quick", "--accounting", "gloudsim", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(out, "cloud", "gloudsim-table6.csv"))
	if err != nil || !strings.Contains(string(b), "avg_wpr_authors_log") {
		t.Fatalf("gloudsim-table6.csv: %v\n%s", err, b)
	}
}
