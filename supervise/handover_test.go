package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeProg writes an executable (or, with mode 0o644, a non-executable)
// file named name in dir.
func writeProg(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// FindProgram's order: the environment variable (and a bad one is an
// error), then beside the executable, then PATH, else one error naming all
// three places.
func TestFindProgram(t *testing.T) {
	const name, env = "supervise-findprogram-test", "SUPERVISE_FINDPROGRAM_TEST"
	onPath, explicit := t.TempDir(), t.TempDir()
	t.Setenv("PATH", onPath)
	_, err := FindProgram(name, env)
	if err == nil || !strings.Contains(err.Error(), name+" not found beside ") || !strings.Contains(err.Error(), "$"+env) {
		t.Errorf("missing program: %v", err)
	}
	pathProg := writeProg(t, onPath, name, 0o755)
	if got, err := FindProgram(name, env); got != pathProg || err != nil {
		t.Errorf("on PATH: %q, %v; want %q", got, err, pathProg)
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	beside := writeProg(t, filepath.Dir(self), name, 0o755)
	defer os.Remove(beside)
	if got, err := FindProgram(name, env); got != beside || err != nil {
		t.Errorf("beside: %q, %v; want %q", got, err, beside)
	}
	chosen := writeProg(t, explicit, "any-name", 0o755)
	t.Setenv(env, chosen)
	if got, err := FindProgram(name, env); got != chosen || err != nil {
		t.Errorf("$%s: %q, %v; want %q", env, got, err, chosen)
	}
	for _, bad := range []string{writeProg(t, explicit, "not-executable", 0o644), explicit, filepath.Join(explicit, "none")} {
		t.Setenv(env, bad)
		if got, err := FindProgram(name, env); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("$%s=%q", env, bad)) {
			t.Errorf("$%s=%q: %q, %v; want an error naming it", env, bad, got, err)
		}
	}
}

// TestHandover runs this test binary as a helper that hands over to this
// test binary again, as "prog": the second process sees argv [prog,
// args...], the environment unchanged, refuses to hand over again (it runs
// as prog), and its exit status is the first process's.
func TestHandover(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(self, "-test.run=^TestHandoverHelper$")
	cmd.Env = append(os.Environ(), "HANDOVER_HELPER=1", "HANDOVER_TEST_FULL="+self, "HANDOVER_MARK=kept")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("exit %v, want status 7; output %s", err, out)
	}
	want := `argv0 prog args ["-test.run=^TestHandoverHelper$" "x y"] mark kept from ` + self + ` refused true`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("after the hand-over:\n got %s\nwant %s", got, want)
	}
}

func TestHandoverHelper(t *testing.T) {
	switch {
	case os.Getenv("HANDOVER_HELPER") == "":
		t.Skip("the helper process of TestHandover")
	case filepath.Base(os.Args[0]) == "prog":
		err := Handover("prog", "HANDOVER_TEST_FULL", nil)
		fmt.Printf("argv0 %s args %q mark %s from %s refused %v\n", os.Args[0], os.Args[1:], os.Getenv("HANDOVER_MARK"), os.Getenv(HandedOver), err != nil)
		os.Exit(7)
	}
	err := Handover("prog", "HANDOVER_TEST_FULL", []string{"-test.run=^TestHandoverHelper$", "x y"})
	fmt.Println("not handed over:", err)
	os.Exit(3)
}

// A program started by a hand-over refuses to hand over again, naming who
// handed over (a "ckpt-full" that is a wrapper of the lite ckpt), before
// it looks for the program.
func TestHandoverRefusesAfterAHandover(t *testing.T) {
	t.Setenv(HandedOver, "/opt/ckpt/bin/ckpt")
	t.Setenv("HANDOVER_TEST_NONE", "")
	err := Handover("supervise-handover-none", "HANDOVER_TEST_NONE", nil)
	if err == nil || !strings.Contains(err.Error(), "/opt/ckpt/bin/ckpt handed over") || strings.Contains(err.Error(), "not found") {
		t.Errorf("after a hand-over: %v, want a refusal naming /opt/ckpt/bin/ckpt", err)
	}
}
