package loadgen

import (
	"context"
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
	r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: 50, Workers: 4, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decisions < 10 || r.Grants == 0 || r.Errors != 0 || !(r.P50 <= r.P99 && r.P99 <= r.Max) {
		t.Fatalf("%+v", r)
	}
	st, _ := (&client.Client{Base: url, Token: LocalToken}).Status(context.Background())
	if int(st.Counters.Grants) < r.Grants || int(st.Counters.Grants) > r.Grants+r.Workers {
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
		r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: 1000, Workers: 32, Duration: 3 * time.Second})
		stop()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.PerSecond, "decisions/s")
		b.ReportMetric(r.P99*1e3, "p99-ms")
	}
}
