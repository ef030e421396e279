package advise

import (
	"context"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/usage"
)

// Policy names, in the order the replay reports them.
const (
	PolicyUser        = "user request"
	PolicyLastTwo     = "last-two mean"
	PolicyMax15       = "max x1.5"
	PolicyMax2        = "max x2"
	PolicyQuantile    = "group p90"
	PolicyCkpt        = "ckpt"
	PolicyCkptAbstain = "ckpt+abstain"
)

// Policies lists the replayed policies.
var Policies = []string{PolicyUser, PolicyLastTwo, PolicyMax15, PolicyMax2, PolicyQuantile, PolicyCkpt, PolicyCkptAbstain}

// PolicyResult is one policy's metrics over the replayed jobs.
type PolicyResult struct {
	Policy string `json:"policy"`
	// MeanTurnaround is the mean over jobs of waits + runs, seconds, every
	// wait from the log's fitted wait model.
	MeanTurnaround float64 `json:"mean_turnaround"`
	// VsUser is MeanTurnaround relative to the users' requests: −0.05 is
	// 5 % shorter.
	VsUser float64 `json:"vs_user"`
	// ReservedOverUsed is reserved node-hours over used node-hours (kills'
	// runs count as used).
	ReservedOverUsed  float64 `json:"reserved_over_used"`
	KillRate          float64 `json:"kill_rate"`           // jobs killed at least once / jobs
	SubmissionsPerJob float64 `json:"submissions_per_job"` // submissions / jobs
	LostNodeHours     float64 `json:"lost_node_hours"`     // node-hours run in killed reservations
	Changed           int     `json:"changed"`             // jobs whose first request differs from the user's

	sum, reserved, used, lost float64
	killed, subs, jobs        int
}

func (r *PolicyResult) add(o Outcome, nodes, x float64, changed bool) {
	r.sum += o.Turnaround
	r.reserved += o.Reserved * nodes
	r.used += (o.Lost + x) * nodes
	r.lost += o.Lost * nodes
	r.subs += o.Submissions
	r.jobs++
	if o.Submissions > 1 {
		r.killed++
	}
	if changed {
		r.Changed++
	}
}

func (r *PolicyResult) finish(user float64) {
	n := float64(max(r.jobs, 1))
	r.MeanTurnaround = r.sum / n
	if user > 0 {
		r.VsUser = r.MeanTurnaround/user - 1
	}
	if r.used > 0 {
		r.ReservedOverUsed = r.reserved / r.used
	}
	r.KillRate = float64(r.killed) / n
	r.SubmissionsPerJob = float64(r.subs) / n
	r.LostNodeHours = r.lost / 3600
}

// ReplayReport is the replay of one log.
type ReplayReport struct {
	Log  string `json:"log"`
	Jobs int    `json:"jobs"`
	Read int    `json:"read"`
	// Censored counts the jobs that hit their limit in the log: their true
	// length is unknown, and every policy plays them as if it equalled the
	// request (a lower bound), so they end only in a reservation as long
	// as the request; policies that ask less pay a kill on them.
	Censored int `json:"censored"`
	// Wait is the evaluation's wait model, fitted on the whole log (the
	// advisor itself plans with a model fitted online on ended jobs only).
	Wait     WaitModel      `json:"wait_model"`
	Params   Params         `json:"params"`
	Policies []PolicyResult `json:"policies"`
	// Points are ckpt's operating points (ReplayRequest.Priors): ckpt and
	// ckpt+abstain replayed with each prior.
	Points  []PolicyResult `json:"operating_points,omitempty"`
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Replay plays the log's jobs in submit order with no look-ahead — each job
// is advised from the jobs that ended (submit + wait + run, as logged)
// before it was submitted — under every policy of Policies, and scores
// them on the same jobs under the log's fitted wait model. Every policy
// resubmits a killed reservation with the next of its sequence, and the
// baselines' sequences are one guess then the user's request.
func Replay(ctx context.Context, log Log, p Params) (ReplayReport, error) {
	if err := p.Validate(); err != nil {
		return ReplayReport{}, err
	}
	eval, err := evalWait(log, p)
	if err != nil {
		return ReplayReport{}, err
	}
	rep := ReplayReport{Log: log.Name, Jobs: len(log.Jobs), Read: log.Read, Wait: eval, Params: p, Skipped: log.Skipped}
	res := make([]PolicyResult, len(Policies))
	for i := range res {
		res[i].Policy = Policies[i]
	}
	e := NewEngine(p)
	lastTwo := map[string][]float64{}
	e.observed = func(j Job) {
		if j.User == "" {
			return
		}
		h := append(lastTwo[j.User], j.Length())
		if len(h) > 2 {
			h = h[len(h)-2:]
		}
		lastTwo[j.User] = h
	}
	err = e.FeedContext(ctx, log.Jobs, true, func(i int, j Job, a Advice) {
		if j.Censored() {
			rep.Censored++
		}
		x, req, nodes := j.Length(), j.Requested, float64(max(j.Nodes, 1))
		var runs []Run
		if _, _, g := e.choose(j.query()); g != nil {
			runs = g.Runs
		}
		for k, pol := range Policies {
			seq := policySequence(pol, j, a, runs, lastTwo[j.User])
			changed := len(seq) > 0 && seq[0] < req
			res[k].add(Play(seq, req, x, eval), nodes, x, changed)
		}
	})
	if err != nil {
		return rep, err
	}
	for i := range res {
		res[i].finish(res[0].sum / float64(max(res[0].jobs, 1)))
	}
	rep.Policies = res
	return rep, nil
}

// evalWait is the replay's wait model: p.Wait when given, else the
// least-squares fit on the whole log.
func evalWait(log Log, p Params) (WaitModel, error) {
	if p.Wait.A > 0 {
		return p.Wait, nil
	}
	var wf WaitFit
	for _, j := range log.Jobs {
		wf.Add(j.Requested, j.Wait)
	}
	m, ok := wf.Model()
	if !ok || m.N < p.MinWaitPairs {
		return m, usage.Errorf("%s: the wait model needs %d jobs with a known wait and at least two distinct requests, the log has %d (give one with --wait A,B)", log.Name, p.MinWaitPairs, m.N)
	}
	return m, nil
}

// policySequence is the sequence policy pol asks for job j (nil: the user's
// request alone).
func policySequence(pol string, j Job, a Advice, runs []Run, last []float64) []float64 {
	maxRun := func() float64 {
		m := 0.0
		for _, r := range runs {
			m = max(m, r.X)
		}
		return m
	}
	switch pol {
	case PolicyLastTwo:
		if len(last) == 2 {
			return []float64{math.Ceil((last[0] + last[1]) / 2)}
		}
	case PolicyMax15:
		if len(runs) > 0 {
			return []float64{1.5 * maxRun()}
		}
	case PolicyMax2:
		if len(runs) > 0 {
			return []float64{2 * maxRun()}
		}
	case PolicyQuantile:
		if len(runs) > 0 {
			xs := make([]float64, len(runs))
			for i, r := range runs {
				xs[i] = r.X
			}
			slices.Sort(xs)
			return []float64{xs[int(math.Ceil(0.9*float64(len(xs))))-1]}
		}
	case PolicyCkpt:
		if a.advised {
			return a.Plan
		}
	case PolicyCkptAbstain:
		if !a.Keep {
			return a.Sequence
		}
	}
	return nil
}
