package coord

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// Memory grows in proportion to the jobs: the heap per job is the same
// (within 25 %) at 1 000 and 10 000 jobs, each with a waiting request
// and a full idempotency history, and below 4 KiB.
func TestMemoryPerJob(t *testing.T) {
	perJob := func(n int) float64 {
		p, _ := arbiter.Policies.Lookup("ordered")
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, _ := New(Config{Policy: p, Bandwidth: 1e9, TTL: 1e6, MaxTTL: 1e6})
		for i := range n {
			id := fmt.Sprint("job-", i)
			c.Register(0, JobSpec{ID: id, Nodes: 8, Bytes: 1e9, MTBF: 1e5})
			for k := range maxRecent {
				g, _ := c.Acquire(1, AcquireRequest{Job: id, RequestID: fmt.Sprint("r", k), Kind: arbiter.Checkpoint})
				if g.Status == StatusGranted {
					c.Release(1, id, g.Token, 1)
				} else {
					c.Cancel(1, id, fmt.Sprint("r", k))
				}
			}
			c.Acquire(1, AcquireRequest{Job: id, RequestID: "last", Kind: arbiter.Checkpoint})
		}
		c.TakeChanges()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(c)
		return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	}
	small, large := perJob(1000), perJob(10000)
	t.Logf("heap per job: %.0f B at 1000 jobs, %.0f B at 10000", small, large)
	if large > 4096 || large > 1.25*small || small > 1.25*large {
		t.Errorf("heap per job %.0f B at 1000 jobs, %.0f B at 10000", small, large)
	}
}
