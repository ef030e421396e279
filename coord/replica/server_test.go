package replica

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/server"
)

// coord/server runs on a replica unchanged: the leader's server answers
// writes once a majority committed them; a follower's refuses them (503:
// no HTTP addresses in the peer list, so nowhere to redirect); after a
// leader change the new leader's first write succeeds (its server reloads
// the state as leader before serving it) with the old leader's jobs
// known; the old leader's server refuses.
func TestServerOnReplica(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	li := c.leader(leaderWait)
	urls := make([]string, 3)
	for i, r := range c.reps {
		s, err := server.New(server.Options{Config: testConfig(t), Store: r, NoAuth: true})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		urls[i] = hs.URL
	}
	register := func(i int, id string) int {
		t.Helper()
		resp, err := http.Post(urls[i]+"/v1/jobs", "application/json",
			strings.NewReader(`{"id":"`+id+`","nodes":1,"size_bytes":1e9,"mtbf_s":1e5}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	known := func(i int, id string) bool {
		t.Helper()
		resp, err := http.Get(urls[i] + "/v1/jobs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	if code := register(li, "a"); code != http.StatusOK {
		t.Fatalf("register on the leader: %d", code)
	}
	f := (li + 1) % 3
	if code := register(f, "b"); code != http.StatusServiceUnavailable {
		t.Fatalf("register on a follower: %d, want 503", code)
	}
	handOver(t, c.reps[li], "", "")
	ni := c.leader(leaderWait, li)
	if code := register(ni, "c"); code != http.StatusOK {
		t.Fatalf("first write on the new leader: %d, want 200", code)
	}
	if !known(ni, "a") || known(ni, "b") {
		t.Fatal("the new leader's server does not hold the committed jobs only")
	}
	if code := register(li, "d"); code != http.StatusServiceUnavailable {
		t.Fatalf("register on the deposed leader: %d, want 503", code)
	}
	c.settle(ni)
	for _, r := range c.reps {
		_, jobs := state(r)
		if ids := strings.Join(jobIDs(jobs), ","); ids != "a,c" {
			t.Fatalf("replica %s holds %s, want a,c", r.opt.ID, ids)
		}
	}
}

// serveGroup runs coord/server (Serve, so with its leader watch) on each
// replica of a three-replica group whose peer list carries the HTTP
// addresses, and returns the servers' URLs.
func serveGroup(t *testing.T) (*cluster, []string) {
	web := freeAddrs(t, 3)
	c := newCluster(t, 3, func(o *Options) {
		ps := slices.Clone(o.Peers)
		for i := range ps {
			ps[i].HTTP = web[i]
		}
		o.Peers = ps
	})
	urls := make([]string, 3)
	for i, r := range c.reps {
		serveOn(t, r, web[i])
		urls[i] = "http://" + web[i]
	}
	return c, urls
}

// serveOn runs coord/server (Serve, with its leader watch) on replica r
// at HTTP address web until the test ends.
func serveOn(t *testing.T, r *Replica, web string) {
	s, err := server.New(server.Options{Config: testConfig(t), Store: r, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", web)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// A replica's server: the leader answers its first write once elected
// (it reloads on election, not on a refused write); a follower answers a
// write with 307 to the leader's HTTP address (the peer list's), which Go's
// client follows, and a read with 307 too unless ?stale=1; /readyz is 200
// on every replica of a group with a leader; /v1/status shows the group.
func TestServerFollowsLeader(t *testing.T) {
	t.Parallel()
	c, urls := serveGroup(t)
	li := c.leader(leaderWait)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(hc *http.Client, u, id string) *http.Response {
		t.Helper()
		resp, err := hc.Post(u+"/v1/jobs", "application/json",
			strings.NewReader(`{"id":"`+id+`","nodes":1,"size_bytes":1e9,"mtbf_s":1e5}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := post(http.DefaultClient, urls[li], "a"); resp.StatusCode != http.StatusOK {
		t.Fatalf("register on the leader: %d", resp.StatusCode)
	}
	f := (li + 1) % 3
	resp := post(noFollow, urls[f], "b")
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != urls[li]+"/v1/jobs" {
		t.Fatalf("register on a follower: %d to %q, want 307 to %s/v1/jobs", resp.StatusCode, resp.Header.Get("Location"), urls[li])
	}
	if resp := post(http.DefaultClient, urls[f], "b"); resp.StatusCode != http.StatusOK {
		t.Fatalf("register through a follower, redirected: %d", resp.StatusCode)
	}
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := noFollow.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	if code, _ := get(urls[f] + "/v1/jobs/a"); code != http.StatusTemporaryRedirect {
		t.Fatalf("read on a follower: %d, want 307", code)
	}
	c.settle(li)
	if code, _ := get(urls[f] + "/v1/jobs/a?stale=1"); code != http.StatusOK {
		t.Fatalf("stale read on a follower: %d, want 200", code)
	}
	for i := range urls {
		if code, body := get(urls[i] + "/readyz"); code != http.StatusOK {
			t.Fatalf("replica %d not ready: %d %s", i, code, body)
		}
	}
	if code, body := get(urls[f] + "/metrics"); code != http.StatusOK || !strings.Contains(body, "\nckpt_coord_raft_leader 0\n") ||
		!strings.Contains(body, "ckpt_coord_raft_commit_index ") {
		t.Fatalf("a follower's /metrics: %d, no raft metrics", code)
	}
	_, body := get(urls[f] + "/v1/status")
	var st struct {
		Jobs        int
		Replication Status
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Replication.LeaderID != c.opts[li].ID || st.Replication.State != "Follower" || st.Replication.Term == 0 ||
		st.Replication.CommitIndex == 0 || len(st.Replication.Peers) != 3 || st.Replication.Peers[li].HTTP != urls[li][len("http://"):] {
		t.Fatalf("follower's status: %s", body)
	}
	handOver(t, c.reps[li], "", "")
	ni := c.leader(leaderWait, li)
	deadline := time.Now().Add(5 * time.Second)
	for { // the old leader may not know the new one yet (then 503)
		resp = post(noFollow, urls[li], "c")
		if resp.StatusCode == http.StatusTemporaryRedirect || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != urls[ni]+"/v1/jobs" {
		t.Fatalf("register on the deposed leader: %d to %q, want 307 to %s", resp.StatusCode, resp.Header.Get("Location"), urls[ni])
	}
	time.Sleep(200 * time.Millisecond) // the new leader's server reloads on its LeaderCh
	if resp := post(http.DefaultClient, urls[ni], "c"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first write on the new leader: %d, want 200 (reloaded on election)", resp.StatusCode)
	}
	c.settle(ni)
	for _, r := range c.reps {
		_, jobs := state(r)
		if ids := strings.Join(jobIDs(jobs), ","); ids != "a,b,c" {
			t.Fatalf("replica %s holds %s, want a,b,c", r.opt.ID, ids)
		}
	}
}
