package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// childEnv makes the test binary the coordinator process: TestMain then
// runs Serve, the function `ckpt serve` maps its flags to, on the
// database and address the environment names, and nothing else. The
// fault test kills that process with SIGKILL as an operator's kill -9
// would kill `ckpt serve`.
const childEnv = "CKPT_FAULT_TEST_SERVE"

func TestMain(m *testing.M) {
	if db := os.Getenv(childEnv); db != "" {
		err := Serve(context.Background(), Launch{
			Settings: Settings{Bandwidth: "1GB/s", Policy: "least-waste", TTL: "1h", MaxTTL: "1d", NodeMTBF: "0"},
			Listen:   "127.0.0.1:0", DB: db, Init: os.Getenv(childEnv+"_INIT") != "",
			TokenFile: os.Getenv(childEnv + "_TOKENS"), Rate: -1, LogFormat: "json", Log: os.Stderr,
			CommitWait: os.Getenv(childEnv + "_COMMIT_WAIT")})
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// startChild starts the coordinator process on db and returns its URL
// (read from its "listening" log line) and the process.
func startChild(t *testing.T, db, tokens string, init bool, commitWait ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+db, childEnv+"_TOKENS="+tokens)
	if len(commitWait) > 0 {
		cmd.Env = append(cmd.Env, childEnv+"_COMMIT_WAIT="+commitWait[0])
	}
	if init {
		cmd.Env = append(cmd.Env, childEnv+"_INIT=1")
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var l struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
				addr <- l.Addr
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatal("the coordinator exited before listening")
		}
		return "http://" + a, cmd
	case <-time.After(10 * time.Second):
		t.Fatal("the coordinator did not listen within 10 s")
	}
	return "", nil
}

// acked is what the coordinator acknowledged for one job: its
// registration, the checkpoints it released, and the lease it granted
// last and that no acknowledged release ended.
type acked struct {
	nodes    int
	released int
	lease    uint64
}

// The coordinator process is killed with SIGKILL under load, five times,
// and restarted on the same database: every registration, grant and
// release it acknowledged before a kill is in the restarted coordinator's
// state (a release that was applied without its answer reaching the
// client may add a checkpoint; nothing acknowledged may be missing).
func TestKilledUnderLoadLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a coordinator process five times")
	}
	killUnderLoad(t, 10, "0")
}

// The same with group commits that wait (--commit-wait 20ms) under 48
// concurrent clients: batches of many requests share one transaction
// and one fsync, and no answer leaves before its batch is durable.
func TestKilledUnderBatchedLoadLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a coordinator process five times")
	}
	killUnderLoad(t, 48, "20ms")
}

func killUnderLoad(t *testing.T, workers int, commitWait string) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(bearer+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	state := map[string]*acked{}
	tok := client.NewJobToken()
	const rounds = 5
	for round := range rounds {
		url, cmd := startChild(t, db, tokens, round == 0, commitWait)
		cl := &client.Client{Base: url, Token: bearer, HTTP: &http.Client{Timeout: 3 * time.Second}, Retries: -1, PollInterval: 5 * time.Millisecond}
		if round > 0 {
			checkAcked(t, cl, state, round)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				drive(ctx, cl, fmt.Sprintf("r%d-w%d", round, w), tok, &mu, state)
			}()
		}
		time.Sleep(time.Duration(250+90*round) * time.Millisecond) // kill at a different point of the load each round
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		cancel()
		wg.Wait()
	}
	url, _ := startChild(t, db, tokens, false, commitWait)
	cl := &client.Client{Base: url, Token: bearer, HTTP: &http.Client{Timeout: 3 * time.Second}, Retries: -1, PollInterval: 5 * time.Millisecond}
	n := checkAcked(t, cl, state, rounds)
	released := 0
	for _, a := range state {
		released += a.released
	}
	t.Logf("%d registrations and %d releases acknowledged over %d SIGKILLs, none lost", n, released, rounds)
	if n < 20 {
		t.Errorf("only %d acknowledged registrations over %d rounds: the load did not load", n, rounds)
	}
}

// drive registers jobs one after another and makes each checkpoint
// twice (acquire, release), recording every acknowledged answer, until
// a request fails (the coordinator was killed) or ctx ends.
func drive(ctx context.Context, cl *client.Client, prefix, tok string, mu *sync.Mutex, state map[string]*acked) {
	for i := 0; ctx.Err() == nil; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		nodes := 1 + i%7
		if _, err := cl.Register(ctx, api.RegisterRequest{ID: id, Nodes: nodes, C: 5, MTBF: 1e6, JobToken: tok}); err != nil {
			return
		}
		mu.Lock()
		a := &acked{nodes: nodes}
		state[id] = a
		mu.Unlock()
		for k := range 2 {
			g, err := cl.WaitGrant(ctx, id, tok, api.AcquireRequest{RequestID: fmt.Sprintf("%s-a%d", id, k), Kind: arbiter.Checkpoint})
			if err != nil {
				return
			}
			mu.Lock()
			a.lease = g.Token
			mu.Unlock()
			if _, err := cl.Release(ctx, id, tok, g.Token, 1, nil); err != nil {
				return
			}
			mu.Lock()
			a.released++
			a.lease = 0
			mu.Unlock()
		}
	}
}

// checkAcked compares the restarted coordinator's jobs with what was
// acknowledged and returns the number of jobs checked.
func checkAcked(t *testing.T, cl *client.Client, state map[string]*acked, round int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for id, a := range state {
		v, err := cl.Job(ctx, id)
		var ce *client.Error
		switch {
		case errors.As(err, &ce) && ce.Status == http.StatusNotFound:
			t.Errorf("after kill %d: acknowledged registration %s lost", round, id)
			continue
		case err != nil:
			t.Fatalf("after kill %d: job %s: %v", round, id, err)
		}
		if v.Spec.Nodes != a.nodes {
			t.Errorf("after kill %d: job %s has %d nodes, registered with %d", round, id, v.Spec.Nodes, a.nodes)
		}
		if v.Checkpoints < a.released {
			t.Errorf("after kill %d: job %s: %d checkpoints, %d releases acknowledged", round, id, v.Checkpoints, a.released)
		}
		if a.lease != 0 && v.Checkpoints == a.released && (v.Lease == nil || !v.Lease.Granted || v.Lease.Token != a.lease) {
			t.Errorf("after kill %d: job %s: acknowledged grant %d lost (lease %+v)", round, id, a.lease, v.Lease)
		}
	}
	return len(state)
}

// On a full disk (a 256 KiB tmpfs holding the database, filled by another
// file) the coordinator process keeps serving reads, answers writes with
// 503, and takes writes again once the space returns; nothing it
// acknowledged is lost, and it never exits.
func TestFullDiskReadsServedWritesRefusedThenResumed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(bearer+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, cmd := startChild(t, filepath.Join(mnt, "c.db"), tokens, true)
	t.Cleanup(func() { cmd.Process.Kill() })
	cl := &client.Client{Base: url, Token: bearer, HTTP: &http.Client{Timeout: 3 * time.Second}, Retries: -1, PollInterval: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tok := client.NewJobToken()
	register := func(id string) error {
		_, err := cl.Register(ctx, api.RegisterRequest{ID: id, Nodes: 3, C: 5, MTBF: 1e6, JobToken: tok})
		return err
	}
	if err := register("before"); err != nil {
		t.Fatal(err)
	}
	// Fill the file system.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling: %v", err)
			}
			break
		}
	}
	f.Close()
	// Writes until one is refused: every acknowledged one is kept.
	var acks []string
	var refused *client.Error
	for i := range 5000 {
		id := fmt.Sprintf("full-%d-%s", i, strings.Repeat("x", 100))
		err := register(id)
		if err == nil {
			acks = append(acks, id)
			continue
		}
		if !errors.As(err, &refused) || refused.Status != http.StatusServiceUnavailable {
			t.Fatalf("write on a full disk: %v, want 503", err)
		}
		break
	}
	if refused == nil {
		t.Fatalf("%d registrations on a full 256 KiB file system, none refused", len(acks))
	}
	// Reads are served, the refused write is not visible.
	if v, err := cl.Job(ctx, "before"); err != nil || v.Spec.Nodes != 3 {
		t.Errorf("read on a full disk: %+v %v", v, err)
	}
	if _, err := cl.Status(ctx); err != nil {
		t.Errorf("status on a full disk: %v", err)
	}
	// Space returns: writes resume.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := register("after"); err != nil {
		t.Fatalf("write once space returned: %v", err)
	}
	for _, id := range append(acks, "before", "after") {
		if _, err := cl.Job(ctx, id); err != nil {
			t.Errorf("acknowledged %s: %v", id, err)
		}
	}
	if cmd.ProcessState != nil {
		t.Fatalf("the coordinator exited: %v", cmd.ProcessState)
	}
	// And a restart finds every acknowledged write.
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	url, _ = startChild(t, filepath.Join(mnt, "c.db"), tokens, false)
	cl.Base = url
	for _, id := range append(acks, "before", "after") {
		if _, err := cl.Job(ctx, id); err != nil {
			t.Errorf("after restart, acknowledged %s: %v", id, err)
		}
	}
	t.Logf("%d registrations acknowledged on the full disk before a 503 (%v)", len(acks), refused)
}
