package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/ckpt-hpc/ckpt", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := formatVersion(bi), "ckpt v1.2.3 (revision 0123abcd+modified, 2026-01-02T03:04:05Z, go1.26.0)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	bare := &debug.BuildInfo{}
	if got, want := formatVersion(bare), "ckpt (devel) (revision unknown)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestVersionFlag(t *testing.T) {
	out, errOut, code := run(t, "", "--version")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "ckpt ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The binary built by TestMain carries the checkout's revision, which
	// git reports independently (when the go command stamped it).
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v (not a git checkout?)", err)
	}
	bin, err := exec.Command(ckptBin(t), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(bin), "revision unknown") {
		// GOFLAGS=-buildvcs=false, or a git worktree (whose .git is a
		// file, which the go command does not stamp).
		t.Skipf("binary built without VCS information: %q", bin)
	}
	if rev := strings.TrimSpace(string(head)); !strings.Contains(string(bin), "revision "+rev) {
		t.Errorf("ckpt --version = %q, want revision %s", bin, rev)
	}
}
