// Package slurmtest is what the tests that submit real jobs share: the
// switch that lets them run (CKPT_SLURM_TESTS=1, which .ci/run sets once
// scripts/slurm-localhost.sh has started a local cluster) and the ckpt
// binaries their jobs run, built once per test process in a folder the
// jobs can read. Tests never submit to a cluster they were not told to
// use; told to, they fail when it does not answer. Only tests import it.
package slurmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// Need skips t unless CKPT_SLURM_TESTS=1; told to, it fails t when sinfo
// does not answer.
func Need(t testing.TB) {
	t.Helper()
	if os.Getenv("CKPT_SLURM_TESTS") != "1" {
		t.Skip("set CKPT_SLURM_TESTS=1 to submit jobs to the Slurm cluster that answers sinfo (scripts/slurm-localhost.sh starts one)")
	}
	if out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput(); err != nil {
		t.Fatalf("CKPT_SLURM_TESTS=1 but sinfo fails: %v: %s", err, out)
	}
}

// Module is the import path of ckpt's commands' module.
const Module = "github.com/ckpt-hpc/ckpt"

var (
	mu    sync.Mutex
	dir   string
	built = map[string]string{}
	fails = map[string]error{}
)

// Main runs the tests of m and removes the binaries Binary built; a
// package whose tests call Binary has TestMain call os.Exit(Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
		dir, built = "", map[string]string{}
	}
	return code
}

// Binary is the command of package pkg (an import path such as
// Module+"/cmd/ckpt-advise"), built once per test process into a folder
// every user can read and run (Slurm's jobs may run as another user).
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if b, ok := built[pkg]; ok {
		return b
	}
	if err, ok := fails[pkg]; ok {
		t.Fatal(err)
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "ckpt-slurmtest-bin")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	b := filepath.Join(dir, path.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", b, pkg).CombinedOutput(); err != nil {
		fails[pkg] = fmt.Errorf("go build %s: %v: %s", pkg, err, out)
		t.Fatal(fails[pkg])
	}
	built[pkg] = b
	return b
}

// Ckpt is the ckpt command, built once.
func Ckpt(t testing.TB) string {
	t.Helper()
	return Binary(t, Module+"/cmd/ckpt")
}
