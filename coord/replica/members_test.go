package replica

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
)

// Membership through the HTTP API, sent to a follower (the client follows
// its 307): a fourth replica, started empty without bootstrap, is added as
// a voter with its HTTP address, receives the state (a job registered
// before it joined, and one after); made the leader, the old members
// redirect writes to its HTTP address without a restart (the address is
// in the replicated state); it is removed again, its address with it;
// the group's configuration says so each time. Bad members are 400 naming the field, and a single server has no
// members (404).
func TestMembersAddRemove(t *testing.T) {
	t.Parallel()
	c, urls := serveGroup(t)
	li := c.leader(leaderWait)
	ctx := ctxTimeout(t, 30*time.Second)
	cl, err := client.New(urls[(li+1)%3], "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.RegisterIn(ctx, api.RegisterRequest{ID: "before", Nodes: 1, Bytes: 1e9, MTBF: 1e5}, 0); err != nil {
		t.Fatal(err)
	}
	nodes := freeAddrs(t, 2)
	addr, web := nodes[0], nodes[1]
	o := c.opts[0]
	o.ID, o.Bind, o.Dir, o.Bootstrap, o.Peers = "n4", addr, filepath.Join(t.TempDir(), "n4"), false, nil
	n4, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer n4.Close()
	serveOn(t, n4, web)
	ids := func(g api.GroupView) []string {
		var s []string
		for _, p := range g.Peers {
			s = append(s, p.ID)
		}
		slices.Sort(s)
		return s
	}
	g, err := cl.AddMember(ctx, api.Member{ID: "n4", Addr: addr, HTTP: web})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(g); !slices.Equal(got, []string{"n1", "n2", "n3", "n4"}) {
		t.Fatalf("after add: %v (%s)", got, g.Text())
	}
	if _, err := cl.RegisterIn(ctx, api.RegisterRequest{ID: "after", Nodes: 1, Bytes: 1e9, MTBF: 1e5}, 0); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		_, jobs := state(n4)
		if got := jobIDs(jobs); slices.Contains(got, "before") && slices.Contains(got, "after") {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("n4 holds %v, want before and after", jobIDs(jobs))
		}
	}
	// n4 leads: a write sent to an old member, none of them restarted
	// and none with n4 in its peer list, is redirected to n4's HTTP
	// address, which only the replicated state told them.
	li = c.leader(leaderWait)
	handOver(t, c.reps[li], "n4", addr)
	for start := time.Now(); !n4.IsLeader(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("n4 did not become the leader")
		}
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for i, u := range urls {
		var loc string
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(20 * time.Millisecond) {
			resp, err := noFollow.Post(u+"/v1/jobs", "application/json", strings.NewReader(`{"id":"x","nodes":1,"size_bytes":1e9,"mtbf_s":1e5}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// A follower that has not yet heard from n4 still names
			// the leader it knew: raft tells a follower of a new leader
			// with the first append, so poll until it has.
			if loc = resp.Header.Get("Location"); resp.StatusCode == http.StatusTemporaryRedirect && loc == "http://"+web+"/v1/jobs" {
				break
			}
		}
		if loc != "http://"+web+"/v1/jobs" {
			t.Fatalf("a write to n%d with n4 leading: redirected to %q, want http://%s/v1/jobs", i+1, loc, web)
		}
	}
	if _, err := cl.RegisterIn(ctx, api.RegisterRequest{ID: "through-n4", Nodes: 1, Bytes: 1e9, MTBF: 1e5}, 0); err != nil {
		t.Fatalf("a write through an old member, n4 leading: %v", err)
	}
	handOver(t, n4, "", "")
	c.leader(leaderWait)
	var ce *client.Error
	for _, m := range []api.Member{{ID: "n/5", Addr: addr}, {ID: "n5", Addr: "nowhere"}, {ID: "n5", Addr: addr, HTTP: "x:0"}} {
		if _, err := cl.AddMember(ctx, m); !errors.As(err, &ce) || ce.Status != http.StatusBadRequest {
			t.Errorf("add %+v: %v, want 400", m, err)
		}
	}
	if _, err := cl.RemoveMember(ctx, "n9"); !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Field != "id" {
		t.Errorf("remove n9: %v, want 400 naming id", err)
	}
	if g, err = cl.RemoveMember(ctx, "n4"); err != nil {
		t.Fatal(err)
	}
	if got := ids(g); !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Fatalf("after remove: %v", got)
	}
	for i, r := range c.reps { // the removal deleted n4's address everywhere
		for start := time.Now(); r.fsm.httpOf("n4") != ""; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("n%d still holds n4's HTTP address after its removal", i+1)
			}
		}
	}
	if _, err := ParseMember("n4=127.0.0.1:7104,n5=127.0.0.1:7105"); err == nil || !strings.Contains(err.Error(), "member") {
		t.Errorf("two members parsed: %v", err)
	}

	st, err := store.Open(filepath.Join(t.TempDir(), "one.db"), store.Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Config: testConfig(t), Store: st, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	one := &client.Client{Base: hs.URL}
	if _, err := one.AddMember(context.Background(), api.Member{ID: "n4", Addr: addr}); !errors.As(err, &ce) || ce.Status != http.StatusNotFound {
		t.Errorf("add on a single server: %v, want 404", err)
	}
}
