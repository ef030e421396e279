package capacity

import "sort"

// GreedyYield is GREEDYYIELD (Section 4.1.2): every job active in a section
// checkpoints at its end (completing at T_{i+1}); at T_i the jobs are taken
// by non-decreasing Yield_j(T_i), ties by non-increasing p_j (then index),
// and started first-fit while processors remain. A job still Running at T_i
// (only possible when the previous section was not planned by GreedyYield)
// is kept active. Time O(m log m) per section.
type GreedyYield struct{ order []int }

func (a *GreedyYield) Name() string { return "greedy-yield" }

func (a *GreedyYield) Plan(st *State) (*Plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	m := len(st.Jobs)
	a.order = a.order[:0]
	for j := range st.Jobs {
		a.order = append(a.order, j)
	}
	sort.SliceStable(a.order, func(x, y int) bool {
		i, j := a.order[x], a.order[y]
		yi, yj := st.Yield(i), st.Yield(j)
		if yi != yj {
			return yi < yj
		}
		return st.Jobs[i].P > st.Jobs[j].P
	})
	active := make([]bool, m)
	used := 0
	for j, s := range st.Status {
		if s == Running {
			active[j] = true
			used += st.Jobs[j].P
		}
	}
	for _, j := range a.order {
		if active[j] || !alive(st, j) || !fits(st, j) {
			continue
		}
		if used+st.Jobs[j].P <= st.P {
			active[j] = true
			used += st.Jobs[j].P
		}
	}
	return planActive(st, active, make([]bool, m)), nil
}
