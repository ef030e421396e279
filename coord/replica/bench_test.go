package replica

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
)

// BenchmarkCommit: one registration committed per operation, durable
// (fsync), through the single bbolt store and through three loopback
// replicas (one raft entry, fsynced on the leader and a follower before
// the answer).
func BenchmarkCommit(b *testing.B) {
	run := func(b *testing.B, s store.Store) {
		core, err := coord.New(testConfig(b))
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range b.N {
			if _, err := core.Register(float64(i), coord.JobSpec{ID: fmt.Sprint("j", i), Nodes: 1, Bytes: 1e9, MTBF: 1e5}); err != nil {
				b.Fatal(err)
			}
			if err := s.Commit(core.TakeChanges()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("bolt", func(b *testing.B) {
		s, err := store.Open(filepath.Join(b.TempDir(), "c.db"), store.Options{Init: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
	b.Run("raft3", func(b *testing.B) {
		c := newCluster(b, 3, nil)
		r := c.reps[c.leader(leaderWait)]
		if _, _, err := r.Load(); err != nil {
			b.Fatal(err)
		}
		run(b, r)
	})
}
