package replica

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Status is a replica's view of its group (for /v1/status and /readyz).
type Status struct {
	ID       string `json:"id"`
	State    string `json:"state"` // Leader, Follower, Candidate, Shutdown
	Leader   string `json:"leader,omitempty"`
	LeaderID string `json:"leader_id,omitempty"`
	Term     uint64 `json:"term"`
	// CommitIndex is the last entry known committed, Applied the last
	// applied to this replica's state.
	CommitIndex uint64 `json:"commit_index"`
	Applied     uint64 `json:"applied_index"`
	Peers       []Peer `json:"peers"`
	// Conflicts lists the replicas whose HTTP address in this replica's
	// --peers differs from the group's replicated one (which is used).
	Conflicts []string `json:"conflicts,omitempty"`
}

// Status reports the replica's state, term, indexes and the group's
// configuration.
func (r *Replica) Status() Status {
	addr, id := r.raft.LeaderWithID()
	s := Status{ID: r.opt.ID, State: r.raft.State().String(), Leader: string(addr), LeaderID: string(id),
		Term: r.raft.CurrentTerm(), CommitIndex: r.commitIndex(), Applied: r.raft.AppliedIndex()}
	if f := r.raft.GetConfiguration(); f.Error() == nil {
		for _, sv := range f.Configuration().Servers {
			s.Peers = append(s.Peers, Peer{ID: string(sv.ID), Addr: string(sv.Address), HTTP: r.httpOf(string(sv.ID))})
		}
	}
	for _, p := range r.opt.Peers {
		if c := r.conflict(p.ID, r.fsm.httpOf(p.ID)); c != "" {
			s.Conflicts = append(s.Conflicts, c)
		}
	}
	return s
}

// conflict describes how replica id's HTTP address in --peers differs
// from web, the group's replicated one ("" if they agree or either is
// not given).
func (r *Replica) conflict(id, web string) string {
	for _, p := range r.opt.Peers {
		if p.ID == id && p.HTTP != "" && web != "" && p.HTTP != web {
			return fmt.Sprintf("replica %s: --peers gives HTTP address %s, the group's replicated one is %s (used)", id, p.HTTP, web)
		}
	}
	return ""
}

// checkHTTP logs a conflict between --peers and an HTTP address the
// group replicated (the fsm's hook: on every entry and snapshot that
// sets one, so at start as the log is replayed).
func (r *Replica) checkHTTP(id, web string) {
	if c := r.conflict(id, web); c != "" {
		r.log.Warn(c)
	}
}

func (r *Replica) commitIndex() uint64 {
	var n uint64
	fmt.Sscan(r.raft.Stats()["commit_index"], &n)
	return n
}

// IsLeader reports whether the replica is the leader now.
func (r *Replica) IsLeader() bool { return r.raft.State() == raft.Leader }

// LeaderCh receives true when the replica becomes leader and false when
// it stops being one (raft's channel: a slow reader misses transitions,
// so read Status for the truth).
func (r *Replica) LeaderCh() <-chan bool { return r.raft.LeaderCh() }

// WaitLeader waits until some leader is known to this replica and returns
// its id, or ctx's error.
func (r *Replica) WaitLeader(ctx context.Context) (string, error) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if _, id := r.raft.LeaderWithID(); id != "" {
			return string(id), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("replica %s: no leader: %w", r.opt.ID, ctx.Err())
		case <-t.C:
		}
	}
}

// Snapshot takes a snapshot now (and compacts the log behind it).
func (r *Replica) Snapshot() error { return r.raft.Snapshot().Error() }

// httpOf is the HTTP address of replica id: the group's replicated one
// (`members add`, or a leader's --peers for a bootstrapped member), else
// the one in this replica's peer list (before the first leader's seed is
// applied; "" if neither).
func (r *Replica) httpOf(id string) string {
	if web := r.fsm.httpOf(id); web != "" {
		return web
	}
	for _, p := range r.opt.Peers {
		if p.ID == id {
			return p.HTTP
		}
	}
	return ""
}

// Role reports whether the replica leads, and the leader's HTTP address
// (httpOf; coord/server's Group: where a follower redirects).
func (r *Replica) Role() (bool, string) {
	if r.IsLeader() {
		return true, r.httpOf(r.opt.ID)
	}
	_, id := r.raft.LeaderWithID()
	if id == "" {
		return false, ""
	}
	return false, r.httpOf(string(id))
}

// Ready: the leader, or a follower that knows a leader (raft forgets the
// leader when its heartbeats stop for HeartbeatTimeout), so part of a
// quorum.
func (r *Replica) Ready() bool {
	_, id := r.raft.LeaderWithID()
	return id != ""
}

// GroupStatus is Status, for /v1/status.
func (r *Replica) GroupStatus() any { return r.Status() }

// Loaded reports whether Commit would accept now: the replica leads in
// the term of its last Load and no commit failed since (coord/server
// reloads before serving a write otherwise).
func (r *Replica) Loaded() bool {
	e := r.loaded.Load()
	return e != 0 && r.raft.State() == raft.Leader && r.raft.CurrentTerm() == e
}

// AddMember adds replica m to the group as a voter (raft's AddVoter: on
// the leader only; done once the new configuration is committed, which
// the existing majority does without m). m.HTTP, if given, is committed
// first, as an entry of the replicated state: every replica then
// redirects to m when it leads, without a restart.
func (r *Replica) AddMember(m api.Member) error {
	switch {
	case !validID(m.ID):
		return usage.Fieldf("id", "%q must be 1 to 64 letters, digits, '-', '_' or '.'", clip(m.ID))
	case !validAddr(m.Addr):
		return usage.Fieldf("addr", "%q is not host:port (a port in 1-65535)", clip(m.Addr))
	case m.HTTP != "" && !validAddr(m.HTTP):
		return usage.Fieldf("http", "%q is not host:port (a port in 1-65535)", clip(m.HTTP))
	}
	r.memberMu.Lock()
	defer r.memberMu.Unlock()
	if m.HTTP != "" {
		if err := r.applyMember(memberOp{ID: m.ID, HTTP: m.HTTP}); err != nil {
			return err
		}
	}
	return r.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.Addr), 0, r.opt.CommitTimeout).Error()
}

// applyMember commits a membership record (on the leader only).
func (r *Replica) applyMember(op memberOp) error {
	b, err := json.Marshal(entry{Epoch: r.raft.CurrentTerm(), Member: &op})
	if err != nil {
		return err
	}
	f := r.raft.Apply(b, r.opt.CommitTimeout)
	if err := f.Error(); err != nil {
		return fmt.Errorf("%s: recording %s's HTTP address: %w", r.Name(), op.ID, err)
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return err
	}
	return nil
}

// RemoveMember removes replica id from the group (raft's RemoveServer,
// on the leader only; a leader removing itself steps down), then its
// replicated HTTP address. In that order a failed removal leaves a member
// with its address; a removal whose second step fails (this replica lost
// the leadership meanwhile: it removed itself) leaves the address of a
// replica that is no member, never a leader to redirect to, and replaced
// if the id is added again.
func (r *Replica) RemoveMember(id string) error {
	f := r.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return err
	}
	if !slices.ContainsFunc(f.Configuration().Servers, func(s raft.Server) bool { return string(s.ID) == id }) {
		return usage.Fieldf("id", "%q is not a member of the group", clip(id))
	}
	r.memberMu.Lock()
	defer r.memberMu.Unlock()
	if err := r.raft.RemoveServer(raft.ServerID(id), 0, r.opt.CommitTimeout).Error(); err != nil {
		return err
	}
	if r.fsm.httpOf(id) != "" && r.raft.State() == raft.Leader {
		if err := r.applyMember(memberOp{ID: id}); err != nil {
			r.log.Warn("member removed, its HTTP address still recorded", "id", id, "err", err)
		}
	}
	return nil
}
