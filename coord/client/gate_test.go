package client

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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
