package capacity

import (
	"testing"

	"pgregory.net/rapid"
)

// genState draws a small valid state with equal checkpoint times.
func genState(t *rapid.T) *State {
	pmax := rapid.IntRange(2, 12).Draw(t, "pmax")
	pmin := rapid.IntRange(0, pmax).Draw(t, "pmin")
	delta := rapid.IntRange(0, pmax).Draw(t, "delta")
	st := &State{Platform: Platform{PMin: pmin, PMax: pmax, Delta: delta}}
	st.P = max(1, rapid.IntRange(pmin, pmax).Draw(t, "p"))
	st.T = float64(rapid.IntRange(10, 60).Draw(t, "T"))
	c := float64(rapid.IntRange(1, 5).Draw(t, "c"))
	m := rapid.IntRange(1, 6).Draw(t, "m")
	run := 0
	for i := range m {
		jb := Job{P: rapid.IntRange(1, pmax).Draw(t, "pj"), C: c, R: float64(rapid.IntRange(1, 5).Draw(t, "r"))}
		s := Status(rapid.IntRange(0, 2).Draw(t, "s"))
		if s == Running && run+jb.P > st.Keep(st.P) {
			s = Checkpointed
		}
		if s == Running {
			run += jb.P
		}
		st.Jobs = append(st.Jobs, jb)
		st.Status = append(st.Status, s)
		st.Work = append(st.Work, float64(rapid.IntRange(0, 100).Draw(t, "w")))
		st.Avail = append(st.Avail, 100)
		_ = i
	}
	return st
}

// With equal checkpoint times DPGOODPUTSLOW-BEST-Cnf is optimal (Corollary
// 1): no algorithm's validated plan does more work on the same section.
func TestPropertyCorollary1Dominates(t *testing.T) {
	others := []Algorithm{&GreedyGoodput{}, &GreedyYield{}, &DPGoodput{}, &DPGoodput{BestCnf: true}, &DPYield{}, &DPBiC{X: 5}, &DPGoodputSlow{}}
	rapid.Check(t, func(t *rapid.T) {
		st := genState(t)
		opt, err := (&DPGoodputSlow{BestCnf: true}).Plan(st)
		if err != nil {
			return
		}
		best, err := Validate(st, opt)
		if err != nil {
			t.Fatalf("optimal plan invalid: %v", err)
		}
		for _, a := range others {
			pl, err := a.Plan(st)
			if err != nil {
				continue
			}
			out, err := Validate(st, pl)
			if err != nil {
				t.Fatalf("%s: invalid plan: %v", a.Name(), err)
			}
			if out.Area > best.Area+1e-9 {
				t.Fatalf("%s does %v > optimum %v", a.Name(), out.Area, best.Area)
			}
		}
	})
}
