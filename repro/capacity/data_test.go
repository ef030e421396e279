package capacity

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/repro"
)

// A data folder given explicitly (--data) is the one the user asked for:
// a workload missing there fails the reproduction, naming the file, rather
// than falling back to synthetic widths; and a workload that is there but
// does not load fails it too (with or without --data), naming the file.
// Only a default data folder (no --data) that lacks the logs falls back.
func TestWorkloadsRefusedNotSkipped(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(datadir.Env, t.TempDir())
	err := Run(context.Background(), repro.Config{Dir: t.TempDir(), Quick: true, Log: io.Discard, Data: empty})
	if !errors.Is(err, datadir.ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(empty, "swf")) {
		t.Errorf("--data without the logs: %v; want an error naming the missing log", err)
	}
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "swf"), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(bad, "swf", "KIT-FH2-2016-1_CQSim-simresult.rst")
	if err := os.WriteFile(log, []byte("this is not a workload log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{bad, ""} {
		if data == "" {
			t.Setenv(datadir.Env, bad)
		}
		err := Run(context.Background(), repro.Config{Dir: t.TempDir(), Quick: true, Log: io.Discard, Data: data})
		if err == nil || !strings.Contains(err.Error(), "KIT-FH2-2016-1_CQSim-simresult.rst") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Data %q, a corrupt log: %v; want a one-line error naming it", data, err)
		}
	}
}
