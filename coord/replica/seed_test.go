package replica

import (
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// The HTTP addresses a group was bootstrapped with (--peers) are
// replicated by its first leader: after the first election every
// replica's map holds all three; a snapshot keeps them; a replica
// restarted from that snapshot with another --peers address for n2 and
// none for n1 reports n2's conflict in its Status and knows n1's address
// from the group; elected, its seeding pass overwrites nothing.
func TestBootstrapAddressesReplicated(t *testing.T) {
	t.Parallel()
	web := freeAddrs(t, 3)
	c := newCluster(t, 3, func(o *Options) {
		o.Peers = slices.Clone(o.Peers)
		for i := range o.Peers {
			o.Peers[i].HTTP = web[i]
		}
	})
	c.leader(leaderWait)
	want := map[string]string{"n1": web[0], "n2": web[1], "n3": web[2]}
	for i, r := range c.reps {
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			r.fsm.mu.RLock()
			ok := maps.Equal(r.fsm.http, want)
			got := maps.Clone(r.fsm.http)
			r.fsm.mu.RUnlock()
			if ok {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("n%d's replicated addresses %v, want %v", i+1, got, want)
			}
		}
	}

	// n3's snapshot, read from its folder, holds them.
	if err := c.reps[2].Snapshot(); err != nil {
		t.Fatal(err)
	}
	snaps, err := raft.NewFileSnapshotStore(c.opts[2].Dir, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := snaps.List()
	if err != nil || len(metas) == 0 {
		t.Fatalf("n3's snapshots: %v, %v", metas, err)
	}
	_, rc, err := snaps.Open(metas[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := readSnapshot(rc)
	rc.Close()
	if err != nil || !maps.Equal(h.HTTP, want) {
		t.Fatalf("n3's snapshot holds addresses %v (%v), want %v", h.HTTP, err, want)
	}

	// n3 restarted with n2 elsewhere and n1 without an HTTP address.
	c.kill(2)
	o := &c.opts[2]
	o.Peers = slices.Clone(o.Peers)
	o.Peers[0].HTTP, o.Peers[1].HTTP = "", "127.0.0.1:1"
	c.start(2)
	n3 := c.reps[2]
	if n3.fsm.restored() == 0 {
		t.Fatal("n3 restarted without restoring its snapshot")
	}
	st := n3.Status()
	if len(st.Conflicts) != 1 || !strings.Contains(st.Conflicts[0], "replica n2") ||
		!strings.Contains(st.Conflicts[0], "127.0.0.1:1") || !strings.Contains(st.Conflicts[0], web[1]) {
		t.Fatalf("n3's conflicts %q, want n2's (127.0.0.1:1 against %s)", st.Conflicts, web[1])
	}
	if got := n3.httpOf("n1"); got != web[0] {
		t.Fatalf("n3 knows n1 at %q, want %s (the group's)", got, web[0])
	}
	if got := n3.httpOf("n2"); got != web[1] {
		t.Fatalf("n3 uses n2's address %q, want %s (the group's)", got, web[1])
	}
	li := c.leader(leaderWait)
	if li != 2 {
		handOver(t, c.reps[li], "n3", n3.Addr())
	}
	for start := time.Now(); !n3.IsLeader(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("n3 did not become the leader")
		}
	}
	n3.seedHTTP() // a pass of its own (the election's may still run)
	if err := n3.raft.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	for i, r := range c.reps {
		if got := r.fsm.httpOf("n2"); got != web[1] {
			t.Fatalf("n%d holds n2 at %q after n3 led, want %s (never overwritten)", i+1, got, web[1])
		}
	}
}

// A seed record sets an address only where none is recorded, and must
// carry one.
func TestSeedRecords(t *testing.T) {
	f := newFSM()
	for _, op := range []memberOp{{ID: "n1", HTTP: "127.0.0.1:7071", Seed: true}, {ID: "n2", HTTP: "127.0.0.1:7072"},
		{ID: "n2", HTTP: "127.0.0.1:9999", Seed: true}, {ID: "n1", HTTP: "127.0.0.1:9998", Seed: true}} {
		if r := f.Apply(command(t, 1, entry{Epoch: 1, Member: &op})); r != nil {
			t.Fatalf("%+v: %v", op, r)
		}
	}
	if r := f.Apply(command(t, 1, entry{Epoch: 1, Member: &memberOp{ID: "n3", Seed: true}})); r == nil {
		t.Error("a seed without an address applied")
	}
	want := map[string]string{"n1": "127.0.0.1:7071", "n2": "127.0.0.1:7072"}
	if !maps.Equal(f.http, want) {
		t.Fatalf("addresses %v, want %v", f.http, want)
	}
}
