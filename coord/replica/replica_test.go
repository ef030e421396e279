package replica

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// mirror is the oracle: the single server's bbolt store, given every
// change the replicas acknowledged and nothing else.
func mirror(t testing.TB) *store.Bolt {
	s, err := store.Open(filepath.Join(t.TempDir(), "oracle.db"), store.Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func loadOracle(t testing.TB, s *store.Bolt) (coord.Meta, []coord.Job) {
	t.Helper()
	m, j, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	return m, j
}

// A commit acknowledged by the leader is on a majority: with one replica
// down it still commits and both replicas up hold it, and the replica
// that was down gets it when it comes back; with two down nothing is
// acknowledged.
func TestMajorityCommit(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	li := c.leader(leaderWait)
	o := own(t, c.reps[li])
	orc := mirror(t)
	do := func(now float64, id string) error {
		if _, err := o.core.Register(now, coord.JobSpec{ID: id, Nodes: 2, Bytes: 1e9, MTBF: 1e5}); err != nil {
			t.Fatal(err)
		}
		ch := o.core.TakeChanges()
		if err := o.r.Commit(ch); err != nil {
			return err
		}
		return orc.Commit(ch)
	}
	if err := do(1, "a"); err != nil {
		t.Fatal(err)
	}
	// Acknowledged means committed on a majority: at least one follower
	// has the entry already (the commit index moved past it).
	idx := c.reps[li].raft.AppliedIndex()
	have := 0
	for i, r := range c.reps {
		if i != li && r.raft.LastIndex() >= idx {
			have++
		}
	}
	if have == 0 {
		t.Fatalf("commit %d acknowledged with no follower holding it", idx)
	}
	f := (li + 1) % 3
	c.kill(f)
	if err := do(2, "b"); err != nil {
		t.Fatalf("commit with 2 of 3 up: %v", err)
	}
	c.settle(li)
	m, j := loadOracle(t, orc)
	for i, r := range c.reps {
		if r != nil {
			mi, ji := state(r)
			sameState(t, fmt.Sprintf("replica %d", i), mi, ji, m, j)
		}
	}
	c.start(f)
	c.settle(li)
	mf, jf := state(c.reps[f])
	sameState(t, "replica back", mf, jf, m, j)

	// Two of three down: no majority, the commit fails (the leader steps
	// down) within the commit timeout, and nothing is acknowledged.
	c.kill(f)
	c.kill((li + 2) % 3)
	start := time.Now()
	err := do(3, "c")
	if err == nil {
		t.Fatal("commit acknowledged without a majority")
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("commit without a majority took %v to fail", d)
	}
	if err := c.reps[li].Commit(coord.Changes{Meta: coord.Meta{Token: 99}, Put: []coord.Job{{Spec: coord.JobSpec{ID: "x"}}}}); !errors.Is(err, ErrReload) {
		t.Fatalf("commit after a failed one without reloading: %v, want ErrReload", err)
	}
}

// Killing the leader yields a new leader within 5 s, and the new leader's
// state is every acknowledged change (the oracle's): nothing is lost.
// Repeated three times, restarting the killed replica each time.
func TestLeaderKilled(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	orc := mirror(t)
	now := 0.0
	for round := range 3 {
		li := c.leader(leaderWait)
		m0, j0 := loadOracle(t, orc)
		mo, jo, _ := c.reps[li].Load()
		sameState(t, fmt.Sprintf("round %d: new leader's state", round), mo, jo, m0, j0)
		o := own(t, c.reps[li])
		for k := range 5 {
			now++
			id := fmt.Sprintf("j%d-%d", round, k)
			if _, err := o.core.Register(now, coord.JobSpec{ID: id, Nodes: 1, Bytes: 1e9, MTBF: 1e5}); err != nil {
				t.Fatal(err)
			}
			if _, err := o.core.Acquire(now, coord.AcquireRequest{Job: id, RequestID: "r", Kind: arbiter.Checkpoint}); err != nil {
				t.Fatal(err)
			}
			ch := o.core.TakeChanges()
			if err := o.r.Commit(ch); err != nil {
				t.Fatal(err)
			}
			if err := orc.Commit(ch); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		c.kill(li)
		ni := c.leader(leaderWait, li)
		t.Logf("round %d: leader n%d killed, n%d leads after %v", round, li+1, ni+1, time.Since(start).Round(time.Millisecond))
		c.start(li)
	}
	li := c.leader(leaderWait)
	m, j, err := c.reps[li].Load()
	if err != nil {
		t.Fatal(err)
	}
	mo, jo := loadOracle(t, orc)
	sameState(t, "final", m, j, mo, jo)
	if len(j) != 15 {
		t.Fatalf("%d jobs, want 15", len(j))
	}
}

// Fencing tokens never repeat nor go backwards across leader changes:
// each round the leader grants one lease; then it is killed (or hands
// over leadership) and the next leader grants the next.
func TestFencingAcrossLeaderChanges(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	var last uint64
	now := 0.0
	for round := range 5 {
		li := c.leader(leaderWait)
		o := own(t, c.reps[li])
		for k := range 2 {
			now += 2
			tok, err := o.checkpoint(now, fmt.Sprintf("r%d-%d", round, k))
			if err != nil {
				t.Fatal(err)
			}
			if tok <= last {
				t.Fatalf("round %d: token %d after %d", round, tok, last)
			}
			last = tok
		}
		if round%2 == 0 {
			c.kill(li)
			c.leader(leaderWait, li)
			c.start(li)
		} else {
			handOver(t, c.reps[li], "", "")
		}
	}
	if last != 10 {
		t.Fatalf("last token %d, want 10 (one per grant)", last)
	}
}

// A leader cut off the network cannot commit once a new leader exists:
// its commit fails, the new leader never sees the change, and when the
// old leader rejoins it holds the new leader's state, without its own
// refused change.
func TestStaleLeaderRefused(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	li := c.leader(leaderWait)
	old := own(t, c.reps[li])
	if _, err := old.checkpoint(1, "before"); err != nil {
		t.Fatal(err)
	}
	// The stale leader's core grants a lease to "stale" and commits it
	// right after the cut, while it still believes it leads: the entry is
	// appended to its log but can reach no majority.
	if _, err := old.core.Register(2, coord.JobSpec{ID: "stale", Nodes: 1, Bytes: 1e9, MTBF: 1e5}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.core.Acquire(2, coord.AcquireRequest{Job: "stale", RequestID: "r", Kind: arbiter.Checkpoint}); err != nil {
		t.Fatal(err)
	}
	c.reps[li].cut(true)
	leading := c.reps[li].IsLeader()
	res := make(chan error, 1)
	go func() { res <- old.commit() }()
	ni := c.leader(leaderWait, li)
	if err := <-res; err == nil {
		t.Fatal("the cut-off leader committed a grant")
	} else {
		t.Logf("stale leader (leading when it tried: %v): %v", leading, err)
	}
	nw := own(t, c.reps[ni])
	tok, err := nw.checkpoint(3, "after")
	if err != nil {
		t.Fatal(err)
	}
	if tok != 2 {
		t.Fatalf("new leader's token %d, want 2 (the stale grant never counted)", tok)
	}
	c.reps[li].cut(false)
	c.settle(ni)
	m, j := state(c.reps[ni])
	mo, jo := state(c.reps[li])
	sameState(t, "old leader rejoined", mo, jo, m, j)
	for _, jb := range jo {
		if jb.Spec.ID == "stale" {
			t.Fatal("the refused grant is in the state")
		}
	}
	// The old owner cannot write until it reloads, and then it is a
	// follower and is refused with the leader named.
	if err := old.commit(); !errors.Is(err, ErrReload) {
		t.Fatalf("commit after failure: %v, want ErrReload", err)
	}
	old = own(t, c.reps[li])
	if _, err := old.core.Register(4, coord.JobSpec{ID: "again", Nodes: 1, Bytes: 1e9, MTBF: 1e5}); err != nil {
		t.Fatal(err)
	}
	var nl *NotLeaderError
	if err := old.commit(); !errors.As(err, &nl) || nl.Leader != c.reps[ni].Addr() {
		t.Fatalf("commit on a follower: %v, want NotLeaderError naming %s", err, c.reps[ni].Addr())
	}
}

// A leader that loses and regains leadership without reloading is
// refused: another leader may have changed the state meanwhile.
func TestRegainedLeaderMustReload(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	li := c.leader(leaderWait)
	o := own(t, c.reps[li])
	if _, err := o.checkpoint(1, "a"); err != nil {
		t.Fatal(err)
	}
	handOver(t, c.reps[li], "", "")
	ni := c.leader(leaderWait, li)
	other := own(t, c.reps[ni])
	if _, err := other.checkpoint(2, "b"); err != nil {
		t.Fatal(err)
	}
	r := c.reps[li]
	handOver(t, c.reps[ni], r.opt.ID, r.Addr())
	if c.leader(leaderWait) != li {
		t.Fatal("leadership did not come back")
	}
	// o's core still thinks token 1 was the last: its next grant would
	// be token 2 again.
	if _, err := o.checkpoint(3, "c"); err == nil {
		t.Fatal("a leader of a later term committed changes from an older state")
	}
	o = own(t, r)
	tok, err := o.checkpoint(4, "c")
	if err != nil {
		t.Fatal(err)
	}
	if tok != 3 {
		t.Fatalf("token %d after reload, want 3", tok)
	}
}

// A replica that was down while the log was compacted catches up from
// the leader's snapshot.
func TestCatchUpFromSnapshot(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, func(o *Options) { o.TrailingLogs = 4; o.SnapshotThreshold = 8 })
	li := c.leader(leaderWait)
	f := (li + 1) % 3
	c.kill(f)
	o := own(t, c.reps[li])
	for k := range 20 {
		if _, err := o.checkpoint(float64(2*k), fmt.Sprintf("j%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.reps[li].Snapshot(); err != nil {
		t.Fatal(err)
	}
	if first, _ := c.reps[li].logs.FirstIndex(); first <= 2 {
		t.Fatalf("log not compacted (first index %d)", first)
	}
	c.start(f)
	before := c.reps[f].fsm.restored()
	c.settle(li)
	if c.reps[f].fsm.restored() == before {
		t.Fatal("the replica caught up without a snapshot")
	}
	m, j := state(c.reps[li])
	mf, jf := state(c.reps[f])
	sameState(t, "caught up", mf, jf, m, j)
	if m.Token != 20 || len(j) != 20 {
		t.Fatalf("token %d, %d jobs; want 20, 20", m.Token, len(j))
	}
}

// TestCloseBounded: a raft Shutdown that never returns (hashicorp/raft
// v1.7.3 can block on a full replication queue) does not hold Close, and
// so a stopping server, past ShutdownWait.
func TestCloseBounded(t *testing.T) {
	c := newCluster(t, 1, nil)
	i := c.leader(leaderWait)
	r := c.reps[i]
	release := make(chan struct{})
	// Hung until released, then the real shutdown (a second Close's; the
	// field is not written again: the hung Close's goroutine read it).
	r.shutdown = func() error { <-release; return r.raft.Shutdown().Error() }
	start := time.Now()
	err := r.Close()
	took := time.Since(start)
	close(release)
	if err == nil || !strings.Contains(err.Error(), "did not shut down") {
		t.Fatalf("Close of a hung raft: %v, want an error saying it did not shut down", err)
	}
	if took < ShutdownWait || took > ShutdownWait+3*time.Second {
		t.Fatalf("Close took %v, want about %v", took, ShutdownWait)
	}
	r.Close() // the real shutdown, so the cluster's cleanup finds it stopped
	c.reps[i] = nil
}
