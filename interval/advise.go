package interval

import (
	"fmt"
	"math"
)

// StoragePlan is the choice of checkpoint storage of Section 4.2.2, priced
// both ways: at the integer number of intervals of Theorem 1 (Costs, which
// decide) and at the real x* of Eq. (3) (Real, the paper's form).
type StoragePlan struct {
	Costs []StorageCost // at the integer x, in the order of the storages
	Real  []StorageCost // at the real x* of Eq. (3), same order
	Best  int           // index of the cheapest in Costs (the first on ties)
}

// Chosen is the cheapest storage.
func (p StoragePlan) Chosen() StorageCost { return p.Costs[p.Best] }

// PlanStorage prices every storage for a task of work te with ey expected
// failures, at the integer x and at the real x* (ChooseStorage both ways).
// O(len(s)).
func PlanStorage(te, ey float64, s []Storage) (StoragePlan, error) {
	costs, best, err := ChooseStorage(te, ey, s, false)
	if err != nil {
		return StoragePlan{}, err
	}
	cont, _, err := ChooseStorage(te, ey, s, true)
	if err != nil {
		return StoragePlan{}, err
	}
	return StoragePlan{Costs: costs, Real: cont, Best: best}, nil
}

// Advice is the whole answer for one task: the task as planned (every
// field known), the three methods of Plan and, when storages were given,
// the storage choice.
type Advice struct {
	Task    Task
	Methods []Method
	Storage *StoragePlan // nil without storages
}

// Advise plans a task, choosing its checkpoint storage first when stores
// are given. The task's C and R may be NaN (not given): the cheapest
// storage supplies C, and R too when R is missing (the storage choice
// itself depends only on Te and E(Y), not on the task's C); a given C keeps
// the plan on the caller's costs. Without storages a missing C is an error.
// A missing R that no storage supplies is 0. One of t.EY and t.MTBF must be known (Corollary 1
// gives the other). O(len(stores)).
func Advise(t Task, stores []Storage) (Advice, error) {
	if math.IsNaN(t.EY) && math.IsNaN(t.MTBF) {
		return Advice{}, fmt.Errorf("give the expected number of failures E(Y) or the MTBF")
	}
	var a Advice
	if len(stores) > 0 {
		c := t.C
		if math.IsNaN(c) {
			c = 1 // any valid C: the storage choice does not use it
		}
		r := t.R
		if math.IsNaN(r) {
			r = 0
		}
		probe := Task{Te: t.Te, C: c, R: r, EY: t.EY, MTBF: t.MTBF}
		if err := probe.Validate(); err != nil {
			return Advice{}, err
		}
		sp, err := PlanStorage(t.Te, probe.Resolved().EY, stores)
		if err != nil {
			return Advice{}, err
		}
		a.Storage = &sp
		if math.IsNaN(t.C) { // the plan follows the chosen storage
			t.C = sp.Chosen().C
			if math.IsNaN(t.R) {
				t.R = sp.Chosen().R
			}
		}
	}
	if math.IsNaN(t.C) {
		return Advice{}, fmt.Errorf("checkpoint cost C not given, and no storage to take it from")
	}
	if math.IsNaN(t.R) {
		t.R = 0
	}
	ms, err := Plan(t)
	if err != nil {
		return Advice{}, err
	}
	a.Task, a.Methods = t.Resolved(), ms
	return a, nil
}
