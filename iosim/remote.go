package iosim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
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

// Decision is a grant of the I/O token: when, and to which job.
type Decision struct {
	Time float64 `json:"time"`
	Job  int     `json:"job"`
}

// ClosedLoopReport compares a run arbitrated in process with the same run
// (same config, strategy and seed) arbitrated by a RemoteArbiter.
type ClosedLoopReport struct {
	Strategy string `json:"strategy"`
	Seed     uint64 `json:"seed"`
	// Waste of each run against the same seed's baseline (Section VI-A).
	LocalWaste  float64 `json:"local_waste"`
	RemoteWaste float64 `json:"remote_waste"`
	// Decisions made in process and remotely; Diverged is the index of
	// the first decision that differs (-1: none, the runs agree decision
	// for decision).
	LocalDecisions  int `json:"local_decisions"`
	RemoteDecisions int `json:"remote_decisions"`
	Diverged        int `json:"diverged"`
	// Same: the two runs are equal field for field.
	Same bool `json:"same"`
}

// ClosedLoop runs strategy st on c in process and with remote as its
// arbiter (Options.Remote), and compares the decisions and the waste: the
// check that a coordinator hosts the simulator's policy. Complexity: three
// simulations (the baseline, in process, remote), the remote one with an
// arbiter call per request, end of transfer and job end.
func ClosedLoop(ctx context.Context, c *Config, st Strategy, opt Options, remote RemoteArbiter) (ClosedLoopReport, error) {
	rep := ClosedLoopReport{Strategy: st.Name, Seed: opt.Seed, Diverged: -1}
	if st.Sharing != Token {
		return rep, errors.New("strategy " + st.Name + ": no token to arbitrate (closed loop needs a token strategy)")
	}
	bo := opt
	bo.NoFailures, bo.Remote = true, nil
	base, err := SimulateContext(ctx, c, Baseline(), bo)
	if err != nil {
		return rep, err
	}
	loc := &recordingArbiter{Arbiter: st.Arbiter}
	lst := st
	lst.Arbiter = loc
	lo := opt
	lo.Remote = nil
	local, err := SimulateContext(ctx, c, lst, lo)
	if err != nil {
		return rep, err
	}
	rem := &recordingRemote{RemoteArbiter: remote}
	opt.Remote = rem
	rrun, err := SimulateContext(ctx, c, st, opt)
	if err != nil {
		return rep, err
	}
	rep.LocalWaste, rep.RemoteWaste = Waste(local, base), Waste(rrun, base)
	rep.LocalDecisions, rep.RemoteDecisions = len(loc.got), len(rem.got)
	for i := range max(len(loc.got), len(rem.got)) {
		if i >= len(loc.got) || i >= len(rem.got) || loc.got[i] != rem.got[i] {
			rep.Diverged = i
			break
		}
	}
	rep.Same = reflect.DeepEqual(local, rrun)
	return rep, nil
}

type recordingArbiter struct {
	Arbiter
	got []Decision
}

func (r *recordingArbiter) Pick(now float64, w []Request, env Env) int {
	i := r.Arbiter.Pick(now, w, env)
	if i >= 0 && i < len(w) {
		r.got = append(r.got, Decision{Time: now, Job: w[i].Job})
	}
	return i
}

type recordingRemote struct {
	RemoteArbiter
	got []Decision
}

func (r *recordingRemote) note(now float64, ids []int, err error) ([]int, error) {
	for _, id := range ids {
		r.got = append(r.got, Decision{Time: now, Job: id})
	}
	return ids, err
}

func (r *recordingRemote) Acquire(now float64, q Request) ([]int, error) {
	ids, err := r.RemoteArbiter.Acquire(now, q)
	return r.note(now, ids, err)
}

func (r *recordingRemote) Release(now float64, job int) ([]int, error) {
	ids, err := r.RemoteArbiter.Release(now, job)
	return r.note(now, ids, err)
}

func (r *recordingRemote) Cancel(now float64, job int) ([]int, error) {
	ids, err := r.RemoteArbiter.Cancel(now, job)
	return r.note(now, ids, err)
}
