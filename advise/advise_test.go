package advise

import (
	"context"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func TestPlayHandComputed(t *testing.T) {
	m := WaitModel{A: 0.5, B: 100}
	// 10 killed: wait 105 + run 10; 30 ends it: wait 115 + run 20.
	o := Play([]float64{10, 30}, 100, 20, m)
	if o.Turnaround != 250 || o.Submissions != 2 || o.Reserved != 40 || o.Lost != 10 {
		t.Fatalf("got %+v, want turnaround 250, 2 submissions, 40 reserved, 10 lost", o)
	}
	// Every guess short: falls back to the request (wait 150 + run 90).
	o = Play([]float64{10, 30}, 100, 90, m)
	if want := 115.0 + 145 + 240; o.Turnaround != want || o.Submissions != 3 {
		t.Fatalf("got %+v, want turnaround %v in 3 submissions", o, want)
	}
	// A guess at or beyond the request is the request.
	if o := Play([]float64{200}, 100, 90, m); o.Turnaround != 240 || o.Submissions != 1 {
		t.Fatalf("got %+v, want the request alone", o)
	}
}

func TestCensoredAtLimit(t *testing.T) {
	for _, c := range []struct {
		run, req float64
		want     bool
	}{{990, 1000, true}, {989, 1000, false}, {1200, 1000, true}, {59.5, 60, true}, {58.9, 60, false}} {
		j := Job{Run: c.run, Requested: c.req}
		if j.Censored() != c.want {
			t.Errorf("run %v of %v: censored %v, want %v", c.run, c.req, j.Censored(), c.want)
		}
	}
}

func TestLawHandComputed(t *testing.T) {
	// One run ends at 100, one is censored at 200: Kaplan–Meier gives 1/2
	// at 100 and the censored tail 1/2 on 200; scaled by 2/3 and 1/3 on the
	// request.
	v, p := Law([]Run{{100, false}, {200, true}}, 1000, 1)
	if !slices.Equal(v, []float64{100, 200, 1000}) {
		t.Fatalf("values %v", v)
	}
	for i, w := range []float64{1.0 / 3, 1.0 / 3, 1.0 / 3} {
		if math.Abs(p[i]-w) > 1e-12 {
			t.Fatalf("probs %v, want thirds", p)
		}
	}
}

// TestReplayHandComputed replays four jobs of one user (request 1000 s,
// wait = t + 100 s) and checks every policy's mean turnaround against the
// sums worked by hand in the comments.
func TestReplayHandComputed(t *testing.T) {
	job := func(submit, run float64) Job {
		return Job{Submit: submit, Wait: 0, Run: run, Requested: 1000, Nodes: 1, Who: Who{User: "u"}}
	}
	// J1 ends at 100, J2 at 300, J3 at 800, J4 at 500.
	l := Log{Name: "hand", Jobs: []Job{job(0, 100), job(200, 100), job(300, 500), job(400, 100)}, Read: 4}
	p := Params{MinRuns: 1, Window: 5, MinWaitPairs: 2, Prior: 1, Abstain: true, Wait: WaitModel{A: 1, B: 100}}
	rep, err := Replay(context.Background(), l, p)
	if err != nil {
		t.Fatal(err)
	}
	// J1: no history, everyone asks 1000: 1100 + 100 = 1200.
	// J2 (history {100}): law 1/2 at 100, 1/2 at 1000. [1000] costs
	//   1100 + 550 = 1650, [100, 1000] costs 300 + 1/2·2100 = 1350: the
	//   advice is 100, and J2 (100 s) takes 200 + 100 = 300.
	// J3 (history {100, 100}, 500 s): advice [100, 1000] again (300 +
	//   1/3·2100 = 1000 < 1500): killed at 100 (300), then 1100 + 500:
	//   1900. The user's request: 1600.
	// J4 (J3 still running): advice 100, J4 runs 100: 300.
	want := map[string]float64{
		PolicyUser:     (1200 + 1200 + 1600 + 1200) / 4.0,
		PolicyCkpt:     (1200 + 300 + 1900 + 300) / 4.0,
		PolicyLastTwo:  (1200 + 1200 + 1900 + 300) / 4.0, // needs two ended runs: mean 100 for J3, J4
		PolicyMax15:    (1200 + 350 + 2000 + 350) / 4.0,  // 150: 250+100; killed 400, then 1600
		PolicyMax2:     (1200 + 400 + 2100 + 400) / 4.0,  // 200: 300+100; killed 500, then 1600
		PolicyQuantile: (1200 + 300 + 1900 + 300) / 4.0,  // p90 of {100} and {100, 100} is 100
		// J2's ledger is 0 when it is submitted (abstain); J2's end credits
		// 1200 − 300 = 900, so J3 and J4 follow the advice.
		PolicyCkptAbstain: (1200 + 1200 + 1900 + 300) / 4.0,
	}
	for _, r := range rep.Policies {
		if math.Abs(r.MeanTurnaround-want[r.Policy]) > 1e-9 {
			t.Errorf("%s: mean turnaround %v, want %v", r.Policy, r.MeanTurnaround, want[r.Policy])
		}
	}
	if r := rep.Policies[5]; r.KillRate != 0.25 || r.SubmissionsPerJob != 1.25 || r.LostNodeHours != 100.0/3600 {
		t.Errorf("ckpt: %+v, want 1 kill in 4 jobs, 5 submissions, 100 s lost", r)
	}
}

// TestPlanIsExhaustiveOptimum checks the advisor's sequence against every
// increasing sequence of support values ending with the request.
func TestPlanIsExhaustiveOptimum(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(rt, "n")
		req := float64(rapid.IntRange(60, 5000).Draw(rt, "req"))
		runs := make([]Run, n)
		for i := range runs {
			runs[i] = Run{X: float64(rapid.IntRange(1, int(req)).Draw(rt, "x")), Censored: rapid.IntRange(0, 4).Draw(rt, "c") == 0}
		}
		m := WaitModel{A: rapid.Float64Range(0.01, 2).Draw(rt, "a"), B: rapid.Float64Range(0, 20000).Draw(rt, "b")}
		prior := rapid.Float64Range(0, 3).Draw(rt, "prior")
		values, probs := Law(runs, req, prior)
		expect := func(seq []float64) float64 {
			e := 0.0
			for i, v := range values {
				e += probs[i] * Play(seq, req, v, m).Turnaround
			}
			return e
		}
		best := math.Inf(1)
		cand := values[:len(values)-1] // the request closes every sequence
		for mask := 0; mask < 1<<len(cand); mask++ {
			var seq []float64
			for i, v := range cand {
				if mask&(1<<i) != 0 {
					seq = append(seq, v)
				}
			}
			best = min(best, expect(append(seq, req)))
		}
		a := plan(runs, req, prior, m)
		if got := expect(a.Sequence); got > best*(1+1e-9)+1e-9 {
			rt.Fatalf("plan %v costs %v, exhaustive optimum %v", a.Sequence, got, best)
		}
		if math.Abs(a.Expected-expect(a.Sequence)) > 1e-6*best {
			rt.Fatalf("plan reports %v, its sequence costs %v", a.Expected, expect(a.Sequence))
		}
		if a.TimeMin > a.Time || a.Sequence[len(a.Sequence)-1] != req {
			rt.Fatalf("time-min %v > time %v or sequence %v does not end with %v", a.TimeMin, a.Time, a.Sequence, req)
		}
	})
}
