package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// ckpt run --coordinator: while another job holds the file system, the
// runner's checkpoint signal waits for the grant; the app checkpoints
// after the other job releases, and its lease is released when it has
// written its progress (without Slurm: a chain of one reservation, the
// example app examples/count.sh, a coordinator on 127.0.0.1).
func TestRunCoordinator(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	pol, _ := arbiter.Policies.Lookup("ordered")
	st, err := store.Open(filepath.Join(t.TempDir(), "c.db"), store.Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Config: coord.Config{Policy: pol, Bandwidth: 1e9, TTL: 30}, Store: st, Tokens: []string{"tok"}, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer func() { ts.Close(); st.Close() }()
	ctx := context.Background()
	cl := &client.Client{Base: ts.URL, Token: "tok"}
	jt := client.NewJobToken()
	if _, err := cl.Register(ctx, api.RegisterRequest{ID: "other", Nodes: 8, Bytes: 1e10, JobToken: jt}); err != nil {
		t.Fatal(err)
	}
	held, err := cl.Acquire(ctx, "other", jt, api.AcquireRequest{RequestID: "o1", Kind: arbiter.Checkpoint})
	if err != nil || held.Status != coord.StatusGranted {
		t.Fatalf("other job: %+v %v", held, err)
	}

	app, _ := filepath.Abs("../../examples/count.sh")
	dir := oneReservationChain(t, true)
	end := time.Now().Add(3 * time.Second).Unix()
	cmd := exec.Command(ckptBin(t), "run", "--chain-dir", dir, "--reservation", "1", "--end", itoa(end), "--margin", "0", "--coordinator", ts.URL, "--", app)
	cmd.Env = append(os.Environ(), "CKPT_COORD_TOKEN=tok", "WORK=100000", "SPEED=20", "SLURM_JOB_ID=")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s, err := cl.Status(ctx)
		if err == nil && s.Waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the gate never asked: %v\n%s", err, errb.String())
		}
	}
	time.Sleep(500 * time.Millisecond)
	progress := filepath.Join(dir, "progress")
	if _, err := os.Stat(progress); err == nil {
		t.Fatal("the app checkpointed while another job held the file system")
	}
	released := time.Now()
	if _, err := cl.Release(ctx, "other", jt, held.Token, 0, nil); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	out := errb.String()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "reservation 1: out") ||
		!strings.Contains(out, "granted the file system") || !strings.Contains(out, "count: checkpoint at") {
		t.Fatalf("ckpt run: %v\n%s", err, out)
	}
	fi, err := os.Stat(progress)
	if err != nil || fi.ModTime().Before(released) {
		t.Fatalf("progress written %v, before the other job's release %v (%v)", fi.ModTime(), released, err)
	}
	s, err := cl.Status(ctx)
	if err != nil || s.Counters.Grants != 2 || s.Counters.Releases != 2 || s.Jobs != 1 || s.Holders != 0 {
		t.Fatalf("coordinator after the run: %+v %v\n%s", s, err, out)
	}
	t.Log(out)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// coord gate exits with its app's status, 128 + N when signal N killed it
// (it exited 1 for any failure), and its help says why SIGINT reaches the
// app as SIGTERM (no coordinator is asked: no checkpoint signal comes).
func TestCoordGateExitsWithTheAppsStatus(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	t.Setenv("SLURM_JOB_ID", "")
	for script, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -TERM $$": 143} {
		_, errOut, code := run(t, "", "coord", "gate", "--id", "g", "--server", "http://127.0.0.1:1", "--", "bash", "-c", script)
		if code != want || want != 0 && strings.Count(errOut, "\n") != 1 {
			t.Errorf("app %q: exit %d, want %d; stderr %q", script, code, want, errOut)
		}
	}
	if out, _, _ := run(t, "", "coord", "gate", "--help"); !strings.Contains(out, "SIGTERM and SIGINT end the job") || !strings.Contains(out, "128 + N") {
		t.Errorf("help:\n%s", out)
	}
}
