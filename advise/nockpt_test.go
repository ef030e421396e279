package advise

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/reservation"
)

// oraclePlan is reservation.DynProgCount in the NoCkpt class: the seed
// paper's dynamic program, itself checked against exhaustive search in
// package reservation.
func oraclePlan(values, probs []float64, m WaitModel) ([]float64, float64, error) {
	s, cost, err := reservation.DynProgCount(values, probs,
		reservation.Costs{Alpha: max(m.A, MinAlpha), Beta: 1, Gamma: m.B}, reservation.NoCkpt)
	var seq []float64
	for _, st := range s {
		seq = append(seq, st.Milestone)
	}
	return seq, cost, err
}

func samePlan(t interface {
	Helper()
	Fatalf(string, ...any)
}, values, probs []float64, m WaitModel) {
	t.Helper()
	got, gc, gerr := noCkptPlan(values, probs, max(m.A, MinAlpha), 1, m.B)
	want, wc, werr := oraclePlan(values, probs, m)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("law %v %v: error %v, the DP's %v", values, probs, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if math.Abs(gc-wc) > 1e-9*math.Abs(wc) {
		t.Fatalf("law %v %v, wait %v: sequence %v cost %v, the DP's %v cost %v", values, probs, m, got, gc, want, wc)
	}
	// The two sum in different orders, so an exact tie between two
	// sequences may fall either way: a different sequence is accepted only
	// when its own expected cost, evaluated from the law, is the optimum.
	if !slices.Equal(got, want) {
		if ev := seqCost(got, values, probs, max(m.A, MinAlpha), 1, m.B); math.Abs(ev-wc) > 1e-9*math.Abs(wc) {
			t.Fatalf("law %v %v, wait %v: sequence %v costs %v, the DP's %v costs %v", values, probs, m, got, ev, want, wc)
		}
	}
}

// seqCost is the expected cost of the reservation sequence seq for a job
// of law (values, probs) that never checkpoints, summed job length by job
// length: every reservation up to the first that reaches y costs
// α·t + β·min(t, y) + γ.
func seqCost(seq, values, probs []float64, alpha, beta, gamma float64) float64 {
	total := 0.0
	for i, y := range values {
		c := 0.0
		for _, t := range seq {
			c += alpha*t + beta*min(t, y) + gamma
			if t >= y {
				break
			}
		}
		total += probs[i] * c
	}
	return total
}

// TestNoCkptPlanIsTheDP: on random laws (few points, so that ties of the
// two sums are drawn too) the cost agrees with the reservation DP's to
// 1e-9, and the sequence is the DP's or, on an exact tie, one whose own
// expected cost is the optimum.
func TestNoCkptPlanIsTheDP(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 22).Draw(rt, "n")
		values, probs := make([]float64, n), make([]float64, n)
		x, total := 0.0, 0.0
		for i := range values {
			x += float64(rapid.IntRange(1, 5000).Draw(rt, "dx"))
			values[i] = x
			probs[i] = float64(rapid.IntRange(0, 10).Draw(rt, "w"))
			total += probs[i]
		}
		probs[n-1]++
		total++
		for i := range probs {
			probs[i] /= total
		}
		m := WaitModel{A: rapid.Float64Range(0, 3).Draw(rt, "a"), B: rapid.Float64Range(0, 20000).Draw(rt, "b")}
		samePlan(rt, values, probs, m)
	})
}

// TestNoCkptPlanShippedGroups: the law of every group with enough history,
// learnt from a shipped log, gets the reservation DP's sequence.
func TestNoCkptPlanShippedGroups(t *testing.T) {
	l, err := ReadSWFFile(datadirtest.ForTest(t, "swf", "SDSC-SP2-1998-4.2-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(DefaultParams())
	e.Feed(l.Jobs, true, nil)
	m, ok := e.WaitModel()
	if !ok {
		t.Fatal("no wait model")
	}
	checked := 0
	for _, g := range e.groups {
		if len(g.Runs) < e.P.MinRuns {
			continue
		}
		req := g.Req
		if req <= 0 {
			req = e.maxReq
		}
		for _, prior := range []float64{0, 1, 2} {
			v, p := Law(g.Runs, req, prior)
			samePlan(t, v, p, m)
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d laws checked", checked)
	}
	t.Logf("%d laws", checked)
}
