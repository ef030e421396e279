package supervise

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func needSh(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
}

// The one exit-status rule: the exit code, or 128 + N for signal N.
func TestStatus(t *testing.T) {
	needSh(t)
	for script, want := range map[string]int{"exit 0": 0, "exit 3": 3, "kill -TERM $$": 128 + 15, "kill -KILL $$": 128 + 9} {
		p, err := Start([]string{"sh", "-c", script}, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := p.Status(); got != want || err != nil {
			t.Errorf("%s: status %d, %v; want %d", script, got, err, want)
		}
		if Signalled(want) != strings.HasPrefix(script, "kill") {
			t.Errorf("Signalled(%d)", want)
		}
	}
	if _, err := Start([]string{"/nonexistent/app"}, nil, nil, nil); err == nil {
		t.Error("started a missing app")
	}
	if _, err := Start(nil, nil, nil, nil); err == nil {
		t.Error("started nothing")
	}
}

// alive reports whether process pid exists (and is not a zombie), for up
// to 5 s until it does not.
func goneWithin(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return true
		}
	}
	return false
}

// The application runs in its own process group, and what it leaves
// running there dies when it exits, even while holding its output open.
func TestGroupDiesWithTheApp(t *testing.T) {
	needSh(t)
	var out bytes.Buffer
	p, err := Start([]string{"sh", "-c", "sleep 60 & echo $!; exit 0"}, nil, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pg, err := syscall.Getpgid(p.cmd.Process.Pid); err == nil && pg != p.cmd.Process.Pid {
		t.Errorf("process group %d, want the app's own %d", pg, p.cmd.Process.Pid)
	}
	start := time.Now()
	if st, err := p.Status(); st != 0 || err != nil {
		t.Fatalf("status %d, %v", st, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("waited %v for the helper's output", time.Since(start))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("output %q", out.String())
	}
	if !goneWithin(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the app's helper %d outlived it", pid)
	}
}

// Kill kills the application's whole group.
func TestKill(t *testing.T) {
	needSh(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := Start([]string{"sh", "-c", "sleep 60 & echo $!; wait"}, nil, w, nil)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	p.Kill()
	if st, _ := p.Status(); st != 128+9 {
		t.Errorf("status %d, want %d", st, 128+9)
	}
	if pid == 0 || !goneWithin(pid, 5*time.Second) {
		t.Errorf("helper %d survived Kill", pid)
	}
}

// On Linux, killing the supervisor (kill -9: no code of its runs) kills
// the application: the kernel's parent-death signal.
func TestAppDiesWithTheSupervisor(t *testing.T) {
	if os.Getenv("CKPT_SUPERVISE_HELPER") == "1" {
		p, err := Start([]string{"sleep", "60"}, nil, nil, nil)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(p.cmd.Process.Pid) + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("not Linux")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep on PATH")
	}
	c := exec.Command(os.Args[0], "-test.run=^TestAppDiesWithTheSupervisor$")
	c.Env = append(os.Environ(), "CKPT_SUPERVISE_HELPER=1")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		c.Process.Kill()
		t.Fatalf("helper printed %q", line)
	}
	c.Process.Kill() // SIGKILL: the supervisor cannot clean up
	c.Wait()
	if !goneWithin(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the app %d outlived its killed supervisor", pid)
	}
}
