package iosim

import (
	"fmt"
	"slices"
)

// RemoteArbiter is an arbiter outside the simulator — the checkpoint
// coordinator (`ckpt serve --client-clock`, package coord/client's
// SimArbiter) driven with the simulated clock — used instead of the
// strategy's Arbiter when Options.Remote is set (Sharing Token only; the
// strategy's period and blocking rule stay the simulator's, so the
// remote policy must match the strategy: ordered for ordered-*,
// ordered-nb for ordered-nb-*, least-waste for least-waste*).
//
// The simulator tells it every request (Acquire), every end of the
// holder's transfer (Release), every withdrawn request or aborted
// transfer (Cancel) and every job that leaves (Done), at the simulated
// time and in the order that makes its decisions the in-process
// arbiter's: the end of a transfer is told at the instant the in-process
// simulator would pick the next holder, after the requests made
// meanwhile at the same time. Each call returns the jobs granted the
// token during it (at most one, the token having one holder).
type RemoteArbiter interface {
	Acquire(now float64, r Request) (granted []int, err error)
	Release(now float64, job int) (granted []int, err error)
	Cancel(now float64, job int) (granted []int, err error)
	Done(now float64, job int, failed bool) error
}

// freed is the last holder whose end the remote arbiter has not been told
// yet (job nil: none), and whether the job also left.
type freed struct {
	job          *job
	ended        bool // transfer completed (Release), else aborted (Cancel)
	done, failed bool // Done to tell after the end
}

// remoteFree tells the remote arbiter the end of the last holder's
// transfer (grant's moment in the in-process simulator) and applies its
// grants.
func (s *simulator) remoteFree() {
	f := s.freed
	if f.job == nil || s.err != nil {
		return
	}
	s.freed = freed{}
	now := s.sim.Now()
	if f.ended {
		s.remoteGrants(s.opt.Remote.Release(now, f.job.id))
	} else {
		s.remoteGrants(s.opt.Remote.Cancel(now, f.job.id))
	}
	if f.done && s.err == nil {
		if err := s.opt.Remote.Done(now, f.job.id, f.failed); err != nil {
			s.err = fmt.Errorf("remote arbiter: %w", err)
		}
	}
}

// remoteDone tells the remote arbiter that j left (after the end of its
// transfer, if that is still to tell).
func (s *simulator) remoteDone(j *job, failed bool) {
	if s.opt.Remote == nil || s.err != nil {
		return
	}
	if s.freed.job == j {
		s.freed.done, s.freed.failed = true, failed
		return
	}
	if err := s.opt.Remote.Done(s.sim.Now(), j.id, failed); err != nil {
		s.err = fmt.Errorf("remote arbiter: %w", err)
	}
}

// remoteGrants starts the transfers the remote arbiter granted.
func (s *simulator) remoteGrants(granted []int, err error) {
	if s.err != nil {
		return
	}
	if err != nil {
		s.err = fmt.Errorf("remote arbiter: %w", err)
		return
	}
	for _, id := range granted {
		i := slices.IndexFunc(s.waiting, func(p pending) bool { return p.j.id == id })
		if i < 0 || s.holder != nil {
			s.err = fmt.Errorf("remote arbiter granted job %d, which is not waiting for a free token", id)
			return
		}
		s.grantAt(i)
	}
}
