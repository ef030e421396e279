package main

import (
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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// Bad replica flags of `ckpt serve`: exit 2, one line naming the flag,
// before anything is opened or listened on.
func TestServeReplicaFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "n1")
	base := []string{"serve", "--no-auth", "--bandwidth", "1GB/s", "--listen", "127.0.0.1:7071", "--db", db}
	peers := "n1=127.0.0.1:7101@127.0.0.1:7071,n2=127.0.0.1:7102"
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--id", []string{"--bootstrap"}},
		{"--id", []string{"--raft", "127.0.0.1:7101"}},
		{"--id", []string{"--id", "n/1", "--raft", "127.0.0.1:7101"}},
		{"--raft", []string{"--id", "n1", "--raft", "7101"}},
		{"--raft", []string{"--id", "n1", "--raft", "127.0.0.1:99999"}},
		{"--raft", []string{"--id", "n1", "--raft", ":7101"}},
		{"--raft", []string{"--id", "n1", "--raft", "10.1.2.3:7101"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", "n1=127.0.0.1:7101@nowhere"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", "n1=127.0.0.1:0"}},
		{"--peers", []string{"--id", "n3", "--raft", "127.0.0.1:7101", "--peers", peers, "--bootstrap"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--bootstrap"}},
		{"--init", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--init"}},
		{"--bandwidth", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--bandwidth", "fast"}},
		{"--listen", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--listen", "10.1.2.3:80"}},
		// this replica's own entry in --peers must be where it listens
		{"--raft", []string{"--id", "n1", "--raft", "127.0.0.1:17101", "--peers", peers}},
		{"--raft", []string{"--id", "n1", "--raft", "127.0.0.1:0", "--peers", peers}},
		{"--listen", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--listen", "127.0.0.1:9999"}},
	} {
		_, stderr, code := run(t, "", append(base, tc.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.flag) {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming %s", tc.args, code, stderr, tc.flag)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(db, "*")); len(m) != 0 {
		t.Errorf("a refused start left %v", m)
	}
}

// Three `ckpt serve` replica processes on 127.0.0.1 under a small load
// (four jobs at a time, each registering, checkpointing through a grant
// and a release, and ending) through a client given the three URLs: the
// leader is killed with SIGKILL mid-load; a new leader is elected within
// 5 s, the clients carry on, and at the end the group's counters equal
// what the clients were acknowledged (grants, releases: nothing
// acknowledged lost, no retry counted twice) and the fencing tokens each
// client saw increase and never repeat.
func TestServeReplicaFailover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("three replica processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
	defer cancel()
	g := startGroup(t, ctx)
	procs, urls, status, leader := g.procs, g.urls, g.status, g.leader
	first := leader(-1)
	cl, err := client.New(strings.Join(urls, ","), groupToken)
	if err != nil {
		t.Fatal(err)
	}
	cl.PollInterval = 20 * time.Millisecond
	var grants, releases atomic.Uint64
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- loadWorker(ctx, cl, w, stop, &grants, &releases)
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	procs[first].Process.Kill()
	killed, before := time.Now(), releases.Load()
	next := leader(first)
	if d := time.Since(killed); d > 5*time.Second {
		t.Errorf("new leader n%d after %v, want within 5 s", next+1, d)
	}
	t.Logf("leader n%d killed; n%d leads after %v", first+1, next+1, time.Since(killed).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	if after := releases.Load(); before == 0 || after <= before {
		t.Errorf("%d checkpoints before the kill, %d after: the clients did not carry on", before, after-before)
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	st, err := status(next)
	if err != nil {
		t.Fatal(err)
	}
	c := st.Counters
	t.Logf("acknowledged: %d grants, %d releases; the group: %+v", grants.Load(), releases.Load(), c)
	if c.Grants != grants.Load() || c.Releases != releases.Load() || c.Token < c.Grants || releases.Load() < 10 {
		t.Errorf("the group counts %d grants and %d releases (token %d), the clients were acknowledged %d and %d",
			c.Grants, c.Releases, c.Token, grants.Load(), releases.Load())
	}
}

// A leader stopped with SIGSTOP while the others elect a new one, then
// resumed, grants nothing: a registration sent to it straight away (not
// following redirects) is refused or redirected, never acknowledged, and
// the group does not hold it; a job the new leader acknowledged is kept.
func TestServeReplicaStaleLeader(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("three replica processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
	defer cancel()
	g := startGroup(t, ctx)
	old := g.leader(-1)
	if err := g.procs[old].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			g.procs[old].Process.Signal(syscall.SIGCONT)
		}
	}()
	next := g.leader(old)
	cl, err := client.New(g.urls[next], groupToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.RegisterIn(ctx, api.RegisterRequest{ID: "kept", Nodes: 1, Bytes: 1e9, MTBF: 1e5}, 0); err != nil {
		t.Fatal(err)
	}
	g.procs[old].Process.Signal(syscall.SIGCONT)
	resumed = true
	req, _ := http.NewRequestWithContext(ctx, "POST", g.urls[old]+"/v1/jobs",
		strings.NewReader(`{"id":"stale","nodes":1,"size_bytes":1e9,"mtbf_s":1e5}`))
	req.Header.Set("Authorization", "Bearer "+groupToken)
	noFollow := &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatal("the resumed old leader acknowledged a registration")
	}
	t.Logf("the resumed old leader answered %d", resp.StatusCode)
	if _, err := cl.Job(ctx, "kept"); err != nil {
		t.Fatalf("the job acknowledged by the new leader: %v", err)
	}
	var ce *client.Error
	if _, err := cl.Job(ctx, "stale"); !errors.As(err, &ce) || ce.Status != http.StatusNotFound {
		t.Fatalf("the job sent to the old leader: %v, want 404", err)
	}
}

// group is three `ckpt serve` replica processes on 127.0.0.1.
type group struct {
	procs  []*exec.Cmd
	urls   []string
	status func(i int) (replicaStatus, error)
	leader func(skip int) int // a replica that says it leads, other than skip
	start  func(i int)        // restarts replica i (after a kill)
	dir    string             // the replicas' folders and logs n1.log, …
}

type replicaStatus struct {
	Replication struct {
		State       string
		CommitIndex uint64 `json:"commit_index"`
		Applied     uint64 `json:"applied_index"`
	} `json:"replication"`
	Jobs     int          `json:"jobs"`
	Counters api.Counters `json:"counters"`
}

const groupToken = "tok-0123456789abcdef"

// startGroup starts the group, each replica with the extra flags.
func startGroup(t *testing.T, ctx context.Context, extra ...string) *group {
	dir := t.TempDir()
	tf := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tf, []byte("tok-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var peers, urls []string
	var webs []string
	for i := range 3 {
		web := freeAddr(t)
		peers = append(peers, fmt.Sprintf("n%d=%s@%s", i+1, freeAddr(t), web))
		webs = append(webs, web)
		urls = append(urls, "http://"+web)
	}
	procs := make([]*exec.Cmd, 3)
	start := func(i int) { // (re)starts replica i, its log appended to
		raft := strings.TrimPrefix(strings.Split(peers[i], "@")[0], fmt.Sprintf("n%d=", i+1))
		cmd := exec.Command(ckptBin(t), append([]string{"serve", "--id", fmt.Sprintf("n%d", i+1), "--raft", raft, "--listen", webs[i],
			"--db", filepath.Join(dir, fmt.Sprintf("n%d", i+1)), "--bootstrap", "--peers", strings.Join(peers, ","),
			"--bandwidth", "10GB/s", "--token-file", tf, "--rate", "-1"}, extra...)...)
		logf, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("n%d.log", i+1)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = cmd
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); logf.Close() })
	}
	for i := range 3 {
		start(i)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i := range 3 {
				b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("n%d.log", i+1)))
				t.Logf("n%d's log (tail):\n%s", i+1, tail(string(b), 3000))
			}
		}
	})
	status := func(i int) (replicaStatus, error) {
		var r replicaStatus
		req, _ := http.NewRequestWithContext(ctx, "GET", urls[i]+"/v1/status", nil)
		req.Header.Set("Authorization", "Bearer "+groupToken)
		resp, err := (&http.Client{Timeout: time.Second}).Do(req)
		if err != nil {
			return r, err
		}
		defer resp.Body.Close()
		return r, json.NewDecoder(resp.Body).Decode(&r)
	}
	leader := func(skip int) int {
		for ctx.Err() == nil {
			for i := range 3 {
				if r, err := status(i); i != skip && err == nil && r.Replication.State == "Leader" {
					return i
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("no leader")
		return -1
	}
	return &group{procs, urls, status, leader, start, dir}
}

// loadWorker runs jobs w-0, w-1, … until stop: register, one checkpoint
// (grant, release), done. Tokens it is granted must increase.
func loadWorker(ctx context.Context, cl *client.Client, w int, stop <-chan struct{}, grants, releases *atomic.Uint64) error {
	var last uint64
	for k := 0; ; k++ {
		select {
		case <-stop:
			return nil
		default:
		}
		id := fmt.Sprintf("w%d-%d", w, k)
		reg, err := cl.RegisterIn(ctx, api.RegisterRequest{ID: id, Nodes: 1, Bytes: 1e9, MTBF: 1e5}, 0)
		if err != nil {
			return fmt.Errorf("register %s: %w", id, err)
		}
		g, err := cl.WaitGrant(ctx, id, reg.JobToken, api.AcquireRequest{Kind: arbiter.Checkpoint, Bytes: 1e9})
		if err != nil {
			return fmt.Errorf("acquire %s: %w", id, err)
		}
		grants.Add(1)
		if g.Token <= last {
			return fmt.Errorf("job %s granted token %d after %d", id, g.Token, last)
		}
		last = g.Token
		if _, err := cl.Release(ctx, id, reg.JobToken, g.Token, 0.1, nil); err != nil {
			return fmt.Errorf("release %s: %w", id, err)
		}
		releases.Add(1)
		if _, err := cl.Done(ctx, id, reg.JobToken, false, nil); err != nil {
			return fmt.Errorf("done %s: %w", id, err)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// The systemd template unit's ExecStart, with its variables set as its
// comment says (one replica, a group of one, on loopback), starts a
// replica that becomes ready (the leader of its group).
func TestServeReplicaUnit(t *testing.T) {
	b, err := os.ReadFile("../../examples/ckpt-serve-replica@.service")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.SplitSeq(string(b), "\n") {
		if s, ok := strings.CutPrefix(l, "ExecStart=/usr/local/bin/ckpt "); ok {
			line = s
		}
	}
	dir := t.TempDir()
	tf := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tf, []byte(groupToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	raft, web := freeAddr(t), freeAddr(t)
	line = strings.NewReplacer("%i", "n1", "${RAFT}", raft, "${LISTEN}", web, "${PEERS}", "n1="+raft+"@"+web,
		"$BOOTSTRAP", "--bootstrap", "/var/lib/ckpt", dir, "/etc/ckpt/tokens", tf).Replace(line)
	if strings.ContainsAny(line, "$%") || !strings.HasPrefix(line, "serve ") {
		t.Fatalf("ExecStart not understood: %q", line)
	}
	cmd := exec.Command(ckptBin(t), strings.Fields(line)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + web + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("the unit's replica not ready in 15 s: %s", tail(stderr.String(), 2000))
}

// `ckpt coord members add|remove`: a malformed member or a missing
// argument exits 2 with one line naming it, before any request (no
// server runs at the --server address).
func TestCoordMembersArgs(t *testing.T) {
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"member", []string{"add", "n4"}},
		{"member", []string{"add", "n4=127.0.0.1:7104,n5=127.0.0.1:7105"}},
		{"member", []string{"add", "n/4=127.0.0.1:7104"}},
		{"member", []string{"add", "n4=127.0.0.1:7104@nowhere"}},
		{"arg", []string{"remove"}},
		{"arg", []string{"add", "a", "b"}},
	} {
		_, stderr, code := run(t, "", append([]string{"coord", "members"}, append(tc.args, "--server", "http://127.0.0.1:1")...)...)
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// `ckpt coord members add` through a follower adds a fourth `ckpt serve`
// replica, started empty without --bootstrap, which then knows the leader
// (ready); `remove` takes it out again; each answer is the group.
func TestCoordMembersCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("four replica processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	g := startGroup(t, ctx)
	li := g.leader(-1)
	raft, web := freeAddr(t), freeAddr(t)
	tf := filepath.Join(g.dir, "tokens")
	n4 := exec.Command(ckptBin(t), "serve", "--id", "n4", "--raft", raft, "--listen", web, "--db", filepath.Join(g.dir, "n4"),
		"--bandwidth", "10GB/s", "--token-file", tf)
	if err := n4.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { n4.Process.Kill(); n4.Wait() }()
	follower := g.urls[(li+1)%3]
	out, stderr, code := run(t, "", "coord", "members", "add", "n4="+raft+"@"+web, "--server", follower, "--token-file", tf)
	if code != 0 || !strings.Contains(out, "group of 4: n1, n2, n3, n4") {
		t.Fatalf("members add: exit %d, %q %q", code, out, stderr)
	}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + web + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("n4 added but not ready (knows no leader) after 10 s")
		}
	}
	out, stderr, code = run(t, "", "coord", "members", "remove", "n4", "--json", "--server", strings.Join(g.urls, ","), "--token-file", tf)
	var gv api.GroupView
	if code != 0 || json.Unmarshal([]byte(out), &gv) != nil || len(gv.Peers) != 3 {
		t.Fatalf("members remove: exit %d, %q %q", code, out, stderr)
	}
}
