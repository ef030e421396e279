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
