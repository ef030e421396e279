package iosim

import (
	"context"
	"slices"
	"testing"
)

// tokenServer is a minimal remote arbiter: a token queue with its own
// arbiter, told of requests, ends and withdrawals as a coordinator is.
type tokenServer struct {
	arb     Arbiter
	env     Env
	waiting []Request
	holder  int // -1: free
	seq     uint64
	last    bool // grant the latest request instead of asking arb (a wrong policy)
}

func (t *tokenServer) pick(now float64) []int {
	if t.holder >= 0 || len(t.waiting) == 0 {
		return nil
	}
	i := len(t.waiting) - 1
	if !t.last {
		i = t.arb.Pick(now, t.waiting, t.env)
	}
	t.holder = t.waiting[i].Job
	t.waiting = slices.Delete(t.waiting, i, i+1)
	return []int{t.holder}
}

func (t *tokenServer) Acquire(now float64, r Request) ([]int, error) {
	r.Seq = t.seq
	t.seq++
	t.waiting = append(t.waiting, r)
	return t.pick(now), nil
}

func (t *tokenServer) Release(now float64, job int) ([]int, error) { return t.Cancel(now, job) }

func (t *tokenServer) Cancel(now float64, job int) ([]int, error) {
	if t.holder == job {
		t.holder = -1
	}
	t.waiting = slices.DeleteFunc(t.waiting, func(r Request) bool { return r.Job == job })
	return t.pick(now), nil
}

func (t *tokenServer) Done(float64, int, bool) error { return nil }

// A remote arbiter that applies the strategy's policy to what it is told
// makes the in-process run's decisions; one that applies another policy
// is caught at its first different decision.
func TestClosedLoopHook(t *testing.T) {
	c := small()
	opt := Options{Span: 6 * Day, Skip: Day, Seed: 5}
	for _, name := range []string{"ordered-daly", "ordered-nb-fixed", "least-waste"} {
		st, _ := Lookup(name, 3600)
		env := Env{NodeMTBF: float64(c.Platform.NodeMTBF), Bandwidth: float64(c.Platform.Bandwidth)}
		rep, err := ClosedLoop(context.Background(), &c, st, opt, &tokenServer{arb: st.Arbiter, env: env, holder: -1})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Same || rep.Diverged != -1 || rep.LocalWaste != rep.RemoteWaste || rep.LocalDecisions < 50 {
			t.Errorf("%s: %+v", name, rep)
		}
		bad, err := ClosedLoop(context.Background(), &c, st, opt, &tokenServer{arb: st.Arbiter, env: env, holder: -1, last: true})
		if err != nil {
			t.Fatal(err)
		}
		if bad.Same || bad.Diverged < 0 {
			t.Errorf("%s: a wrong remote policy not caught: %+v", name, bad)
		}
	}
	st, _ := Lookup("oblivious-daly", 3600)
	if _, err := ClosedLoop(context.Background(), &c, st, opt, &tokenServer{}); err == nil {
		t.Error("oblivious accepted")
	}
}
