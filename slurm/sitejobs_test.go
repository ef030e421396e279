package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Exec.SiteJobs runs sacct over every user's allocations of the window,
// in sacct's own time form, and passes its output through; a failing
// sacct is one error naming the window. A stand-in sacct on PATH records
// its arguments.
func TestSiteJobsCommand(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	os.WriteFile(filepath.Join(dir, "sacct"), []byte("#!/bin/sh\necho \"$@\" > "+args+"\n[ -n \"$FAIL\" ] && { echo 'sacct: error: Problem talking to the database' >&2; exit 1; }\necho 'JobID|User'\n"), 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		until time.Time
		end   string
	}{{time.Time{}, "now"}, {since.Add(36 * time.Hour), "2026-01-03T15:04:05"}} {
		out, err := Exec{}.SiteJobs(t.Context(), since, c.until)
		b, _ := os.ReadFile(args)
		want := "-a -X -P --format " + SiteSacctFormat + " -S 2026-01-02T03:04:05 -E " + c.end
		if err != nil || out != "JobID|User\n" || strings.TrimSpace(string(b)) != want {
			t.Errorf("until %v: %q, %v; sacct %s, want %s", c.until, out, err, b, want)
		}
	}
	t.Setenv("FAIL", "1")
	if _, err := (Exec{}).SiteJobs(t.Context(), since, time.Time{}); err == nil || !strings.Contains(err.Error(), "from 2026-01-02T03:04:05 to now") ||
		!strings.Contains(err.Error(), "Problem talking to the database") {
		t.Errorf("failing sacct: %v", err)
	}
}
