package client

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// SimArbiter is the checkpoint coordinator as the simulator's arbiter
// (iosim.RemoteArbiter, iosim.Options.Remote) over HTTP: the closed loop
// of the cooperative-checkpointing paper's policies, hosted by a
// coordinator started on the simulation's clock:
//
//	ckpt serve --client-clock --bandwidth β --policy P --fixed-mtbf --node-mtbf μ_ind --ttl 100y --max-ttl 100y
//
// with β and μ_ind the simulated platform's, and P the policy of the
// simulated strategy (ordered, ordered-nb or least-waste). Each simulated
// job is registered (as Prefix + its number, C = R = its checkpoint
// time) at its first request, at the time of its last checkpoint; its
// requests are acquired with their bytes and last checkpoint, on the
// server's default TTL (which must outlast the simulation's longest wait).
//
// A SimArbiter is for one simulation (not safe for concurrent use).
// Complexity: one HTTP request per call; memory O(jobs in flight).
type SimArbiter struct {
	Client *Client
	// Ctx bounds every request (context.Background if nil).
	Ctx context.Context
	// Prefix of the server's job ids ("sim-" if empty). The jobs of a
	// simulation stay registered when it ends (their leases too): each
	// simulation needs a fresh coordinator, whose file system no one
	// else holds.
	Prefix string
	// Decisions lists the grants made, in order.
	Decisions []Decision

	jobs map[int]*simJob
	n    uint64
}

// Decision is a grant: the simulated time and job.
type Decision struct {
	Time float64
	Job  int
}

type simJob struct {
	token, request string
	lease          uint64
}

func (a *SimArbiter) ctx() context.Context {
	if a.Ctx == nil {
		return context.Background()
	}
	return a.Ctx
}

func (a *SimArbiter) prefix() string {
	if a.Prefix == "" {
		return "sim-"
	}
	return a.Prefix
}

func (a *SimArbiter) id(job int) string { return a.prefix() + strconv.Itoa(job) }

// Acquire registers the job if new and asks for the file system.
func (a *SimArbiter) Acquire(now float64, r arbiter.Request) ([]int, error) {
	if a.jobs == nil {
		a.jobs = map[int]*simJob{}
	}
	j := a.jobs[r.Job]
	if j == nil {
		c := r.Recovery
		if !(c > 0) {
			c = r.Duration
		}
		reg := r.LastCheckpoint
		j = &simJob{token: NewJobToken()}
		_, err := a.Client.Register(a.ctx(), api.RegisterRequest{ID: a.id(r.Job), Nodes: r.Nodes, C: c, R: r.Recovery,
			JobToken: j.token, Now: &reg})
		if err != nil {
			return nil, err
		}
		a.jobs[r.Job] = j
	}
	a.n++
	j.request = "r" + strconv.FormatUint(a.n, 10)
	g, err := a.Client.Acquire(a.ctx(), a.id(r.Job), j.token, api.AcquireRequest{RequestID: j.request, Kind: r.Kind,
		Bytes: r.Bytes, LastCheckpoint: r.LastCheckpoint, Now: &now})
	if err != nil {
		return nil, err
	}
	return a.granted(now, g.Granted)
}

// Release ends the job's lease (its transfer completed).
func (a *SimArbiter) Release(now float64, job int) ([]int, error) {
	j, err := a.job(job)
	if err != nil {
		return nil, err
	}
	g, err := a.Client.Release(a.ctx(), a.id(job), j.token, j.lease, 0, &now)
	if err != nil {
		return nil, err
	}
	j.request, j.lease = "", 0
	return a.granted(now, g.Granted)
}

// Cancel withdraws the job's request, waiting or granted.
func (a *SimArbiter) Cancel(now float64, job int) ([]int, error) {
	j, err := a.job(job)
	if err != nil {
		return nil, err
	}
	g, err := a.Client.Cancel(a.ctx(), a.id(job), j.token, j.request, &now)
	if err != nil {
		return nil, err
	}
	j.request, j.lease = "", 0
	return a.granted(now, g.Granted)
}

// Done ends the job on the server (a job that never asked is not known
// there: nothing to do).
func (a *SimArbiter) Done(now float64, job int, failed bool) error {
	j := a.jobs[job]
	if j == nil {
		return nil
	}
	delete(a.jobs, job)
	_, err := a.Client.Done(a.ctx(), a.id(job), j.token, failed, &now)
	return err
}

func (a *SimArbiter) job(job int) (*simJob, error) {
	if j := a.jobs[job]; j != nil && j.request != "" {
		return j, nil
	}
	return nil, fmt.Errorf("sim arbiter: job %d has no outstanding request", job)
}

// granted maps the grants of a call to the simulator's jobs.
func (a *SimArbiter) granted(now float64, ns []coord.Notice) ([]int, error) {
	var out []int
	p := a.prefix()
	for _, n := range ns {
		id, err := strconv.Atoi(strings.TrimPrefix(n.Job, p))
		if j := a.jobs[id]; err != nil || !strings.HasPrefix(n.Job, p) || j == nil || j.request != n.RequestID {
			return nil, fmt.Errorf("sim arbiter: grant of %s request %s is not this simulation's", n.Job, n.RequestID)
		}
		a.jobs[id].lease = n.Token
		a.Decisions = append(a.Decisions, Decision{Time: now, Job: id})
		out = append(out, id)
	}
	return out, nil
}
