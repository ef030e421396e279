package client

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// A client of several URLs: a dead one is skipped, a follower's 307 is
// followed with the bearer token, every attempt carries the same body
// (the same job token: the server's dedup key), the next request goes
// straight to the URL that answered, and a 503 moves on to the next URL.
func TestSeveralURLs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	var mu sync.Mutex
	var leaderBodies []string
	var followerHits int
	failOnce := false
	leader := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if failOnce {
			failOnce = false
			http.Error(w, `{"error":"commit failed","code":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		leaderBodies = append(leaderBodies, string(b))
		w.Write([]byte(`{"id":"j"}`))
	}))
	defer leader.Close()
	follower := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		followerHits++
		mu.Unlock()
		w.Header().Set("Location", leader.URL+r.URL.RequestURI())
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer follower.Close()

	c, err := New(dead+","+follower.URL+"/,"+leader.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	req := api.RegisterRequest{ID: "j", Nodes: 1, JobToken: "jt-1"}
	if _, err := c.Register(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(leaderBodies) != 2 || followerHits != 1 || leaderBodies[0] != leaderBodies[1] || !strings.Contains(leaderBodies[0], `"jt-1"`) {
		t.Fatalf("leader got %q, follower %d hits; want the same body twice and one redirect", leaderBodies, followerHits)
	}
	failOnce = true
	mu.Unlock()
	if _, err := c.Register(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaderBodies) != 3 || followerHits != 2 || leaderBodies[2] != leaderBodies[0] {
		t.Fatalf("after a 503: leader got %d bodies, follower %d hits; want 3 and 2 (503, dead URL, redirect, leader)", len(leaderBodies), followerHits)
	}
	for _, bad := range []string{"http://a,", "http://a,ftp://b", ",http://a", "http://a,,http://b"} {
		if _, err := New(bad, ""); err == nil || !usage.Is(err) {
			t.Errorf("New(%q): %v, want a usage error", bad, err)
		}
	}
}

// A 307 is followed with the bearer token only to a configured URL or to
// a replica the redirecting server's /v1/status lists; a 307 to any
// other host is an error naming it, and that host never sees a request.
func TestRedirectOnlyToKnownHosts(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // server -> Authorization headers received
	record := func(name string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[name] = append(seen[name], r.Header.Get("Authorization"))
	}
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("foreign", r)
		w.Write([]byte(`{"id":"j"}`))
	}))
	defer foreign.Close()
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("peer", r)
		w.Write([]byte(`{"id":"j"}`))
	}))
	defer peer.Close()
	target := foreign.URL
	follower := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" {
			w.Write([]byte(`{"jobs":0,"replication":{"id":"n1","peers":[{"id":"n1","addr":"x:1"},{"id":"n2","addr":"x:2","http":"` +
				strings.TrimPrefix(peer.URL, "http://") + `"}]}}`))
			return
		}
		mu.Lock()
		w.Header().Set("Location", target+r.URL.RequestURI())
		mu.Unlock()
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer follower.Close()
	c, err := New(follower.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Register(context.Background(), api.RegisterRequest{ID: "j", Nodes: 1})
	if err == nil || !strings.Contains(err.Error(), foreign.URL) || !strings.Contains(err.Error(), "not followed") {
		t.Fatalf("a 307 to a foreign host: %v, want an error naming %s", err, foreign.URL)
	}
	mu.Lock()
	if len(seen["foreign"]) != 0 {
		t.Fatalf("the foreign host received %d requests (Authorization %q)", len(seen["foreign"]), seen["foreign"])
	}
	target = peer.URL
	mu.Unlock()
	if _, err := c.Register(context.Background(), api.RegisterRequest{ID: "j", Nodes: 1}); err != nil {
		t.Fatalf("a 307 to a replica the group lists: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen["peer"]) != 1 || seen["peer"][0] != "Bearer tok" {
		t.Fatalf("the listed replica received %q, want one request with the bearer token", seen["peer"])
	}
}

// New accepts a list exactly when every comma-separated item is an
// http(s) URL with a host; a client of any accepted list answers a
// request (here: nothing listens) with an error, never a panic.
func FuzzNew(f *testing.F) {
	f.Add("http://127.0.0.1:1,https://[::1]:1/x")
	f.Add(",")
	f.Add("http://a, http://b/")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := New(s, "")
		if err != nil {
			if !usage.Is(err) {
				t.Fatalf("%q: %v is not a usage error", s, err)
			}
			return
		}
		for b := range strings.SplitSeq(s, ",") {
			if _, err := origin(b); err != nil {
				t.Fatalf("%q accepted with item %q: %v", s, b, err)
			}
		}
		if len(c.bases()) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d bases", s, len(c.bases()))
		}
	})
}

// TestRedirectTrustIsNotTransitive: a replica the configured server lists
// (P) cannot vouch for another host (X): when P redirects to X and P's own
// status lists X, X is still not followed and never sees the token — only
// the servers the client was given say who their replicas are.
func TestRedirectTrustIsNotTransitive(t *testing.T) {
	var mu sync.Mutex
	var xAuth []string
	x := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		xAuth = append(xAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"id":"j"}`))
	}))
	defer x.Close()
	status := func(w http.ResponseWriter, listed string) {
		w.Write([]byte(`{"jobs":0,"replication":{"id":"n","peers":[{"id":"p","addr":"x:1","http":"` + strings.TrimPrefix(listed, "http://") + `"}]}}`))
	}
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" {
			status(w, x.URL)
			return
		}
		w.Header().Set("Location", x.URL+r.URL.RequestURI())
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer p.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" {
			status(w, p.URL)
			return
		}
		w.Header().Set("Location", p.URL+r.URL.RequestURI())
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer a.Close()
	c, err := New(a.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Register(context.Background(), api.RegisterRequest{ID: "j", Nodes: 1})
	if err == nil || !strings.Contains(err.Error(), "not followed") {
		t.Fatalf("A → P → X: %v, want an error: X is listed by P only", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(xAuth) != 0 {
		t.Fatalf("X received %d requests (Authorization %q)", len(xAuth), xAuth)
	}
}
