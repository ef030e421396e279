package slurm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A cancelled Slurm command returns within a second even when it is a
// wrapper whose child holds its output open (a site's sacct script that
// runs the real one): the group is killed and the output let go.
func TestRunCancelledStopsTheWrappersChildren(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "sacct")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 100\necho late\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := run(ctx, script)
	if err == nil || out != "" {
		t.Errorf("a cancelled command answered %q, %v", out, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("run returned %v after its context ended, want within a second", d-200*time.Millisecond)
	}
}
