package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

func TestReproAccountingFlag(t *testing.T) {
	t.Parallel()
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
	datadirtest.ForTest(t, "google2011", "gloudsim-task-traces")
	out := t.TempDir()
	if _, errb, code := run(t, "", "repro", "cloud", "--quick", "--accounting", "gloudsim", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join(out, "cloud", "gloudsim-table6.csv"))
	if err != nil || !strings.Contains(string(b), "avg_wpr_authors_log") {
		t.Fatalf("gloudsim-table6.csv: %v\n%s", err, b)
	}
}

// --json: the comparisons on stdout as JSON (null where the paper gives no
// number), the tables on stderr.
func TestReproJSON(t *testing.T) {
	t.Parallel()
	out, errb, code := run(t, "", "repro", "reservation", "--quick", "--json", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("stdout is not a JSON array of comparisons: %v\n%s", err, out)
	}
	nulls := 0
	for _, r := range rows {
		if r["experiment"] == "" || r["quantity"] == "" {
			t.Fatalf("row without experiment or quantity: %v", r)
		}
		if r["paper"] == nil {
			nulls++
		}
	}
	if nulls == 0 || !strings.Contains(errb, "reproducing") {
		t.Fatalf("%d null paper values; stderr %q", nulls, errb)
	}
}
