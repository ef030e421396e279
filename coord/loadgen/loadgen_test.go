package loadgen

import (
	"context"
	"errors"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// A short run against a local server: decisions are counted, grants are
// made, no errors, and the server's grant counter agrees with ours.
func TestRunLocal(t *testing.T) {
	p, _ := arbiter.Policies.Lookup("least-waste")
	url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: 50, Clients: 4, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decisions < 10 || r.Grants == 0 || r.Errors != 0 || !(r.P50 <= r.P99 && r.P99 <= r.Max) {
		t.Fatalf("%+v", r)
	}
	st, _ := (&client.Client{Base: url, Token: LocalToken}).Status(context.Background())
	if int(st.Counters.Grants) < r.Grants || int(st.Counters.Grants) > r.Grants+r.Clients {
		t.Errorf("server counted %d grants, the clients %d", st.Counters.Grants, r.Grants)
	}
	if int(st.Counters.Releases) < r.Releases || int(st.Counters.Releases) > r.Releases+r.Clients || r.Releases == 0 || r.Dones != 0 {
		t.Errorf("server counted %d releases, the clients %d (and %d dones)", st.Counters.Releases, r.Releases, r.Dones)
	}
}

// BenchmarkLocal1000 drives a local least-waste coordinator (fsync on)
// with 1000 jobs from 32 clients for 3 s per iteration and reports
// decisions/s and p99 latency.
func BenchmarkLocal1000(b *testing.B) {
	p, _ := arbiter.Policies.Lookup("least-waste")
	for range b.N {
		url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 4e10, NodeMTBF: 1e7}, b.TempDir(), false)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: 1000, Clients: 32, Duration: 3 * time.Second})
		stop()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.PerSecond, "decisions/s")
		b.ReportMetric(r.P99*1e3, "p99-ms")
	}
}

// A request that fails is an error, not a decision, and the run says it
// failed: a coordinator that answers 503 to every acquire gives as many
// decisions as it answered (the next requests), no latency for the
// failures, and ErrFailed.
func TestFailedRequestsAreErrors(t *testing.T) {
	p, _ := arbiter.Policies.Lookup("ordered")
	url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	target, _ := neturl.Parse(url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // requests cut at the end of the run
	var answered, failed atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/acquire") {
			failed.Add(1)
			http.Error(w, `{"error":"down","code":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/next") {
			answered.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer ts.Close()
	r, err := Run(context.Background(), Options{URL: ts.URL, Token: LocalToken, Jobs: 4, Clients: 2, Duration: 300 * time.Millisecond})
	if !errors.Is(err, ErrFailed) {
		t.Errorf("run with failed requests: %v", err)
	}
	if r.Errors == 0 || int64(r.Errors) > failed.Load() || int64(r.Decisions) > answered.Load() || r.Grants != 0 {
		t.Errorf("%+v: %d acquires failed, %d next answered", r, failed.Load(), answered.Load())
	}
}

// With Sources the clients come from as many loopback addresses (the
// server's view of r.RemoteAddr is the oracle), and answers 429 are
// counted as refused by the rate limit (the server's own count is the
// oracle).
func TestSourcesAndRateLimitCounted(t *testing.T) {
	p, _ := arbiter.Policies.Lookup("least-waste")
	url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	target, _ := neturl.Parse(url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // requests cut at the end of the run
	var mu sync.Mutex
	hosts := map[string]bool{}
	var nexts, refused atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		hosts[host] = true
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/next") && nexts.Add(1)%3 == 0 {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":"rate limit exceeded","code":"rate_limited"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	r, err := Run(context.Background(), Options{URL: front.URL, Token: LocalToken, Jobs: 40, Clients: 8, Sources: 4, Duration: 300 * time.Millisecond})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("a run with refusals: %v, want ErrFailed", err)
	}
	want := map[string]bool{"127.0.0.1": true, "127.0.0.2": true, "127.0.0.3": true, "127.0.0.4": true}
	mu.Lock() // requests cut at the end of the run may still be in the handler
	seen := maps.Clone(hosts)
	mu.Unlock()
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("the server saw clients from %v, want %v", seen, want)
	}
	if r.RateLimited == 0 || int64(r.RateLimited) > refused.Load() || int64(r.RateLimited) < refused.Load()-int64(r.Clients) {
		t.Errorf("loadgen counted %d refused by the rate limit, the server refused %d", r.RateLimited, refused.Load())
	}
	if !strings.Contains(r.Text(), "rate limit") {
		t.Errorf("the text does not state the rate limit: %s", r.Text())
	}
	if err := (Options{URL: "http://10.1.2.3:7070", Jobs: 2, Clients: 2, Duration: time.Second, Sources: 2}).Validate(); err == nil {
		t.Error("loopback sources towards a remote server accepted")
	}
	if err := (Options{URL: front.URL, Jobs: 1, Clients: 1, Duration: time.Second, Sources: 255}).Validate(); err == nil {
		t.Error("255 sources accepted")
	}
	for _, o := range []Options{{Jobs: 10, Clients: 2, Sources: 3}, {Jobs: 2, Clients: 8, Sources: 4}} {
		o.URL, o.Duration = front.URL, time.Second
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "sources") {
			t.Errorf("%d sources for %d clients and %d jobs: %v, want refused naming sources", o.Sources, o.Clients, o.Jobs, err)
		}
	}
}

// Several URLs follow the leader: the first is a closed port (a dead
// replica), the second answers every request with a 307 to the server
// (a follower, whose /v1/status lists the server): the run makes decisions and no errors, and the server's
// counters agree with the clients'. The same URLs one at a time fail.
func TestRunFollowsLeader(t *testing.T) {
	p, _ := arbiter.Policies.Lookup("least-waste")
	url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var redirected atomic.Int64
	follower := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" { // the group, as a follower lists it: the client follows 307s only to these
			w.Write([]byte(`{"replication":{"peers":[{"id":"n1","addr":"127.0.0.1:1","http":"` + strings.TrimPrefix(url, "http://") + `"}]}}`))
			return
		}
		redirected.Add(1)
		http.Redirect(w, r, url+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer follower.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	o := Options{URL: dead + "," + follower.URL, Token: LocalToken, Jobs: 20, Clients: 2, Duration: 300 * time.Millisecond, Prefix: "follow-"}
	r, err := Run(context.Background(), o)
	if err != nil || r.Errors != 0 || r.Decisions < 10 || r.Grants == 0 || redirected.Load() == 0 {
		t.Fatalf("%+v, %v; %d redirected", r, err, redirected.Load())
	}
	st, _ := (&client.Client{Base: url, Token: LocalToken}).Status(context.Background())
	if int(st.Counters.Grants) < r.Grants || int(st.Counters.Grants) > r.Grants+r.Clients {
		t.Errorf("server counted %d grants, the clients %d", st.Counters.Grants, r.Grants)
	}
	for _, u := range []string{dead, follower.URL} {
		o.URL, o.Prefix = u, "single-"
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("one URL %s: no error; a request sent once to a dead server or a follower must fail", u)
		}
	}
}
