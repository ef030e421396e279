package client

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"

	"github.com/ckpt-hpc/ckpt/coord/api"
)

// A coordinator that cannot be reached does not cost the job its
// checkpoint: the signal is forwarded, the failure logged, and the gate
// returns the app's status.
func TestGateFailsOpen(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	sig := make(chan os.Signal, 1)
	var log bytes.Buffer
	w := &readyWriter{ready: make(chan struct{})}
	go func() { <-w.ready; sig <- syscall.SIGUSR1 }()
	code, err := Gate(context.Background(), GateConfig{
		Client: &Client{Base: "http://127.0.0.1:1", Retries: -1},
		Job:    api.RegisterRequest{ID: "j", Nodes: 1, C: 1},
		App:    []string{"bash", "-c", `trap 'echo got; exit 3' USR1; echo ready; while :; do sleep 0.05; done`},
		Stdout: w, Stderr: os.Stderr, Signals: sig, Log: &log})
	if err != nil || code != 3 || !strings.Contains(log.String(), "without the coordinator") {
		t.Fatalf("code %d, err %v, log %q", code, err, log.String())
	}
}

// readyWriter closes ready at the app's first output (its handler is set).
type readyWriter struct {
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ready) })
	return len(p), nil
}

// A grant that does not come within MaxWait (another job holds the file
// system for an hour) does not cost the job its checkpoint: the gate
// withdraws its request on the coordinator and forwards the signal.
func TestGateMaxWait(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	_, url := startServer(t, "ordered", 3600)
	ctx := context.Background()
	c := &Client{Base: url, Token: "tok", PollInterval: 20 * time.Millisecond}
	holder := NewJobToken()
	c.Register(ctx, api.RegisterRequest{ID: "holder", Nodes: 1, C: 1, MTBF: 1e5, JobToken: holder})
	if g, err := c.Acquire(ctx, "holder", holder, api.AcquireRequest{RequestID: "h"}); err != nil || g.Status != coord.StatusGranted {
		t.Fatal(g, err)
	}
	sig := make(chan os.Signal, 1)
	var log bytes.Buffer
	w := &readyWriter{ready: make(chan struct{})}
	go func() { <-w.ready; sig <- syscall.SIGUSR1 }()
	t0 := time.Now()
	code, err := Gate(ctx, GateConfig{Client: c, Job: api.RegisterRequest{ID: "late", Nodes: 1, C: 1, MTBF: 1e5},
		App:    []string{"bash", "-c", `trap 'echo got; exit 3' USR1; echo ready; while :; do sleep 0.05; done`},
		Stdout: w, Stderr: os.Stderr, Signals: sig, Log: &log, MaxWait: 300 * time.Millisecond})
	if took := time.Since(t0); err != nil || code != 3 || took < 300*time.Millisecond || took > 10*time.Second {
		t.Fatalf("code %d, err %v after %v; log %q", code, err, took, log.String())
	}
	if !strings.Contains(log.String(), "no grant within 300ms") {
		t.Errorf("log %q", log.String())
	}
	if st, _ := c.Status(ctx); st.Waiting != 0 || st.Holders != 1 {
		t.Errorf("after the gate gave up: %d waiting, %d holders", st.Waiting, st.Holders)
	}
}

// The gate supervises the app as the Slurm runner does (package
// supervise): ended by the gate's context, the app's status is 128 +
// SIGTERM, what it started dies with it, and an app that cannot start is
// an error.
func TestGateSupervisesTheApp(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := t.TempDir() + "/helper"
	w := &readyWriter{ready: make(chan struct{})}
	go func() { <-w.ready; cancel() }()
	code, err := Gate(ctx, GateConfig{Client: &Client{Base: "http://127.0.0.1:1", Retries: -1}, Job: api.RegisterRequest{ID: "j", Nodes: 1, C: 1},
		App:    []string{"bash", "-c", `sleep 60 & echo $! > ` + pidFile + `; echo ready; while :; do sleep 0.05; done`},
		Stdout: w, Stderr: os.Stderr})
	if err != nil || code != 128+int(syscall.SIGTERM) {
		t.Errorf("code %d, err %v; want %d", code, err, 128+int(syscall.SIGTERM))
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("helper pid %q", b)
	}
	gone := false
	for end := time.Now().Add(5 * time.Second); !gone && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		gone = syscall.Kill(pid, 0) == syscall.ESRCH || err == nil && strings.Contains(string(stat), ") Z ")
	}
	if !gone {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the app's helper %d outlived it", pid)
	}
	if _, err := Gate(context.Background(), GateConfig{App: []string{"/nonexistent/app"}}); err == nil {
		t.Error("a missing app started")
	}
}
