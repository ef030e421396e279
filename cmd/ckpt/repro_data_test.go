package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// --data is checked before anything runs: a folder that is not there is a
// one-line usage error naming it (exit 2), as is an empty name or --data
// for a reproduction that reads no data; nothing is written.
func TestReproDataFlagRefused(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"repro", "cloud", "--quick", "--data", missing}, missing},
		{[]string{"repro", "all", "--quick", "--data", missing}, missing},
		{[]string{"repro", "capacity", "--quick", "--data", ""}, "--data"},
		{[]string{"repro", "reservation", "--quick", "--data", t.TempDir()}, "reads no data"},
		{[]string{"repro", "slurm", "--data", t.TempDir()}, "reads no data"},
	} {
		out := t.TempDir()
		_, errb, code := run(t, "", append(c.args, "--out", out)...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q on one line", c.args, code, errb, c.want)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("%v: wrote %d entries into --out", c.args, len(ents))
		}
	}
}

// --data is the folder the reproductions read, before $CKPT_DATA: with the
// real data in --data and an empty folder in $CKPT_DATA the cloud
// reproduction runs; the other way round it fails naming the file it
// missed in the --data folder.
func TestReproDataFlagUsed(t *testing.T) {
	datadirtest.ForTest(t, "google2011", "gloudsim-task-traces")
	data, err := datadir.Find("")
	if err != nil {
		t.Fatal(err)
	}
	if data, err = filepath.Abs(data); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	t.Setenv(datadir.Env, empty)
	if _, errb, code := run(t, "", "repro", "cloud", "--quick", "--data", data, "--out", t.TempDir()); code != 0 {
		t.Fatalf("--data %s with $%s empty: exit %d: %s", data, datadir.Env, code, errb)
	}
	t.Setenv(datadir.Env, data)
	_, errb, code := run(t, "", "repro", "cloud", "--quick", "--data", empty, "--out", t.TempDir())
	if code == 0 || !strings.Contains(errb, empty) {
		t.Fatalf("--data empty with $%s the real data: exit %d, stderr %q; want a failure naming %s", datadir.Env, code, errb, empty)
	}
}
