package replica

import (
	"github.com/hashicorp/raft"
)

// seeder copies the bootstrapped members' HTTP addresses from --peers
// into the replicated state: each time this replica is elected (raft's
// leader observation; once at start too, in case it was elected before
// the observer was registered), the leader commits, for every member of
// raft's configuration that its --peers names with an HTTP address and
// that the replicated map lacks, that record (memberOp.Seed: applied
// only where the map holds none, so a record already replicated, by
// `members add` or an earlier leader, is never overwritten). One pass is
// O(members) reads and at most one commit per member missing; once the
// map holds every member, a pass commits nothing.
type seeder struct {
	obs  *raft.Observer
	ch   chan raft.Observation
	stop chan struct{}
	done chan struct{}
}

// seed starts the seeder of r (after raft is started).
func (r *Replica) seed() {
	s := &seeder{ch: make(chan raft.Observation, 1), stop: make(chan struct{}), done: make(chan struct{})}
	self := raft.ServerID(r.opt.ID)
	s.obs = raft.NewObserver(s.ch, false, func(o *raft.Observation) bool {
		l, ok := o.Data.(raft.LeaderObservation)
		return ok && l.LeaderID == self
	})
	r.raft.RegisterObserver(s.obs)
	r.seeds = s
	go func() {
		defer close(s.done)
		for {
			r.seedHTTP()
			select {
			case <-s.stop:
				return
			case <-s.ch: // dropped when one is pending: one pass covers both
			}
		}
	}()
}

// stopSeeding stops the seeder; wait: until its pass under way returns
// (raft shut down, so at once).
func (r *Replica) stopSeeding(wait bool) {
	s := r.seeds
	if s == nil {
		return
	}
	r.raft.DeregisterObserver(s.obs)
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	if wait {
		<-s.done
	}
}

// seedHTTP is one pass of the seeder: on the leader, once every entry
// committed before is applied (raft's Barrier), the records missing.
// A pass that fails (the leadership lost, no quorum) is logged; the next
// election makes another.
func (r *Replica) seedHTTP() {
	if r.raft.State() != raft.Leader || r.raft.Barrier(r.opt.CommitTimeout).Error() != nil {
		return
	}
	r.memberMu.Lock()
	defer r.memberMu.Unlock()
	f := r.raft.GetConfiguration()
	if f.Error() != nil {
		return
	}
	for _, sv := range f.Configuration().Servers {
		id := string(sv.ID)
		web := peerHTTP(r.opt.Peers, id)
		if web == "" || !validAddr(web) || r.fsm.httpOf(id) != "" {
			continue
		}
		if err := r.applyMember(memberOp{ID: id, HTTP: web, Seed: true}); err != nil {
			r.log.Warn("the HTTP address in --peers not replicated (the next election retries)", "id", id, "err", err)
			return
		}
	}
}

// peerHTTP is replica id's HTTP address in ps ("" if none).
func peerHTTP(ps []Peer, id string) string {
	for _, p := range ps {
		if p.ID == id {
			return p.HTTP
		}
	}
	return ""
}
