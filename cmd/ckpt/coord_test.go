package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

const testBearer = "cli-test-token-0123456789"

func tokenFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(p, []byte("# tokens\n"+testBearer+"\n"), 0o600)
	return p
}

// freeAddr is a free loopback address, never one it returned before (the
// kernel may hand a just-closed port out again: a group's replicas would
// then collide, one's HTTP address another's raft address).
func freeAddr(t *testing.T) string {
	given.Lock()
	defer given.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		a := ln.Addr().String()
		ln.Close()
		if !given.addrs[a] {
			given.addrs[a] = true
			return a
		}
	}
}

var given = struct {
	sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

func waitHealthy(t *testing.T, addr string) {
	t.Helper()
	cl := &client.Client{Base: "http://" + addr, Token: testBearer, Retries: -1}
	for range 200 {
		if _, err := cl.Status(context.Background()); err == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("server on %s never answered", addr)
}

func TestServeRefusals(t *testing.T) {
	dir := t.TempDir()
	tf := tokenFile(t)
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--token-file", tf}, 2, "--bandwidth"},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--bandwidth", "40GB/s", "--token-file", tf, "--listen", "0.0.0.0:7070"}, 2, "not a loopback"},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--bandwidth", "40GB/s"}, 2, "--token-file"},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--bandwidth", "40GB/s", "--token-file", tf, "--policy", "fastest"}, 2, "unknown policy"},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--bandwidth", "40GB/s", "--token-file", tf, "--ttl", "2d"}, 2, "--ttl"},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db"), "--bandwidth", "40GB/s", "--token-file", tf, "--fixed-mtbf"}, 2, "--fixed-mtbf"},
		{[]string{"serve", "--db", filepath.Join(dir, "missing.db"), "--bandwidth", "40GB/s", "--token-file", tf}, 1, "does not exist (start once with --init"},
		{[]string{"serve", "--db", garbage, "--bandwidth", "40GB/s", "--token-file", tf}, 1, "not a usable bbolt file"},
		{[]string{"serve", "--db", garbage, "--init", "--bandwidth", "40GB/s", "--token-file", tf}, 1, "already exists"},
		{[]string{"coord", "next"}, 2, "--id"},
		{[]string{"coord", "release", "--id", "x"}, 2, "--job-token"},
		{[]string{"coord", "register", "--id", "x", "--size", "40GB/s"}, 2, "bad size"},
	} {
		_, errOut, code := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q on one line", c.args, code, errOut, c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("serve created a missing database without --init")
	}
}

// The shell verbs against an in-process server, then a graceful stop.
func TestCoordVerbs(t *testing.T) {
	addr, db, tf := freeAddr(t), filepath.Join(t.TempDir(), "c.db"), tokenFile(t)
	ctx, cancel := context.WithCancel(context.Background())
	var serveCode int
	var serveErr bytes.Buffer
	done := make(chan struct{})
	go func() {
		serveCode = execute(ctx, []string{"serve", "--listen", addr, "--db", db, "--init", "--bandwidth", "10GB/s",
			"--policy", "ordered", "--token-file", tf}, strings.NewReader(""), &bytes.Buffer{}, &serveErr)
		close(done)
	}()
	waitHealthy(t, addr)
	base := []string{"--server", "http://" + addr, "--token-file", tf}
	verb := func(args ...string) string {
		t.Helper()
		out, errOut, code := run(t, "", append(append([]string{"coord"}, args...), base...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	out := verb("register", "--id", "a", "--nodes", "8", "--size", "100GB", "--mtbf", "12h", "--job-token", "job-a-token-0123456789")
	if !strings.Contains(out, "C = 10s") {
		t.Errorf("register: %s", out)
	}
	verb("register", "--id", "b", "--nodes", "8", "--ckpt", "20s", "--mtbf", "12h", "--end-in", "01:00:00", "--job-token", "job-b-token-0123456789")
	var adv api.AdviceView
	json.Unmarshal([]byte(verb("next", "--id", "b", "--json")), &adv)
	// Daly for C = 20, M = 43200 is 1293.6 s; with 3600 s left, ⌈3600/1313.6⌉ = 3 segments of 1200 − 20.
	if d := float64(adv.Period) - 1180; d > 0.01 || d < -0.01 {
		t.Errorf("next: %+v", adv)
	}
	var g coord.Grant
	json.Unmarshal([]byte(verb("acquire", "--id", "a", "--json", "--job-token", "job-a-token-0123456789")), &g)
	if g.Status != "granted" || g.Token != 1 {
		t.Fatalf("acquire: %+v", g)
	}
	if out := verb("acquire", "--id", "b", "--no-wait", "--request-id", "rb", "--job-token", "job-b-token-0123456789"); !strings.HasPrefix(out, "waiting") {
		t.Errorf("second acquire: %s", out)
	}
	verb("release", "--id", "a", "--token", "1", "--duration", "12s", "--job-token", "job-a-token-0123456789")
	if out := verb("acquire", "--id", "b", "--request-id", "rb", "--job-token", "job-b-token-0123456789"); !strings.HasPrefix(out, "granted 2") {
		t.Errorf("b after a's release: %s", out)
	}
	_, errOut, code := run(t, "", append([]string{"coord", "release", "--id", "a", "--token", "1", "--job-token", "job-b-token-0123456789"}, base...)...)
	if code != 1 || !strings.Contains(errOut, "X-Job-Token") {
		t.Errorf("release with another job's token: %d %s", code, errOut)
	}
	_, errOut, code = run(t, "", append([]string{"coord", "release", "--id", "b", "--token", "2", "--duration", "1e308", "--job-token", "job-b-token-0123456789"}, base...)...)
	if code != 2 || !strings.Contains(errOut, "duration_s") {
		t.Errorf("release --duration 1e308: %d %s", code, errOut)
	}
	verb("done", "--id", "a", "--job-token", "job-a-token-0123456789")
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop on its context")
	}
	if serveCode != 0 || !strings.Contains(serveErr.String(), "msg=stopped") {
		t.Errorf("serve exit %d: %s", serveCode, serveErr.String())
	}
}

// startServe runs the built binary as a server subprocess.
func startServe(t *testing.T, addr, db, tf string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"serve", "--listen", addr, "--db", db, "--bandwidth", "10GB/s", "--token-file", tf, "--rate", "-1"}, extra...)
	cmd := exec.Command(ckptBin(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitHealthy(t, addr)
	return cmd
}

// kill -9 under load, restart: every acknowledged registration, release
// and grant is in the restarted server, and its next fencing token is
// above every token acknowledged before.
func TestServeKill9NothingLost(t *testing.T) {
	t.Parallel()
	addr, db, tf := freeAddr(t), filepath.Join(t.TempDir(), "c.db"), tokenFile(t)
	srv := startServe(t, addr, db, tf, "--init", "--policy", "ordered-nb", "--ttl", "1h")
	cl := &client.Client{Base: "http://" + addr, Token: testBearer, Retries: -1, HTTP: nil}
	type record struct {
		registered bool
		releases   int
		held       uint64 // token of an acknowledged grant not released
	}
	const workers = 8
	recs := make([]record, workers)
	var maxTok sync.Map
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, jt := fmt.Sprint("job", w), fmt.Sprintf("job-token-%d-0123456789", w)
			if _, err := cl.Register(ctx, api.RegisterRequest{ID: id, Nodes: w + 1, C: 5, MTBF: 3600, JobToken: jt}); err != nil {
				return
			}
			recs[w].registered = true
			for i := 0; ctx.Err() == nil; i++ {
				g, err := cl.Acquire(ctx, id, jt, api.AcquireRequest{RequestID: fmt.Sprint("r", i), Kind: arbiter.Checkpoint})
				for err == nil && g.Status == coord.StatusWaiting && ctx.Err() == nil {
					g, err = cl.Acquire(ctx, id, jt, api.AcquireRequest{RequestID: fmt.Sprint("r", i), Kind: arbiter.Checkpoint})
				}
				if err != nil || g.Status != coord.StatusGranted {
					return
				}
				recs[w].held = g.Token
				maxTok.Store(w, g.Token)
				if _, err := cl.Release(ctx, id, jt, g.Token, 1, nil); err != nil {
					return
				}
				recs[w].held = 0
				recs[w].releases++
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	srv.Process.Signal(os.Kill) // SIGKILL mid-load
	srv.Wait()
	cancel()
	wg.Wait()

	startServe(t, addr, db, tf, "--policy", "ordered-nb", "--ttl", "1h")
	total, top := 0, uint64(0)
	for w, r := range recs {
		if !r.registered {
			continue
		}
		j, err := cl.Job(context.Background(), fmt.Sprint("job", w))
		if err != nil {
			t.Fatalf("job%d acknowledged but lost: %v", w, err)
		}
		// a release in flight at the kill may or may not have committed
		if j.Checkpoints < r.releases || j.Checkpoints > r.releases+1 {
			t.Errorf("job%d: %d checkpoints stored, %d releases acknowledged", w, j.Checkpoints, r.releases)
		}
		if r.held != 0 && j.Checkpoints == r.releases && (j.Lease == nil || !j.Lease.Granted || j.Lease.Token != r.held) {
			t.Errorf("job%d: acknowledged grant %d lost: %+v", w, r.held, j.Lease)
		}
		total += r.releases
	}
	maxTok.Range(func(_, v any) bool { top = max(top, v.(uint64)); return true })
	st, err := cl.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Counters.Token < top || total == 0 {
		t.Errorf("token counter %d below acknowledged token %d (releases %d)", st.Counters.Token, top, total)
	}
	t.Logf("%d releases acknowledged before kill -9; token counter %d after restart", total, st.Counters.Token)
}

// A holder that dies is replaced after the TTL, over real HTTP with the
// server as a subprocess; a second subprocess on a corrupt file refuses
// to start with a clear message.
func TestServeHolderDiesAndCorruptDB(t *testing.T) {
	addr, db, tf := freeAddr(t), filepath.Join(t.TempDir(), "c.db"), tokenFile(t)
	startServe(t, addr, db, tf, "--init", "--policy", "least-waste", "--ttl", "1s")
	cl := &client.Client{Base: "http://" + addr, Token: testBearer, PollInterval: 50 * time.Millisecond}
	ctx := context.Background()
	cl.Register(ctx, api.RegisterRequest{ID: "dead", Nodes: 2, C: 5, MTBF: 3600, JobToken: "dead-token-0123456789"})
	cl.Register(ctx, api.RegisterRequest{ID: "next", Nodes: 2, C: 5, MTBF: 3600, JobToken: "next-token-0123456789"})
	if g, err := cl.Acquire(ctx, "dead", "dead-token-0123456789", api.AcquireRequest{RequestID: "x"}); err != nil || g.Status != "granted" {
		t.Fatal(g, err)
	}
	t0 := time.Now()
	g, err := cl.WaitGrant(ctx, "next", "next-token-0123456789", api.AcquireRequest{RequestID: "y"})
	if wait := time.Since(t0); err != nil || g.Status != "granted" || wait < 800*time.Millisecond || wait > 4*time.Second {
		t.Errorf("next served after %v: %+v %v", wait, g, err)
	}

	bad := filepath.Join(t.TempDir(), "bad.db")
	b, _ := os.ReadFile(db) // a live database file, its pages overwritten
	for i := 0; i < len(b); i += 3 {
		b[i] = 0xff
	}
	os.WriteFile(bad, b, 0o600)
	out, err := exec.Command(ckptBin(t), "serve", "--listen", freeAddr(t), "--db", bad, "--bandwidth", "1GB/s", "--token-file", tf).CombinedOutput()
	if err == nil || !regexp.MustCompile(`database .*bad.db`).Match(out) {
		t.Errorf("corrupt database: %v %s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if strings.Contains(sc.Text(), "goroutine") {
			t.Errorf("a panic instead of an error: %s", out)
		}
	}
}

// The standard-library Python client runs one checkpoint cycle against a
// server subprocess.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH")
	}
	addr, db, tf := freeAddr(t), filepath.Join(t.TempDir(), "c.db"), tokenFile(t)
	startServe(t, addr, db, tf, "--init")
	cmd := exec.Command(py, "../../examples/coord_client.py", "demo", "--id", "py-job", "--nodes", "16", "--size", "50e9", "--mtbf", "43200")
	cmd.Env = append(os.Environ(), "CKPT_COORD_URL=http://"+addr, "CKPT_COORD_TOKEN="+testBearer)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "granted lease 1") || !strings.Contains(string(out), "released lease 1") {
		t.Fatalf("python client: %v\n%s", err, out)
	}
}

// The help shows no secret and calls $CKPT_COORD_TOKEN a token; the old
// flag names --c and --r are hidden.
func TestCoordHelp(t *testing.T) {
	t.Setenv("CKPT_JOB_TOKEN", "secret-job-token-0123456789")
	out, _, code := run(t, "", "coord", "register", "--help")
	if code != 0 || strings.Contains(out, "secret-job-token") || !strings.Contains(out, "the token in $CKPT_COORD_TOKEN") ||
		strings.Contains(out, "(default $CKPT_COORD_TOKEN)") || !strings.Contains(out, "--ckpt") || !strings.Contains(out, "--restart") ||
		regexp.MustCompile(`--[cr] `).MatchString(out) {
		t.Errorf("help:\n%s", out)
	}
	if out, _, _ := run(t, "", "coord", "loadgen", "--help"); !strings.Contains(out, "--clients") || strings.Contains(out, "--workers") {
		t.Errorf("loadgen help:\n%s", out)
	}
}

// loadgen counts failed requests as errors, not decisions, and exits 1
// when any failed: a coordinator that registers jobs and then answers 503.
func TestCoordLoadgenFailedRequests(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/jobs" {
			w.Write([]byte(`{"job":{"id":"x"}}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"down","code":"unavailable"}`))
	}))
	defer ts.Close()
	out, errOut, code := run(t, "", "coord", "loadgen", "--server", ts.URL, "--jobs", "2", "--clients", "1", "--duration", "200ms", "--json")
	var r struct{ Decisions, Errors int }
	json.Unmarshal([]byte(out), &r)
	if code != 1 || r.Decisions != 0 || r.Errors == 0 || !strings.Contains(errOut, "failed") {
		t.Errorf("exit %d, %+v, stderr %q", code, r, errOut)
	}
}

// coord register refuses a float JSON cannot carry, and method ey
// without the job's work, before sending (exit 2 naming the flag; --ey
// NaN was "json: unsupported value: NaN", exit 1, and --method ey alone
// registered a job whose every next was refused).
func TestCoordRegisterRefusals(t *testing.T) {
	for _, c := range []struct{ args, flag string }{
		{"--ey NaN", "--ey: "}, {"--ey Inf", "--ey: "}, {"--ey -Inf", "--ey: "}, {"--ey -1", "--ey: "},
		{"--method ey --ey 2", "--work: "}, {"--method ey", "--work: "},
	} {
		args := append([]string{"coord", "register", "--id", "j", "--size", "1GB", "--server", "http://127.0.0.1:1"}, strings.Fields(c.args)...)
		_, errOut, code := run(t, "", args...)
		if code != 2 || !strings.HasPrefix(errOut, "ckpt: "+c.flag) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", c.args, code, errOut)
		}
	}
}

// A verb against a server that accepts and never answers gives up after
// --timeout (it took 40 s, 210 s with two URLs), exit 1 in one line.
func TestCoordTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	url := "http://" + ln.Addr().String()
	start := time.Now()
	_, errOut, code := run(t, "", "coord", "next", "--id", "x", "--server", url+","+url, "--timeout", "300ms")
	if code != 1 || !strings.Contains(errOut, "no answer within 300ms") || strings.Count(errOut, "\n") != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("exit %d after %v: %q", code, time.Since(start), errOut)
	}
	// loadgen's requests too (its clients took 10 s per attempt).
	start = time.Now()
	_, errOut, code = run(t, "", "coord", "loadgen", "--server", url, "--jobs", "1", "--clients", "1", "--duration", "1m", "--timeout", "300ms")
	if code != 1 || !strings.Contains(errOut, "no answer within 300ms") || time.Since(start) > 5*time.Second {
		t.Errorf("loadgen: exit %d after %v: %q", code, time.Since(start), errOut)
	}
	if out, _, _ := run(t, "", "coord", "next", "--help"); !strings.Contains(out, "--timeout") || !strings.Contains(out, `(default "30s")`) {
		t.Errorf("help:\n%s", out)
	}
}

// Every shell verb's help shows a real example of itself (they had none).
func TestCoordVerbExamples(t *testing.T) {
	for _, verb := range []string{"coord register", "coord next", "coord acquire", "coord renew", "coord release", "coord done", "chain cancel"} {
		out, _, code := run(t, "", append(strings.Fields(verb), "--help")...)
		_, ex, _ := strings.Cut(out, "\nExamples:\n")
		if code != 0 || !strings.Contains(ex, "ckpt "+verb+" ") {
			t.Errorf("%s --help:\n%s", verb, out)
		}
	}
}
