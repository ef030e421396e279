package advise

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Params are the advisor's method parameters, chosen once for all logs
// (on KTH-SP2 and SDSC-SP2; see docs/advise.md).
type Params struct {
	// MinRuns is the history a group needs before it is used. Valid ≥ 1.
	MinRuns int `json:"min_runs"`
	// Window is how many of a group's last runs are kept. Valid ≥ MinRuns.
	Window int `json:"window"`
	// MinWaitPairs is how many (request, wait) pairs the wait model needs
	// before any advice. Valid ≥ 2.
	MinWaitPairs int `json:"min_wait_pairs"`
	// Prior is how many pseudo-runs at the request the law adds to a
	// group's n runs (the chance that the next run outlasts all n seen is
	// 1/(n+1) for exchangeable runs: Prior = 1). Valid ≥ 0.
	Prior float64 `json:"prior"`
	// Abstain keeps the user's request in groups whose ledger is negative.
	Abstain bool `json:"abstain"`
	// Wait, when A > 0, fixes the wait model instead of fitting it (logs
	// without waits: KIT's are simulated).
	Wait WaitModel `json:"wait,omitzero"`
}

// DefaultParams are the shipped method's parameters.
func DefaultParams() Params {
	return Params{MinRuns: 10, Window: 20, MinWaitPairs: 100, Prior: 2, Abstain: true}
}

// Validate names the first parameter out of range.
func (p Params) Validate() error {
	switch {
	case p.MinRuns < 1:
		return usage.Fieldf("min_runs", "must be >= 1, got %d", p.MinRuns)
	case p.Window < p.MinRuns:
		return usage.Fieldf("window", "must be >= min_runs (%d), got %d", p.MinRuns, p.Window)
	case p.MinWaitPairs < 2:
		return usage.Fieldf("min_wait_pairs", "must be >= 2, got %d", p.MinWaitPairs)
	case !(p.Prior >= 0) || math.IsInf(p.Prior, 0):
		return usage.Fieldf("prior", "must be finite and >= 0, got %v", p.Prior)
	case p.Wait.A < 0 || p.Wait.B < 0 || math.IsNaN(p.Wait.A+p.Wait.B) || math.IsInf(p.Wait.A+p.Wait.B, 0):
		return usage.Fieldf("wait", "a and b must be finite and >= 0, got %v, %v", p.Wait.A, p.Wait.B)
	}
	return nil
}

// Run is one ended run as a group remembers it.
type Run struct {
	X        float64 // length (the limit for a censored run)
	Censored bool
}

// group is the history of one group key.
type group struct {
	Runs   []Run   // the last Window runs, oldest first
	Seen   int     // runs ever seen
	Ledger float64 // Σ over ended advised jobs of (user's turnaround − advice's), seconds
	Judged int     // jobs in the ledger
	// LedgerNoTime and JudgedNoTime judge the advice for jobs without
	// --time (against the longest request seen) apart.
	LedgerNoTime float64
	JudgedNoTime int
	Req          float64 // the request of the group's key, 0 for levels without it
	version      int
}

func (g *group) add(r Run, window int) {
	if len(g.Runs) >= window {
		copy(g.Runs, g.Runs[len(g.Runs)-window+1:])
		g.Runs = g.Runs[:window-1]
	}
	g.Runs = append(g.Runs, r)
	g.Seen++
	g.version++
}

// Advice is the advisor's answer for one job.
type Advice struct {
	// Time is the walltime to ask, seconds: the first reservation of the
	// sequence, or the user's request when the advisor abstains.
	Time float64 `json:"time"`
	// TimeMin is the shortest limit the scheduler may start the job with
	// (Slurm's --time-min): the smallest t ≤ Time whose chance of a kill
	// under the group's law is at most 5 points above Time's.
	TimeMin float64 `json:"time_min"`
	// Sequence is the sequence to follow (Time first), ending with the
	// request; a killed reservation resubmits with the next one. It is the
	// request alone when the advisor keeps it.
	Sequence []float64 `json:"sequence"`
	// Plan is the optimal sequence for the group's law, followed or not:
	// the ledger judges it.
	Plan []float64 `json:"plan,omitempty"`
	// Keep says to keep the user's request (Reason says why).
	Keep   bool   `json:"keep_user_request"`
	Reason string `json:"reason"`
	Level  string `json:"level,omitempty"`
	Key    string `json:"group,omitempty"`
	Runs   int    `json:"runs"`
	// Expected and ExpectedUser are the expected turnarounds (seconds) of
	// the sequence and of the request alone, under the group's law.
	Expected     float64 `json:"expected_turnaround,omitempty"`
	ExpectedUser float64 `json:"expected_turnaround_user,omitempty"`
	// Ledger is the group's record: seconds of turnaround the advice saved
	// (negative: lost) on the ended jobs it was asked for.
	Ledger float64 `json:"ledger"`
	Judged int     `json:"judged"`
	// Requested is the limit the sequence ends with (the user's --time, or
	// the site's longest request when none was given).
	Requested float64 `json:"requested"`

	advised bool // a sequence was computed (the group had enough history)
	noTime  bool // the advice is for a job without --time
}

// Engine is the advisor's state: the groups' histories and ledgers and the
// online wait model. Advise answers from jobs already Observed.
type Engine struct {
	P        Params
	groups   map[string]*group
	wait     WaitFit
	maxReq   float64
	lastSeen float64
	// from and waiting: modelHeader.From and Waiting.
	from    float64
	waiting []string
	jobs    int
	// groupsWant is the group count a model file's header announces.
	groupsWant int
	cache      map[cacheKey]cached
	// observed, when set, sees every job Observe records (the replay's
	// baselines keep their own histories through it).
	observed func(Job)
}

type cacheKey struct {
	key string
	req float64
}

type cached struct {
	version, epoch int
	a              Advice
}

// NewEngine returns an empty advisor.
func NewEngine(p Params) *Engine {
	return &Engine{P: p, groups: map[string]*group{}, cache: map[cacheKey]cached{}}
}

// WaitModel is the model the advisor plans with now.
func (e *Engine) WaitModel() (WaitModel, bool) {
	if e.P.Wait.A > 0 {
		return e.P.Wait, true
	}
	m, ok := e.wait.Model()
	return m, ok && m.N >= e.P.MinWaitPairs
}

// choose returns the narrowest level with enough history for q.
func (e *Engine) choose(q Query) (int, string, *group) {
	for l, lv := range Levels {
		if lv.Req && q.Requested <= 0 {
			continue
		}
		k := Key(l, q)
		if g := e.groups[k]; g != nil && len(g.Runs) >= e.P.MinRuns {
			return l, k, g
		}
	}
	return -1, "", nil
}

// Advise answers for q from the jobs observed so far.
func (e *Engine) Advise(q Query) Advice {
	req := q.Requested
	if req <= 0 {
		req = e.maxReq
	}
	keep := Advice{Time: req, TimeMin: req, Sequence: []float64{req}, Keep: true, Requested: req}
	if req <= 0 {
		keep.Reason = "no request and no history"
		return keep
	}
	m, ok := e.WaitModel()
	if !ok {
		keep.Reason = fmt.Sprintf("wait model needs %d (request, wait) pairs, has %d", e.P.MinWaitPairs, int(e.wait.N))
		return keep
	}
	l, k, g := e.choose(q)
	if g == nil {
		keep.Reason = fmt.Sprintf("too little history: no group with %d ended runs", e.P.MinRuns)
		return keep
	}
	return e.adviseFrom(l, k, g, req, q.Requested <= 0, m)
}

// adviseFrom is the advice of group g (level l, key k) for a request req.
func (e *Engine) adviseFrom(l int, k string, g *group, req float64, noTime bool, m WaitModel) Advice {
	ck := cacheKey{k, req}
	epoch := int(e.wait.N) / 1000
	c, hit := e.cache[ck]
	if !hit || c.version != g.version || c.epoch != epoch {
		c = cached{version: g.version, epoch: epoch, a: plan(g.Runs, req, e.P.Prior, m)}
		e.cache[ck] = c
	}
	a := c.a
	if !a.advised {
		return a
	}
	a.Level, a.Key, a.Runs, a.Ledger, a.Judged, a.noTime = Levels[l].Name, k, len(g.Runs), g.Ledger, g.Judged, noTime
	if noTime {
		a.Ledger, a.Judged = g.LedgerNoTime, g.JudgedNoTime
	}
	a.Plan = a.Sequence
	switch {
	case a.Time >= req:
		a.Keep, a.Reason = true, "the optimal sequence starts with the request"
	case e.P.Abstain && a.Judged == 0:
		a.Keep, a.Reason = true, "the advice has no record in this group yet (it is judged on ended jobs before it is followed)"
	case e.P.Abstain && a.Ledger <= 0:
		a.Keep, a.Reason = true, fmt.Sprintf("past advice in this group did no better than its users' requests (%.0f s lost over %d jobs)", math.Abs(a.Ledger), a.Judged)
	default:
		a.Reason = fmt.Sprintf("optimal sequence for %d past runs, and it saved %.0f s over %d past jobs of the group", len(g.Runs), a.Ledger, a.Judged)
	}
	if a.Keep {
		a.Time, a.TimeMin, a.Sequence = req, req, []float64{req}
	}
	return a
}

// Law is the group's law for a job of request req: Kaplan–Meier of the runs
// clamped at req, scaled by n/(n+1), with mass 1/(n+1) on req.
func Law(runs []Run, req, prior float64) (values, probs []float64) {
	t := make([]float64, len(runs))
	c := make([]bool, len(runs))
	for i, r := range runs {
		t[i], c[i] = min(r.X, req), r.Censored || r.X >= req
	}
	n := float64(len(runs))
	rest := 1.0
	if km, err := distribution.KaplanMeier(t, c); err == nil {
		rest = prior / (n + prior)
		for i, v := range km.Values {
			values, probs = append(values, v), append(probs, km.Probs[i]*(1-rest))
		}
	}
	switch k := len(values); {
	case rest <= 0:
	case k > 0 && values[k-1] == req:
		probs[k-1] += rest
	default:
		values, probs = append(values, req), append(probs, rest)
	}
	return values, probs
}

// plan is the NO-CKPT optimal sequence for the group's law, ending with req.
func plan(runs []Run, req, prior float64, m WaitModel) Advice {
	values, probs := Law(runs, req, prior)
	a := Advice{Time: req, TimeMin: req, Sequence: []float64{req}, Requested: req, advised: true}
	for i, v := range values {
		a.ExpectedUser += probs[i] * Play(nil, req, v, m).Turnaround
	}
	s, _, err := noCkptPlan(values, probs, max(m.A, MinAlpha), 1, m.B)
	if err != nil || len(s) == 0 {
		a.Expected, a.advised = a.ExpectedUser, false
		a.Keep, a.Reason = true, fmt.Sprintf("no plan for the group's law: %v", err)
		return a
	}
	seq := make([]float64, 0, len(s))
	for _, t := range s {
		if t >= req {
			break
		}
		seq = append(seq, t)
	}
	a.Sequence = append(seq, req)
	a.Time = a.Sequence[0]
	for i, v := range values {
		a.Expected += probs[i] * Play(a.Sequence, req, v, m).Turnaround
	}
	a.TimeMin = timeMin(values, probs, a.Time)
	return a
}

// timeMin is the smallest support value u ≤ t with P(X > u) ≤ P(X > t) + 0.05.
func timeMin(values, probs []float64, t float64) float64 {
	var above float64 // P(X > t)
	i := sort.SearchFloat64s(values, t)
	for k := i; k < len(values); k++ {
		if values[k] > t {
			above += probs[k]
		}
	}
	best, s := t, above
	for k := i - 1; k >= 0 && values[k] <= t; k-- {
		if values[k] < t {
			if s > above+0.05+1e-12 {
				break
			}
			best = values[k]
		}
		s += probs[k]
	}
	return best
}

// Observe records an ended job and, when adv is the advice it was given at
// submission, judges that advice in the ledger of its group.
func (e *Engine) Observe(j Job, adv *Advice) {
	if adv != nil {
		e.judge(j, *adv, j.Requested)
	}
	q := j.query()
	r := Run{X: j.Length(), Censored: j.Censored()}
	for l := range Levels {
		k := Key(l, q)
		g := e.groups[k]
		if g == nil {
			g = &group{}
			if Levels[l].Req {
				g.Req = j.Requested
			}
			e.groups[k] = g
		}
		g.add(r, e.P.Window)
	}
	e.wait.Add(j.Requested, j.Wait)
	e.maxReq = max(e.maxReq, j.Requested)
	e.jobs++
	if e.observed != nil {
		e.observed(j)
	}
}

// judge credits the ledger of adv's group with the turnaround adv's plan
// saved over the request req alone for the ended job j.
func (e *Engine) judge(j Job, adv Advice, req float64) {
	if !adv.advised || adv.Key == "" || req < j.Length() {
		return
	}
	g := e.groups[adv.Key]
	m, ok := e.WaitModel()
	if g == nil || !ok {
		return
	}
	x := j.Length()
	d := Play(nil, req, x, m).Turnaround - Play(adv.Plan, req, x, m).Turnaround
	if adv.noTime {
		g.LedgerNoTime += d
		g.JudgedNoTime++
		return
	}
	g.Ledger += d
	g.Judged++
}

// pending is a submitted job waiting for its end.
type pending struct {
	end    float64
	seq    int
	job    Job
	adv    Advice
	levels []Advice // the advice of each level (learn only)
}

// levelAdvice is, for every level whose group has enough history, the
// advice that group gives q, and at the levels that do not key on the
// request also the advice it would give q without --time (ending with the
// longest request seen), judged in its own ledger.
func (e *Engine) levelAdvice(q Query) []Advice {
	m, ok := e.WaitModel()
	if !ok || e.maxReq <= 0 {
		return nil
	}
	var out []Advice
	for l, lv := range Levels {
		k := Key(l, q)
		if g := e.groups[k]; g != nil && len(g.Runs) >= e.P.MinRuns {
			out = append(out, e.adviseFrom(l, k, g, q.Requested, false, m))
			if !lv.Req {
				out = append(out, e.adviseFrom(l, k, g, e.maxReq, true, m))
			}
		}
	}
	return out
}

type endHeap []pending

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(a, b int) bool {
	if h[a].end != h[b].end {
		return h[a].end < h[b].end
	}
	return h[a].seq < h[b].seq
}
func (h endHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Feed plays jobs (in submit order) through e with no look-ahead: before
// each submission, every job that ended by then is observed. visit (when
// not nil) sees each job with its advice at submission. Jobs still running
// after the last submission are observed at the end. With allLevels, each
// job is also advised by every level with enough history (as if its user
// had given no --time at the levels without the request), and each such
// advice is judged in its group's ledger, so that a model can answer a job
// that gives fewer fields than the log, or no --time; the replay does not
// need it. O(J log J) plus the plans (one per level with allLevels).
func (e *Engine) Feed(jobs []Job, allLevels bool, visit func(i int, j Job, a Advice)) {
	_ = e.FeedContext(context.Background(), jobs, allLevels, visit)
}

// FeedContext is Feed stopped by ctx: it checks ctx every 1024 jobs and
// returns ctx's error, e then holding part of the jobs (to be dropped).
func (e *Engine) FeedContext(ctx context.Context, jobs []Job, allLevels bool, visit func(i int, j Job, a Advice)) error {
	var h endHeap
	observe := func(p pending) {
		if p.levels == nil {
			e.Observe(p.job, &p.adv)
			return
		}
		for _, a := range p.levels {
			e.judge(p.job, a, a.Requested)
		}
		e.Observe(p.job, nil)
	}
	for i, j := range jobs {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for h.Len() > 0 && h[0].end <= j.Submit {
			observe(heap.Pop(&h).(pending))
		}
		q := j.query()
		a := e.Advise(q)
		if visit != nil {
			visit(i, j, a)
		}
		p := pending{end: j.End(), seq: i, job: j, adv: a}
		if allLevels {
			p.levels = e.levelAdvice(q)
		}
		heap.Push(&h, p)
		e.lastSeen = max(e.lastSeen, j.Submit)
	}
	for n := 0; h.Len() > 0; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		observe(heap.Pop(&h).(pending))
	}
	return nil
}
