package replica

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/hashicorp/raft"
)

// entry is one raft log entry: a batch of the core's changes, in order,
// and the term in which the leader that made them loaded its state
// (Epoch). The FSM applies an entry only if it was appended in that term:
// a leader that lost and regained leadership without reloading cannot
// write changes computed from a state another leader has since changed.
//
// An entry may instead carry a membership record (Member): a replica's
// HTTP address set (add), set only if none is recorded (seed: a
// bootstrapped member's, from the leader's --peers) or deleted (remove),
// applied whatever its epoch (it does not depend on the coordinator's
// state).
type entry struct {
	Epoch   uint64          `json:"epoch"`
	Changes []coord.Changes `json:"changes,omitempty"`
	Member  *memberOp       `json:"member,omitempty"`
}

// memberOp sets replica ID's HTTP address, or deletes it (HTTP ""); with
// Seed it sets it only where none is recorded (and HTTP must be given).
type memberOp struct {
	ID   string `json:"id"`
	HTTP string `json:"http,omitempty"`
	Seed bool   `json:"seed,omitempty"`
}

// StaleError is the answer to an entry refused because its leader's state
// was loaded in another term.
type StaleError struct{ Epoch, Term uint64 }

func (e *StaleError) Error() string {
	return fmt.Sprintf("replica: changes computed in term %d appended in term %d: reload the state", e.Epoch, e.Term)
}

// fsm is the replicated state: the coordinator's meta record and its jobs,
// as the single server's bbolt file holds them (coord/store). Every
// replica applies the same entries in the same order and so holds the
// same state.
type fsm struct {
	mu   sync.RWMutex
	meta coord.Meta
	jobs map[string]coord.Job
	// http maps a replica's id to its HTTP address, as `members add`
	// gave it, or the first leader's --peers for a bootstrapped member
	// (replicated, so every replica redirects to any member without a
	// restart or an entry in its own --peers); `members remove` deletes
	// it.
	http     map[string]string
	onHTTP   func(id, http string) // called (under mu) for each address set by an entry or a snapshot
	applied  uint64                // index of the last entry applied
	restores int                   // snapshots restored (a replica that caught up from one)
}

func newFSM() *fsm { return &fsm{jobs: map[string]coord.Job{}, http: map[string]string{}} }

// Apply applies one committed entry; the answer (nil or an error) is what
// the leader's Commit returns. A malformed or stale entry changes nothing.
func (f *fsm) Apply(l *raft.Log) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = l.Index
	if l.Type != raft.LogCommand {
		return nil
	}
	var e entry
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return fmt.Errorf("replica: entry %d does not decode: %w", l.Index, err)
	}
	if m := e.Member; m != nil {
		if len(e.Changes) > 0 || !validID(m.ID) || (m.HTTP != "" && !validAddr(m.HTTP)) || (m.Seed && m.HTTP == "") {
			return fmt.Errorf("replica: entry %d: bad membership record %q=%q", l.Index, clip(m.ID), clip(m.HTTP))
		}
		if _, ok := f.http[m.ID]; ok && m.Seed {
			return nil // a seed never overwrites a replicated record
		}
		if m.HTTP == "" {
			delete(f.http, m.ID)
		} else {
			f.http[m.ID] = m.HTTP
			if f.onHTTP != nil {
				f.onHTTP(m.ID, m.HTTP)
			}
		}
		return nil
	}
	if e.Epoch != l.Term {
		return &StaleError{Epoch: e.Epoch, Term: l.Term}
	}
	for _, ch := range e.Changes {
		for _, j := range ch.Put {
			f.jobs[j.Spec.ID] = j
		}
		for _, id := range ch.Delete {
			delete(f.jobs, id)
		}
	}
	if n := len(e.Changes); n > 0 {
		f.meta = e.Changes[n-1].Meta
	}
	return nil
}

// state returns the meta record and the jobs in id order.
func (f *fsm) state() (coord.Meta, []coord.Job) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	jobs := make([]coord.Job, 0, len(f.jobs))
	for _, j := range f.jobs {
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b coord.Job) int { return strings.Compare(a.Spec.ID, b.Spec.ID) })
	return f.meta, jobs
}

// httpOf is replica id's replicated HTTP address ("" if none).
func (f *fsm) httpOf(id string) string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.http[id]
}

// snapHeader opens a snapshot; the jobs follow, one JSON value each.
// HTTP is the replicas' HTTP addresses (absent from snapshots written
// before it existed: none then).
type snapHeader struct {
	Version string            `json:"version"`
	Meta    coord.Meta        `json:"meta"`
	Jobs    int               `json:"jobs"`
	HTTP    map[string]string `json:"http,omitempty"`
}

// SnapshotVersion names the snapshot format.
const SnapshotVersion = "ckpt-coord-replica/1"

// Snapshot captures the state (a copy of the job table: the jobs
// themselves are never changed in place, an entry replaces them).
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	meta, jobs := f.state()
	f.mu.RLock()
	defer f.mu.RUnlock()
	return &snapshot{meta: meta, jobs: jobs, http: maps.Clone(f.http)}, nil
}

type snapshot struct {
	meta coord.Meta
	jobs []coord.Job
	http map[string]string
}

// Persist writes the header and the jobs, one JSON value per line: its
// size is linear in the jobs (at most the core's MaxJobs, each with at
// most its last 32 requests).
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	w := bufio.NewWriter(sink)
	enc := json.NewEncoder(w)
	err := enc.Encode(snapHeader{Version: SnapshotVersion, Meta: s.meta, Jobs: len(s.jobs), HTTP: s.http})
	for i := 0; err == nil && i < len(s.jobs); i++ {
		err = enc.Encode(s.jobs[i])
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		sink.Cancel()
		return fmt.Errorf("replica: snapshot: %w", err)
	}
	return sink.Close()
}

func (s *snapshot) Release() {}

// Restore replaces the state with a snapshot's; a snapshot that does not
// decode is refused whole, the state unchanged.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	h, jobs, err := readSnapshot(rc)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.meta, f.jobs, f.http = h.Meta, jobs, h.HTTP
	if f.http == nil {
		f.http = map[string]string{}
	}
	if f.onHTTP != nil {
		for _, id := range slices.Sorted(maps.Keys(f.http)) {
			f.onHTTP(id, f.http[id])
		}
	}
	f.restores++
	return nil
}

func readSnapshot(r io.Reader) (snapHeader, map[string]coord.Job, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	var h snapHeader
	if err := dec.Decode(&h); err != nil {
		return h, nil, fmt.Errorf("replica: snapshot header: %w", err)
	}
	if h.Version != SnapshotVersion {
		return h, nil, fmt.Errorf("replica: snapshot version %q, want %q", clip(h.Version), SnapshotVersion)
	}
	if h.Jobs < 0 {
		return h, nil, fmt.Errorf("replica: snapshot of %d jobs", h.Jobs)
	}
	for id, web := range h.HTTP {
		if !validID(id) || !validAddr(web) {
			return h, nil, fmt.Errorf("replica: snapshot's HTTP address of replica %q: %q is not id and host:port", clip(id), clip(web))
		}
	}
	jobs := make(map[string]coord.Job, min(h.Jobs, 1<<16))
	for i := range h.Jobs {
		var j coord.Job
		if err := dec.Decode(&j); err != nil {
			return h, nil, fmt.Errorf("replica: snapshot job %d of %d: %w", i+1, h.Jobs, err)
		}
		if _, dup := jobs[j.Spec.ID]; dup {
			return h, nil, fmt.Errorf("replica: snapshot holds job %q twice", clip(j.Spec.ID))
		}
		jobs[j.Spec.ID] = j
	}
	if dec.More() {
		return h, nil, errors.New("replica: snapshot holds more than its header's jobs")
	}
	return h, jobs, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
