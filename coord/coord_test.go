package coord

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"pgregory.net/rapid"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
}

func newC(t tb, policy string) *Coordinator {
	t.Helper()
	p, err := arbiter.Policies.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Policy: p, Bandwidth: 1e9, TTL: 10, NodeMTBF: 1e6, FixedMTBF: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func reg(t tb, c *Coordinator, now float64, id string, nodes int) {
	t.Helper()
	if _, err := c.Register(now, JobSpec{ID: id, Nodes: nodes, Bytes: 1e9 * float64(nodes), MTBF: 1e5}); err != nil {
		t.Fatal(err)
	}
}

func acq(t tb, c *Coordinator, now float64, job, rid string) Grant {
	t.Helper()
	g, err := c.Acquire(now, AcquireRequest{Job: job, RequestID: rid, Kind: arbiter.Checkpoint})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Scenarios: a step list (time, op, job, want status or error kind) run
// against each policy named.
type step struct {
	now    float64
	op     string // acquire, release, renew, tick, done
	job    string
	rid    string
	token  uint64
	status string    // wanted status ("" for tick)
	err    ErrorKind // wanted refusal
}

func TestScenarios(t *testing.T) {
	cases := []struct {
		name   string
		policy string
		steps  []step
	}{
		{"ordered: one holder, FCFS, release serves next", "ordered", []step{
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{1, "acquire", "b", "r1", 0, StatusWaiting, 0},
			{2, "acquire", "c", "r1", 0, StatusWaiting, 0},
			{3, "release", "a", "", 1, OutReleased, 0},
			{3, "acquire", "b", "r1", 0, StatusGranted, 0}, // poll: b got token 2
			{3, "acquire", "c", "r1", 0, StatusWaiting, 0},
			{4, "release", "b", "", 2, OutReleased, 0},
			{4, "acquire", "c", "r1", 0, StatusGranted, 0},
		}},
		{"oblivious: everyone at once", "oblivious", []step{
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{0, "acquire", "b", "r1", 0, StatusGranted, 0},
			{0, "acquire", "c", "r1", 0, StatusGranted, 0},
		}},
		{"holder dies: expiry after TTL serves the next; late release refused", "ordered-nb", []step{
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{1, "acquire", "b", "r1", 0, StatusWaiting, 0},
			{5, "acquire", "b", "r1", 0, StatusWaiting, 0}, // poll keeps b alive
			{9.9, "acquire", "b", "r1", 0, StatusWaiting, 0},
			{10, "tick", "", "", 0, "", 0},
			{10, "acquire", "b", "r1", 0, StatusGranted, 0},
			{11, "release", "a", "", 1, "", Fenced},
			{11, "renew", "a", "", 1, "", Fenced},
			{11, "release", "b", "", 2, OutReleased, 0},
			{12, "release", "b", "", 2, OutReleased, 0},  // retry of the release: same answer
			{12, "acquire", "a", "r1", 0, OutExpired, 0}, // retry of the expired request: no new grant
		}},
		{"renew keeps the lease; retry never grants twice", "least-waste", []step{
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{8, "renew", "a", "", 1, StatusGranted, 0},
			{16, "renew", "a", "", 1, StatusGranted, 0},
			{17, "acquire", "a", "r2", 0, "", Conflict},
			{20, "release", "a", "", 1, OutReleased, 0},
			{21, "acquire", "a", "r1", 0, OutReleased, 0},
			{21, "acquire", "a", "r2", 0, StatusGranted, 0},
			{21, "release", "a", "", 7, "", Fenced},
			{21, "release", "zz", "", 7, "", NotFound},
		}},
		{"a waiting request not polled is dropped; done frees the token", "ordered", []step{
			{0, "acquire", "a", "r1", 0, StatusGranted, 0},
			{1, "acquire", "b", "r1", 0, StatusWaiting, 0},
			{2, "acquire", "c", "r1", 0, StatusWaiting, 0},
			{9, "renew", "a", "", 1, StatusGranted, 0},
			{11.5, "acquire", "c", "r1", 0, StatusWaiting, 0}, // b (deadline 11) dropped, c polled
			{12, "done", "a", "", 0, "", 0},
			{12, "acquire", "c", "r1", 0, StatusGranted, 0},
			{12, "acquire", "b", "r1", 0, OutDropped, 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newC(t, tc.policy)
			for _, id := range []string{"a", "b", "c"} {
				reg(t, c, 0, id, 10)
			}
			for i, s := range tc.steps {
				var g Grant
				var err error
				switch s.op {
				case "acquire":
					g, err = c.Acquire(s.now, AcquireRequest{Job: s.job, RequestID: s.rid, Kind: arbiter.Checkpoint})
				case "release":
					g, err = c.Release(s.now, s.job, s.token, 0)
				case "renew":
					g, err = c.Renew(s.now, s.job, s.token)
				case "tick":
					c.Tick(s.now)
				case "done":
					err = c.Done(s.now, s.job, false)
				}
				if KindOf(err) != s.err || (err != nil) != (s.err != 0) {
					t.Fatalf("step %d %+v: err %v, want kind %d", i, s, err, s.err)
				}
				if s.status != "" && g.Status != s.status {
					t.Fatalf("step %d %+v: status %q, want %q (%+v)", i, s, g.Status, s.status, g)
				}
			}
		})
	}
}

// Least-Waste through the core picks what the arbiter picks: the hand
// scenario of arbiter's test, built through registrations and requests.
func TestLeastWasteThroughCore(t *testing.T) {
	c := newC(t, "least-waste")
	reg(t, c, 0, "blocker", 1)
	if _, err := c.Acquire(0, AcquireRequest{Job: "blocker", RequestID: "x", TTL: 5000}); err != nil { // holds the file system
		t.Fatal(err)
	}
	for _, s := range []JobSpec{{ID: "in", Nodes: 10, Bytes: 1e11, MTBF: 1}, {ID: "ck", Nodes: 50, Bytes: 4e11, R: 400, MTBF: 1}, {ID: "out", Nodes: 20, Bytes: 5e10, MTBF: 1}} {
		if _, err := c.Register(0, s); err != nil {
			t.Fatal(err)
		}
	}
	must := func(g Grant, err error) Grant {
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	must(c.Acquire(900, AcquireRequest{Job: "in", RequestID: "1", Kind: arbiter.Input, Bytes: 1e11, TTL: 1000}))
	must(c.Acquire(950, AcquireRequest{Job: "ck", RequestID: "1", Kind: arbiter.Checkpoint, TTL: 1000}))
	must(c.Acquire(990, AcquireRequest{Job: "out", RequestID: "1", Kind: arbiter.Output, Bytes: 5e10, TTL: 1000}))
	must(c.Release(1000, "blocker", 1, 0))
	if g := must(c.Acquire(1000, AcquireRequest{Job: "out", RequestID: "1", Kind: arbiter.Output})); g.Status != StatusGranted {
		t.Fatalf("output not granted: %+v", g)
	}
}

func TestAdvice(t *testing.T) {
	c := newC(t, "ordered")
	// Daly with C = 100 s (1e11 B at 1 GB/s), M = 1e5 s.
	if _, err := c.Register(0, JobSpec{ID: "d", Nodes: 1, Bytes: 1e11, MTBF: 1e5}); err != nil {
		t.Fatal(err)
	}
	a, err := c.Next(0, "d")
	if err != nil {
		t.Fatal(err)
	}
	// Daly, FGCS 2006 Eq. 37 by hand: √(2·100·1e5)=4472.136; r = 100/2e5 = 5e-4;
	// 4472.13595·(1 + 0.02236068/3 + 5e-4/9) = 4472.13595·1.00750911 = 4505.71774, − 100.
	if math.Abs(a.At-4405.71774) > 1e-3 || a.Final || a.None {
		t.Errorf("daly advice %+v", a)
	}
	// Young √(2CM) = 4472.136 with a measured C.
	if _, err := c.Register(0, JobSpec{ID: "y", Nodes: 1, C: 100, MTBF: 1e5, Method: MethodYoung}); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Next(50, "y"); math.Abs(a.At-4472.136) > 1e-3 {
		t.Errorf("young advice %+v", a)
	}
	// E(Y): the paper's example Te = 441, C = 1, E(Y) = 2 → 21 intervals, period 21.
	if _, err := c.Register(0, JobSpec{ID: "e", Nodes: 1, C: 1, EY: 2, Work: 441, Method: MethodEY}); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Next(0, "e"); a.At != 21 || a.EY != 2 {
		t.Errorf("ey advice %+v", a)
	}
	// Allocation end 10000 s: T = 10000, τ+C = 4505.65 → k = 3, τ' = 10000/3 − 100.
	if _, err := c.Register(0, JobSpec{ID: "end", Nodes: 1, Bytes: 1e11, MTBF: 1e5, End: 10000}); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Next(0, "end"); math.Abs(a.At-(10000.0/3-100)) > 1e-9 || a.Final {
		t.Errorf("end advice %+v", a)
	}
	if a, _ := c.Next(9950, "end"); !a.None {
		t.Errorf("no time left, advice %+v", a)
	}
	// Measured durations update C by EWMA: first replaces, then α = 0.25.
	g := acq(t, c, 100, "d", "r1")
	if _, err := c.Release(105, "d", g.Token, 200); err != nil {
		t.Fatal(err)
	}
	g = acq(t, c, 495, "d", "r2")
	if _, err := c.Release(500, "d", g.Token, 0); err != nil {
		t.Fatal(err)
	}
	if j, _ := c.Job("d"); j.CEst != 200+0.25*(5-200) || j.Samples != 2 || j.LastCheckpoint != 500 || j.Checkpoints != 2 {
		t.Errorf("after two checkpoints: %+v", j)
	}
	// No MTBF, no failures seen, no prior: a clear refusal naming mtbf.
	p, _ := arbiter.Policies.Lookup("ordered")
	c2, _ := New(Config{Policy: p, Bandwidth: 1e9})
	if _, err := c2.Register(0, JobSpec{ID: "n", Nodes: 4, Bytes: 1e11}); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Next(10, "n"); KindOf(err) != Invalid || err.(*Error).Field != "mtbf" {
		t.Errorf("no MTBF: %v", err)
	}
	// A failure after 4 nodes × 1000 s: μ̂_ind = 4000, job MTBF 1000.
	if err := c2.Done(1000, "n", true); err != nil {
		t.Fatal(err)
	}
	if mu := c2.NodeMTBF(1000); mu != 4000 {
		t.Errorf("μ̂ = %v, want 4000", mu)
	}
	c2.Register(1000, JobSpec{ID: "m", Nodes: 4, Bytes: 1e11})
	if a, _ := c2.Next(1000, "m"); a.MTBF != (4000.0)/4 {
		t.Errorf("estimated MTBF advice %+v", a)
	}
}

// The allocation-end correction, against its definition: the remaining
// time is k equal segments of τ'+C, τ' ≤ τ, and the last checkpoint ends
// exactly at the end.
func TestAdviceEndProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newC(t, "ordered")
		C := rapid.Float64Range(1, 1000).Draw(t, "C")
		M := rapid.Float64Range(10, 1e7).Draw(t, "M")
		end := rapid.Float64Range(1, 1e6).Draw(t, "end")
		now := rapid.Float64Range(0, end).Draw(t, "now")
		if _, err := c.Register(0, JobSpec{ID: "j", Nodes: 1, C: C, MTBF: M, End: end}); err != nil {
			t.Fatal(err)
		}
		a, err := c.Next(now, "j")
		if err != nil {
			t.Fatal(err)
		}
		if a.None {
			if !(end < C || now+C > end) {
				t.Fatalf("None with room: %+v", a)
			}
			return
		}
		if a.At < now || a.At+C > end*(1+1e-12) || a.Period > a.Optimum*(1+1e-12) {
			t.Fatalf("advice %+v breaks the end (now %v end %v)", a, now, end)
		}
		k := end / (a.Period + C)
		if math.Abs(k-math.Round(k)) > 1e-6 || (math.Round(k) == 1) != a.Final {
			t.Fatalf("%v segments: %+v", k, a)
		}
	})
}

// The lease machine under random operations: at most one holder under a
// token policy, tokens strictly increase, a released or expired token is
// refused, every waiting request is granted once the holders release, and
// a retried request never yields a second grant.
func TestLeaseProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		policy := rapid.SampledFrom([]string{"oblivious", "ordered", "ordered-nb", "least-waste"}).Draw(t, "policy")
		c := newC(t, policy)
		const n = 5
		for i := range n {
			reg(t, c, 0, fmt.Sprint("j", i), i+1)
		}
		now, lastToken := 0.0, uint64(0)
		dead := map[uint64]bool{}
		granted := map[string]uint64{} // request → token
		reqs := 0
		check := func(g Grant, rid string) {
			if tok, ok := granted[rid]; ok && g.Status == StatusGranted && tok != g.Token {
				t.Fatalf("request %s granted twice: %d and %d", rid, tok, g.Token)
			}
		}
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			now += rapid.Float64Range(0, 6).Draw(t, "dt")
			job := fmt.Sprint("j", rapid.IntRange(0, n-1).Draw(t, "job"))
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1: // acquire: new or retry
				j, _ := c.Job(job)
				rid := fmt.Sprint(job, "-", reqs)
				if j.Lease != nil && rapid.Bool().Draw(t, "retry") {
					rid = j.Lease.RequestID
				} else if len(j.Recent) > 0 && rapid.Bool().Draw(t, "late") {
					rid = j.Recent[0].RequestID
				} else {
					reqs++
				}
				g, err := c.Acquire(now, AcquireRequest{Job: job, RequestID: rid, Kind: arbiter.Checkpoint})
				if err != nil && KindOf(err) != Conflict {
					t.Fatal(err)
				}
				if err == nil {
					check(g, job+"/"+rid)
				}
			case 2: // release the held token or a stale one
				j, _ := c.Job(job)
				tok := uint64(rapid.IntRange(1, int(c.meta.Token)+1).Draw(t, "tok"))
				if j.Lease != nil && j.Lease.Granted && rapid.Bool().Draw(t, "own") {
					tok = j.Lease.Token
				}
				held := j.Lease != nil && j.Lease.Granted && j.Lease.Token == tok && j.Lease.Expires > now
				_, err := c.Release(now, job, tok, 0)
				if held && err != nil {
					t.Fatalf("release of held token %d refused: %v", tok, err)
				}
				if err == nil && dead[tok] {
					t.Fatalf("expired token %d released", tok)
				}
			case 3:
				j, _ := c.Job(job)
				if j.Lease != nil && j.Lease.Granted {
					c.Renew(now, job, j.Lease.Token)
				}
			}
			c.Tick(now)
			for _, j := range c.Jobs() {
				for _, p := range j.Recent {
					if p.Outcome == OutExpired {
						dead[p.Token] = true
					}
				}
			}
			stepMax := lastToken
			for _, j := range c.Jobs() {
				if l := j.Lease; l != nil && l.Granted {
					rid := j.Spec.ID + "/" + l.RequestID
					if tok, ok := granted[rid]; ok && tok != l.Token {
						t.Fatalf("request %s granted twice: %d and %d", rid, tok, l.Token)
					} else if !ok && l.Token <= lastToken {
						t.Fatalf("new grant %d not above the tokens seen before (%d)", l.Token, lastToken)
					}
					granted[rid] = l.Token
					stepMax = max(stepMax, l.Token)
				}
			}
			st := c.Stats()
			if c.cfg.Policy.Token && st.Holders > 1 {
				t.Fatalf("%d holders under %s", st.Holders, policy)
			}
			if st.Holders == 0 && st.Waiting > 0 {
				t.Fatalf("%d waiting with the file system free", st.Waiting)
			}
			if st.Meta.Token < stepMax {
				t.Fatalf("counter %d below a token held %d", st.Meta.Token, stepMax)
			}
			lastToken = st.Meta.Token
		}
		// Liveness: holders release, waiting jobs poll, until the queue drains.
		for round := 0; c.Stats().Waiting+c.Stats().Holders > 0; round++ {
			if round > 2*n {
				t.Fatalf("queue not drained: %+v", c.Stats())
			}
			for _, j := range c.Jobs() { // at the same now: nothing expires
				if l := j.Lease; l != nil {
					if l.Granted {
						if _, err := c.Release(now, j.Spec.ID, l.Token, 0); err != nil {
							t.Fatal(err)
						}
					} else {
						c.Acquire(now, AcquireRequest{Job: j.Spec.ID, RequestID: l.RequestID, Kind: l.Kind})
					}
				}
			}
		}
	})
}

func TestRestoreRoundTrip(t *testing.T) {
	c := newC(t, "least-waste")
	for _, id := range []string{"a", "b", "c"} {
		reg(t, c, 0, id, 3)
	}
	acq(t, c, 1, "a", "1")
	acq(t, c, 2, "b", "1")
	acq(t, c, 3, "c", "1")
	ch := c.TakeChanges()
	r, err := Restore(c.cfg, ch.Meta, ch.Put)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats() != c.Stats() {
		t.Fatalf("restored %+v, had %+v", r.Stats(), c.Stats())
	}
	// Same future: release a, both pick the same next holder, same token.
	g1, _ := c.Release(4, "a", 1, 0)
	g2, _ := r.Release(4, "a", 1, 0)
	if !reflect.DeepEqual(g1, g2) {
		t.Fatalf("%+v vs %+v", g1, g2)
	}
	for _, id := range []string{"b", "c"} {
		x, _ := c.Job(id)
		y, _ := r.Job(id)
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("%s: %+v %+v vs %+v %+v", id, x, *x.Lease, y, *y.Lease)
		}
	}
	bad := append([]Job(nil), ch.Put...)
	bad[0].Lease = &Lease{RequestID: "z", Granted: true, Token: 99}
	if _, err := Restore(c.cfg, ch.Meta, bad); err == nil {
		t.Fatal("a token beyond the counter restored")
	}
}

func TestValidateNamesField(t *testing.T) {
	for field, s := range map[string]JobSpec{
		"id":     {ID: "", Nodes: 1, C: 1},
		"nodes":  {ID: "x", Nodes: 0, C: 1},
		"bytes":  {ID: "x", Nodes: 1},
		"mtbf":   {ID: "x", Nodes: 1, C: 1, MTBF: math.NaN()},
		"end":    {ID: "x", Nodes: 1, C: 1, End: math.Inf(1)},
		"method": {ID: "x", Nodes: 1, C: 1, Method: "weibull"},
	} {
		err := s.Validate()
		if e, ok := err.(*Error); !ok || e.Field != field || e.Kind != Invalid {
			t.Errorf("%s: %v", field, err)
		}
	}
}

func TestConfigRefusals(t *testing.T) {
	p, _ := arbiter.Policies.Lookup("least-waste")
	for name, cfg := range map[string]Config{
		"no policy":        {Bandwidth: 1},
		"no arbiter":       {Policy: arbiter.Policy{Name: "x", Token: true}, Bandwidth: 1},
		"bandwidth 0":      {Policy: p},
		"bandwidth inf":    {Policy: p, Bandwidth: math.Inf(1)},
		"ttl > max":        {Policy: p, Bandwidth: 1, TTL: 2, MaxTTL: 1},
		"mtbf NaN":         {Policy: p, Bandwidth: 1, NodeMTBF: math.NaN()},
		"fixed, no value":  {Policy: p, Bandwidth: 1, FixedMTBF: true},
		"alpha 2":          {Policy: p, Bandwidth: 1, Alpha: 2},
		"negative max job": {Policy: p, Bandwidth: 1, MaxJobs: -1},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	c, _ := New(Config{Policy: p, Bandwidth: 1, MaxJobs: 1})
	c.Register(0, JobSpec{ID: "a", Nodes: 1, C: 1})
	if _, err := c.Register(0, JobSpec{ID: "b", Nodes: 1, C: 1}); KindOf(err) != Full {
		t.Errorf("past MaxJobs: %v", err)
	}
}

// KindOf returns the ErrorKind of err (0 if it is not an *Error).
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// Jobs returns copies of all jobs, sorted by id.
func (c *Coordinator) Jobs() []Job {
	out := make([]Job, 0, len(c.jobs))
	for _, j := range c.jobs {
		out = append(out, j.copy())
	}
	slices.SortFunc(out, func(a, b Job) int { return strings.Compare(a.Spec.ID, b.Spec.ID) })
	return out
}

// TestAuthHashIsKnowns: AuthHash answers what Known's copy holds, for a
// live job, an ended one (its done is replayed) and an unknown id.
func TestAuthHashIsKnowns(t *testing.T) {
	c := newC(t, "least-waste")
	for i, id := range []string{"live", "ended"} {
		if _, err := c.Register(1, JobSpec{ID: id, Nodes: 1 + i, Bytes: 1e9, MTBF: 1e5, AuthHash: "hash-of-" + id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Done(2, "ended", false); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"live", "ended", "unknown"} {
		j, known := c.Known(id)
		h, ok := c.AuthHash(id)
		if ok != known || h != j.Spec.AuthHash || (known && h != "hash-of-"+id) {
			t.Errorf("%s: AuthHash %q %v, Known's %q %v", id, h, ok, j.Spec.AuthHash, known)
		}
	}
}

// A new job of method ey without its work (no work, no allocation end
// after now) is refused naming work: it was registered, every Next then
// refused and the job could not be registered again with its work. A
// state that holds such a job (before this rule) still restores.
func TestRegisterEYNeedsWork(t *testing.T) {
	c := newC(t, "ordered")
	for _, s := range []JobSpec{
		{ID: "e", Nodes: 1, C: 1, EY: 2, Method: MethodEY},
		{ID: "e", Nodes: 1, C: 1, EY: 2, Method: MethodEY, End: 100}, // the allocation ended
	} {
		_, err := c.Register(100, s)
		if e, ok := err.(*Error); !ok || e.Field != "work" || e.Kind != Invalid {
			t.Errorf("%+v: %v", s, err)
		}
		if err := s.ValidateNew(100); err == nil || err.Error() != "work: method ey needs the job's work (work, or an allocation end after now)" {
			t.Errorf("ValidateNew %+v: %v", s, err)
		}
	}
	for _, s := range []JobSpec{
		{ID: "w", Nodes: 1, C: 1, EY: 2, Work: 441, Method: MethodEY},
		{ID: "a", Nodes: 1, C: 1, EY: 2, End: 541, Method: MethodEY},
	} {
		if _, err := c.Register(100, s); err != nil {
			t.Fatal(err)
		}
		if a, err := c.Next(100, s.ID); err != nil || !(a.At > 100 && a.At <= 121) {
			t.Errorf("%s: %+v %v", s.ID, a, err)
		}
	}
	stuck := Job{Spec: JobSpec{ID: "old", Nodes: 1, C: 1, Method: MethodEY}, Num: 1}
	if _, err := Restore(c.cfg, Meta{JobNum: 1}, []Job{stuck}); err != nil {
		t.Errorf("an old ey job without work: %v", err)
	}
}
