package supervise

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// KillStrays kills the processes whose environment matches, and only
// them: of two sleeps, the one marked dies, the other lives.
func TestKillStrays(t *testing.T) {
	marked, other := exec.Command("sleep", "60"), exec.Command("sleep", "60")
	marked.Env = append(os.Environ(), "STRAY_TEST_MARK=1")
	for _, c := range []*exec.Cmd{marked, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
	}
	killed := KillStrays(func(env []string) bool { return slices.Contains(env, "STRAY_TEST_MARK=1") })
	if len(killed) != 1 || killed[0] != marked.Process.Pid {
		t.Fatalf("killed %v, want [%d]", killed, marked.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- marked.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the marked process lives")
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("the unmarked process died: %v", err)
	}
}
