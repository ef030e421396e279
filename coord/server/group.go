package server

import (
	"errors"
	"net/http"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Group is what the server needs of a replicated store (coord/replica):
// whether this replica leads, where the leader answers HTTP, when the
// leadership changes, and the group's status. A store that is not a
// Group is a single server: always the leader, always ready.
type Group interface {
	// Role reports whether this replica is the leader, and the leader's
	// HTTP address (host:port; "" if no leader is known or its address
	// is not).
	Role() (leader bool, leaderHTTP string)
	// Ready: the leader, or a follower that knows a leader (part of a
	// quorum).
	Ready() bool
	// Loaded: the leader's state was loaded in its current term (and no
	// commit failed since), so its commits are accepted.
	Loaded() bool
	// LeaderCh receives true when the replica becomes the leader.
	LeaderCh() <-chan bool
	// GroupStatus is shown in /v1/status as "replication".
	GroupStatus() any
}

// statusView is /v1/status: the coordinator's state and, on a replica,
// the group's.
type statusView struct {
	api.StatusView
	Replication any `json:"replication,omitempty"`
}

// redirect answers a request that a follower must not serve itself (any
// write, and a read without ?stale=1) with 307 to the leader, or 503 when
// no leader is known; it reports whether it answered. A follower serving
// a stale read or /v1/status first reloads its core from the replica's
// applied state; an elected leader whose state is not loaded yet loads it.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request) bool {
	if s.group == nil {
		return false
	}
	leader, addr := s.group.Role()
	switch {
	case leader:
		if !s.group.Loaded() { // elected, and the watch has not reloaded yet
			s.reload(false)
		}
		return false
	case r.URL.Path == "/v1/status" || (r.Method == http.MethodGet && r.URL.Query().Get("stale") == "1"):
		s.reload(true)
		return false
	case addr == "":
		w.Header().Set("Retry-After", "1")
		s.finish(w, r, s.opt.Clock(), nil, refuse(api.CodeUnavailable, "", "this replica is not the leader and knows no leader's address (retry)"))
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Location", scheme+"://"+addr+r.URL.RequestURI())
	writeJSON(w, http.StatusTemporaryRedirect, map[string]string{"error": "this replica is not the leader", "leader": addr})
	s.metrics.request(http.StatusTemporaryRedirect, 0)
	return true
}

// readyz answers 200 when the replica is ready (the leader, or a follower
// that knows a leader), else 503.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if s.group == nil || s.group.Ready() {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return
	}
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "no leader"})
}

// follow reloads the state each time the replica becomes the leader, so
// that its first write is not refused (a core loaded as follower cannot
// commit), until stop is closed.
func (s *Server) follow(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case lead := <-s.group.LeaderCh():
			if lead {
				s.reload(false)
			}
		}
	}
}

// reload rebuilds the core from the store once every pending commit is
// done: as the new leader (unless loaded already), or as a follower
// (stale: the replica's applied state). s.mu is held throughout: no
// request changes the core meanwhile.
func (s *Server) reload(stale bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writer.Reset()
	if !stale && s.group.Loaded() {
		return // by another request meanwhile
	}
	meta, jobs, err := s.opt.Store.Load()
	var core *coord.Coordinator
	if err == nil {
		core, err = coord.Restore(s.opt.Config, meta, jobs)
	}
	if err != nil {
		s.log.Error("reloading the state as leader failed", "err", err)
		return
	}
	s.core = core
	if !stale {
		s.log.Info("leader: state reloaded", "jobs", len(jobs), "token", meta.Token)
	}
}

// Members is a Group whose membership changes through its leader
// (coord/replica: raft's AddVoter and RemoveServer). A bad member is a
// usage error naming the field; any other error means the change was not
// made (not the leader, no quorum, a timeout).
type Members interface {
	AddMember(m api.Member) error
	RemoveMember(id string) error
}

// members changes the group: add m, or remove id (m nil), and answers
// the group's status. 404 on a store that is not a group.
func (s *Server) members(r *http.Request, add bool) (any, error) {
	ms, ok := s.opt.Store.(Members)
	if !ok || s.group == nil {
		return nil, refuse(api.CodeNotFound, "", "not a replicated coordinator: it has no members")
	}
	var err error
	if add {
		var m api.Member
		if err = decode(r, &m); err != nil {
			return nil, err
		}
		err = ms.AddMember(m)
	} else {
		err = ms.RemoveMember(r.PathValue("id"))
	}
	var ue *usage.Error
	switch {
	case errors.As(err, &ue):
		return nil, bad(ue.Field, "%v", ue.Err)
	case err != nil:
		return nil, refuse(api.CodeUnavailable, "", "membership not changed: %v", err)
	}
	return s.group.GroupStatus(), nil
}
