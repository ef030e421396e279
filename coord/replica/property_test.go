package replica

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"pgregory.net/rapid"
)

// Random sequences of core calls (register, acquire, renew, release,
// cancel, done, time passing so that leases expire), their changes
// committed both through raft (some in batches, as the group commit does)
// and to the single server's bbolt store: every replica ends with the
// bbolt store's state.
func TestSameStateAsBolt(t *testing.T) {
	t.Parallel()
	// One leader for the whole property: long timeouts so that a stall
	// of the busy machine does not depose it (that is the fault tests'
	// business, not this one's).
	c := newCluster(t, 3, func(o *Options) {
		o.NoSync = true
		o.HeartbeatTimeout, o.ElectionTimeout, o.LeaderLeaseTimeout = 2*time.Second, 2*time.Second, time.Second
	})
	li := c.leader(leaderWait)
	dir := t.TempDir()
	iter := 0
	rapid.Check(t, func(rt *rapid.T) {
		iter++
		r := c.reps[li]
		meta, jobs, err := r.Load()
		if err != nil {
			rt.Fatal(err)
		}
		orc, err := store.Open(filepath.Join(dir, fmt.Sprintf("o%d.db", iter)), store.Options{Init: true, NoSync: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer orc.Close()
		if err := orc.Commit(coord.Changes{Meta: meta, Put: jobs}); err != nil {
			rt.Fatal(err)
		}
		cfg := testConfig(t)
		cfg.MaxTTL = 30 // ended jobs are forgotten (deleted) within a sequence
		core, err := coord.Restore(cfg, meta, jobs)
		if err != nil {
			rt.Fatal(err)
		}
		now := meta.Now
		var batch []coord.Changes
		flush := func() {
			if err := r.Commit(batch...); err != nil {
				rt.Fatal(err)
			}
			if err := orc.Commit(batch...); err != nil {
				rt.Fatal(err)
			}
			batch = batch[:0]
		}
		steps := rapid.IntRange(1, 20).Draw(rt, "steps")
		for range steps {
			now += rapid.Float64Range(0, 6).Draw(rt, "dt")
			randomCall(rt, core, now)
			batch = append(batch, core.TakeChanges())
			if rapid.IntRange(0, 2).Draw(rt, "batch") == 0 {
				flush()
			}
		}
		flush()
		mo, jo, err := orc.Load()
		if err != nil {
			rt.Fatal(err)
		}
		m, j := state(r)
		sameState(rt, "leader "+r.opt.ID, m, j, mo, jo)
		c.settle(li)
	})
}

// randomCall makes one core call with random arguments (errors are part
// of the sequence: a refused call may still change counters).
func randomCall(t *rapid.T, c *coord.Coordinator, now float64) {
	id := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "job")
	req := rapid.SampledFrom([]string{"r0", "r1", "r2"}).Draw(t, "request")
	var token uint64
	if j, ok := c.Job(id); ok && j.Lease != nil && rapid.Bool().Draw(t, "held token") {
		token = j.Lease.Token
	} else {
		token = rapid.Uint64Range(0, 20).Draw(t, "token")
	}
	switch rapid.IntRange(0, 6).Draw(t, "call") {
	case 0:
		c.Register(now, coord.JobSpec{ID: id, Nodes: rapid.IntRange(1, 8).Draw(t, "nodes"), Bytes: 1e9, MTBF: 1e5})
	case 1:
		kind := rapid.SampledFrom([]arbiter.Kind{arbiter.Checkpoint, arbiter.Recovery, arbiter.Output}).Draw(t, "kind")
		c.Acquire(now, coord.AcquireRequest{Job: id, RequestID: req, Kind: kind})
	case 2:
		c.Renew(now, id, token)
	case 3:
		c.Release(now, id, token, rapid.Float64Range(0, 5).Draw(t, "measured"))
	case 4:
		c.Cancel(now, id, req)
	case 5:
		c.Done(now, id, rapid.Bool().Draw(t, "failed"))
	case 6:
		c.Tick(now + rapid.Float64Range(0, 40).Draw(t, "idle"))
	}
}
