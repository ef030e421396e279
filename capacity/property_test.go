package capacity

import (
	"errors"
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
// When the reference finds no feasible schedule, no other algorithm may
// produce a valid one either; such sections are counted, and at most a
// quarter of the drawn sections may be infeasible, so that the dominance
// is checked on most of them.
func TestPropertyCorollary1Dominates(t *testing.T) {
	others := []Algorithm{&GreedyGoodput{}, &GreedyYield{}, &DPGoodput{}, &DPGoodput{BestCnf: true}, &DPYield{}, &DPBiC{X: 5}, &DPGoodputSlow{}}
	var drawn, infeasible int
	rapid.Check(t, func(t *rapid.T) {
		st := genState(t)
		drawn++
		opt, err := (&DPGoodputSlow{BestCnf: true}).Plan(st)
		if err != nil {
			if !errors.Is(err, errNoPlan) {
				t.Fatalf("reference: %v", err)
			}
			infeasible++
			for _, a := range others {
				if pl, err := a.Plan(st); err == nil {
					if _, err := Validate(st, pl); err == nil {
						t.Fatalf("%s found a valid plan where the optimum found none", a.Name())
					}
				}
			}
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
	if drawn == 0 || 4*infeasible > drawn {
		t.Fatalf("%d of %d drawn sections infeasible: the property was checked on too few", infeasible, drawn)
	}
	t.Logf("%d of %d drawn sections infeasible (checked for no valid plan)", infeasible, drawn)
}
