package loadgen

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"strings"
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
