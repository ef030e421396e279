package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/hashicorp/raft"
)

// sink is an in-memory snapshot sink.
type sink struct {
	bytes.Buffer
	cancelled bool
}

func (s *sink) ID() string    { return "test" }
func (s *sink) Cancel() error { s.cancelled = true; return nil }
func (s *sink) Close() error  { return nil }

func command(t testing.TB, term uint64, e entry) *raft.Log {
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return &raft.Log{Index: 1, Term: term, Type: raft.LogCommand, Data: b}
}

func someChanges() []coord.Changes {
	lease := &coord.Lease{RequestID: "r", Kind: arbiter.Checkpoint, Bytes: 1e9, Seq: 2, TTL: 10, Granted: true, Token: 7, Expires: 12}
	return []coord.Changes{
		{Meta: coord.Meta{Token: 6, Seq: 1, JobNum: 2}, Put: []coord.Job{{Spec: coord.JobSpec{ID: "a", Nodes: 1, Bytes: 1e9, MTBF: 1e5}, Num: 1}, {Spec: coord.JobSpec{ID: "b", Nodes: 4, Bytes: 1e9, MTBF: 1e5}, Num: 2}}},
		{Meta: coord.Meta{Token: 7, Seq: 2, JobNum: 2, Grants: 1}, Put: []coord.Job{{Spec: coord.JobSpec{ID: "b", Nodes: 4, Bytes: 1e9, MTBF: 1e5}, Num: 2, Lease: lease}}, Delete: []string{"a"}},
	}
}

// Apply applies the changes in order (the last meta record wins, a later
// put replaces, a delete removes); a snapshot of the result restores the
// same state into an empty machine.
func TestApplySnapshotRestore(t *testing.T) {
	f := newFSM()
	if r := f.Apply(command(t, 3, entry{Epoch: 3, Changes: someChanges()})); r != nil {
		t.Fatal(r)
	}
	m, j := f.state()
	if m.Token != 7 || len(j) != 1 || j[0].Spec.ID != "b" || j[0].Lease == nil || j[0].Lease.Token != 7 {
		t.Fatalf("state %+v %+v", m, j)
	}
	s, _ := f.Snapshot()
	var out sink
	if err := s.Persist(&out); err != nil {
		t.Fatal(err)
	}
	g := newFSM()
	if err := g.Restore(io.NopCloser(bytes.NewReader(out.Bytes()))); err != nil {
		t.Fatal(err)
	}
	gm, gj := g.state()
	sameState(t, "restored", gm, gj, m, j)
	if g.restored() != 1 {
		t.Fatalf("restores %d", g.restored())
	}
}

// A membership record sets or deletes a replica's HTTP address whatever
// its epoch, and changes nothing else; a bad one is refused. The
// addresses travel in the snapshot; a replica whose --peers disagrees
// with them says so (Status.Conflicts, the log) and uses the group's.
func TestMemberRecords(t *testing.T) {
	f := newFSM()
	f.Apply(command(t, 2, entry{Epoch: 2, Changes: someChanges()}))
	m0, j0 := f.state()
	for _, op := range []memberOp{{ID: "n4", HTTP: "127.0.0.1:7074"}, {ID: "n5", HTTP: "127.0.0.1:7075"}, {ID: "n5"}, {ID: "n6", HTTP: "127.0.0.1:7076"}} {
		if r := f.Apply(command(t, 3, entry{Epoch: 1, Member: &op})); r != nil {
			t.Fatalf("%+v: %v", op, r)
		}
	}
	for _, e := range []entry{{Member: &memberOp{ID: "n/7", HTTP: "127.0.0.1:1"}}, {Member: &memberOp{ID: "n7", HTTP: "nowhere"}},
		{Member: &memberOp{ID: "n7", HTTP: "127.0.0.1:1"}, Changes: someChanges()}} {
		if r := f.Apply(command(t, 3, e)); r == nil {
			t.Errorf("bad membership record %+v applied", *e.Member)
		}
	}
	want := map[string]string{"n4": "127.0.0.1:7074", "n6": "127.0.0.1:7076"}
	if !maps.Equal(f.http, want) {
		t.Fatalf("addresses %v, want %v", f.http, want)
	}
	m, j := f.state()
	sameState(t, "after membership records", m, j, m0, j0)
	s, _ := f.Snapshot()
	var out sink
	if err := s.Persist(&out); err != nil {
		t.Fatal(err)
	}
	var warned []string
	r := &Replica{opt: Options{Peers: []Peer{{ID: "n4", HTTP: "127.0.0.1:9999"}, {ID: "n6", HTTP: "127.0.0.1:7076"}, {ID: "n8", HTTP: "127.0.0.1:7078"}}}, fsm: newFSM()}
	r.fsm.onHTTP = func(id, web string) {
		if c := r.conflict(id, web); c != "" {
			warned = append(warned, c)
		}
	}
	if err := r.fsm.Restore(io.NopCloser(bytes.NewReader(out.Bytes()))); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(r.fsm.http, want) {
		t.Fatalf("restored addresses %v, want %v", r.fsm.http, want)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "n4") || !strings.Contains(warned[0], "127.0.0.1:9999") || !strings.Contains(warned[0], "127.0.0.1:7074") {
		t.Fatalf("conflicts reported: %q, want n4's only", warned)
	}
	for id, web := range map[string]string{"n4": "127.0.0.1:7074", "n6": "127.0.0.1:7076", "n8": "127.0.0.1:7078", "n9": ""} {
		if got := r.httpOf(id); got != web {
			t.Errorf("%s's HTTP address %q, want %q", id, got, web)
		}
	}
}

// An entry stamped with another term than the one it was appended in, or
// one that does not decode, changes nothing and answers an error.
func TestApplyRefuses(t *testing.T) {
	f := newFSM()
	f.Apply(command(t, 2, entry{Epoch: 2, Changes: someChanges()[:1]}))
	m0, j0 := f.state()
	var se *StaleError
	if r := f.Apply(command(t, 5, entry{Epoch: 4, Changes: someChanges()})); !errors.As(r.(error), &se) || se.Epoch != 4 || se.Term != 5 {
		t.Fatalf("stale entry: %v", r)
	}
	if r := f.Apply(&raft.Log{Term: 5, Type: raft.LogCommand, Data: []byte("{not json")}); r == nil {
		t.Fatal("garbage applied")
	}
	m, j := f.state()
	sameState(t, "after refused entries", m, j, m0, j0)
}

// A damaged snapshot is refused whole, naming what is wrong, and the
// state is unchanged.
func TestRestoreRefuses(t *testing.T) {
	var good sink
	f := newFSM()
	f.Apply(command(t, 1, entry{Epoch: 1, Changes: someChanges()[:1]}))
	s, _ := f.Snapshot()
	if err := s.Persist(&good); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(good.String(), "\n")
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "header"},
		{"not json", "hello", "header"},
		{"version", `{"version":"ckpt-coord/1","jobs":0}`, "version"},
		{"negative", `{"version":"` + SnapshotVersion + `","jobs":-1}`, "-1 jobs"},
		{"truncated", lines[0] + lines[1], "job 2 of 2"},
		{"duplicate", lines[0] + lines[1] + lines[1], "twice"},
		{"extra", good.String() + lines[1], "more than"},
		{"bad address", `{"version":"` + SnapshotVersion + `","jobs":0,"http":{"n4":"nowhere"}}`, "HTTP address"},
		{"bad id", `{"version":"` + SnapshotVersion + `","jobs":0,"http":{"n/4":"127.0.0.1:1"}}`, "HTTP address"},
	} {
		g := newFSM()
		g.Apply(command(t, 1, entry{Epoch: 1, Changes: someChanges()}))
		m0, j0 := g.state()
		err := g.Restore(io.NopCloser(strings.NewReader(tc.data)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
		m, j := g.state()
		sameState(t, tc.name, m, j, m0, j0)
	}
}

func FuzzApply(f *testing.F) {
	b, _ := json.Marshal(entry{Epoch: 1, Changes: someChanges()})
	f.Add(b, uint64(1))
	f.Add([]byte(`{"epoch":1,"changes":[{"Put":[{"spec":{}}],"Delete":[""]}]}`), uint64(1))
	f.Add([]byte("null"), uint64(0))
	f.Add([]byte(`{"epoch":1,"member":{"id":"n1","http":"127.0.0.1:7071","seed":true}}`), uint64(1))
	f.Add([]byte(`{"epoch":1,"member":{"id":"n1","seed":true}}`), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, term uint64) {
		m := newFSM()
		r := m.Apply(&raft.Log{Index: 1, Term: term, Type: raft.LogCommand, Data: data})
		if r != nil {
			if mm, j := m.state(); mm != (coord.Meta{}) || len(j) != 0 || len(m.http) != 0 {
				t.Fatalf("refused entry changed the state: %v", r)
			}
		}
	})
}

func FuzzRestore(f *testing.F) {
	fm := newFSM()
	fm.Apply(command(f, 1, entry{Epoch: 1, Changes: someChanges()}))
	fm.Apply(command(f, 1, entry{Member: &memberOp{ID: "n4", HTTP: "127.0.0.1:7074"}}))
	s, _ := fm.Snapshot()
	var good sink
	s.Persist(&good)
	f.Add(good.Bytes())
	f.Add([]byte(`{"version":"` + SnapshotVersion + `","jobs":1000000000}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newFSM()
		if err := m.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
			if mm, j := m.state(); mm != (coord.Meta{}) || len(j) != 0 || len(m.http) != 0 {
				t.Fatalf("refused snapshot changed the state: %v", err)
			}
			return
		}
		// a snapshot accepted round-trips: persisted again and restored, the same state
		s, _ := m.Snapshot()
		var out sink
		if err := s.Persist(&out); err != nil {
			t.Fatal(err)
		}
		g := newFSM()
		if err := g.Restore(io.NopCloser(bytes.NewReader(out.Bytes()))); err != nil {
			t.Fatalf("a persisted snapshot does not restore: %v", err)
		}
		mm, j := m.state()
		gm, gj := g.state()
		sameState(t, "round trip", gm, gj, mm, j)
		if !maps.Equal(g.http, m.http) {
			t.Fatalf("round trip: addresses %v, want %v", g.http, m.http)
		}
	})
}
