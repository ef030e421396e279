package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	bolt "go.etcd.io/bbolt"
	"pgregory.net/rapid"
)

// The records a commit writes are json.Marshal's bytes (the oracle) for
// any job and meta record — ids with HTML characters, escapes and any
// Unicode, leases of every kind, fractional and huge numbers — even when
// the commit's buffer grows under the records written before: each key
// holds exactly Marshal's encoding of its job after the commit (with the
// WAL, once a checkpoint has applied it).
func TestRecordsAreMarshal(t *testing.T) {
	for _, noWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("NoWAL=%v", noWAL), func(t *testing.T) { recordsAreMarshal(t, noWAL) })
	}
}

// checkpointed applies s's WAL (if any) to its database.
func checkpointed(t interface{ Fatal(...any) }, s *Bolt) {
	if s.wals[0] == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkpointAll(""); err != nil {
		t.Fatal(err)
	}
}

func recordsAreMarshal(t *testing.T, noWAL bool) {
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{Init: true, NoSync: true, NoWAL: noWAL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "jobs")
		want := map[string][]byte{}
		var ch coord.Changes
		for i := range n {
			id := rapid.StringMatching(`[a-z<>&"\\\x{00e9}\x{2028}-]{1,12}`).Draw(t, "id") + string(rune('A'+i%26)) + string(rune('0'+i/26))
			j := coord.Job{Spec: coord.JobSpec{ID: id, Nodes: rapid.IntRange(1, 1<<20).Draw(t, "nodes"),
				Bytes: rapid.Float64Range(0, 1e18).Draw(t, "bytes"), MTBF: rapid.Float64Range(1, 1e12).Draw(t, "mtbf"),
				AuthHash: rapid.StringMatching(`[0-9a-f]{0,64}`).Draw(t, "hash")},
				LastCheckpoint: rapid.Float64().Filter(func(f float64) bool { return f == f && f-f == 0 }).Draw(t, "last")}
			if rapid.Bool().Draw(t, "lease") {
				j.Lease = &coord.Lease{RequestID: rapid.StringMatching(`[A-Za-z0-9._:-]{1,20}`).Draw(t, "rid"),
					Kind:  arbiter.Kind(rapid.IntRange(int(arbiter.Input), int(arbiter.Output)).Draw(t, "kind")),
					Bytes: rapid.Float64Range(0, 1e15).Draw(t, "lbytes"), Granted: rapid.Bool().Draw(t, "granted"),
					Token: rapid.Uint64().Draw(t, "token"), Expires: rapid.Float64Range(-1e9, 1e12).Draw(t, "expires")}
			}
			ch.Put = append(ch.Put, j)
			b, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			want[id] = b
		}
		ch.Meta = coord.Meta{Token: rapid.Uint64().Draw(t, "metatoken"), Seq: rapid.Uint64().Draw(t, "seq"), Now: rapid.Float64Range(0, 1e12).Draw(t, "now")}
		if err := s.Commit(ch); err != nil {
			t.Fatal(err)
		}
		wantMeta, _ := json.Marshal(ch.Meta)
		checkpointed(t, s)
		s.db.View(func(tx *bolt.Tx) error {
			for id, b := range want {
				if got := tx.Bucket(bucketJobs).Get([]byte(id)); !bytes.Equal(got, b) {
					t.Fatalf("job %q stored as\n%s\nwant Marshal's\n%s", id, got, b)
				}
			}
			if got := tx.Bucket(bucketMeta).Get(keyState); !bytes.Equal(got, wantMeta) {
				t.Fatalf("meta stored as %s, want %s", got, wantMeta)
			}
			return nil
		})
	})
}
