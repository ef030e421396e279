package replica

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/server"
)

// coord/server runs on a replica unchanged: the leader's server answers
// writes once a majority committed them; a follower's refuses them (503);
// after a leader change the new leader's first write is refused once (its
// server reloads the state, now as leader) and the retry succeeds with
// the old leader's jobs known; the old leader's server refuses.
func TestServerOnReplica(t *testing.T) {
	c := newCluster(t, 3, nil)
	li := c.leader(5 * time.Second)
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
	if err := c.reps[li].raft.LeadershipTransfer().Error(); err != nil {
		t.Fatal(err)
	}
	ni := c.leader(5*time.Second, li)
	if code := register(ni, "c"); code != http.StatusServiceUnavailable {
		t.Fatalf("first write on the new leader: %d, want 503 (reload)", code)
	}
	if code := register(ni, "c"); code != http.StatusOK {
		t.Fatalf("retry on the new leader: %d", code)
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
