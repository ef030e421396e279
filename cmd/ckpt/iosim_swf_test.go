package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/trace"
)

func TestIOSimRunWritesSWF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.swf")
	if _, errb, code := run(t, "", "iosim", "run", "--seeds", "1", "--seed", "9", "--strategies", "least-waste", "--swf", p); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, jobs, err := trace.ReadSWF(f, p)
	if err != nil || len(jobs) == 0 || h.MaxJobs != int64(len(jobs)) {
		t.Fatalf("%d jobs, MaxJobs %d, %v", len(jobs), h.MaxJobs, err)
	}
	if _, errb, code := run(t, "", "iosim", "run", "--seeds", "1", "--swf", filepath.Join(t.TempDir(), "no", "w.swf")); code != 2 || !strings.Contains(errb, "--swf") {
		t.Fatalf("bad path: exit %d, %q", code, errb)
	}
}
