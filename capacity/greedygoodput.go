package capacity

import "sort"

// GreedyGoodput is GREEDYGOODPUT (Section 4.1.1, Algorithm 1 of Appendix
// A). Jobs are taken by non-increasing p_j (ties by index). At T_i the jobs
// not running are started first-fit in that order while processors remain;
// then, in the same order, active jobs are kept running to the end as long
// as they fit in max(P_i − δ, P_min), and every other active job
// checkpoints as late as possible, at T_{i+1} − C_j.
//
// Two readings of the pseudo-code: its loops advance j on every iteration
// (as printed, j ← j+1 sits inside the if and the loops would not
// terminate), and a job that holds its processors with a checkpoint taken
// at T_i (Checkpointed) continues without a recovery (path 4/5 of Fig. 4),
// a recovery being needed only for a job that holds no processors.
// A job that could not both start and checkpoint within the section is not
// started (see fits). Time O(m log m) per section.
type GreedyGoodput struct{ order []int }

func (a *GreedyGoodput) Name() string { return "greedy-goodput" }

func (a *GreedyGoodput) Plan(st *State) (*Plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	m := len(st.Jobs)
	a.order = byWidth(st, a.order)
	active := make([]bool, m)
	used := 0
	for j, s := range st.Status {
		if s == Running {
			active[j] = true
			used += st.Jobs[j].P
		}
	}
	for _, j := range a.order { // lines 4–9
		if used >= st.P {
			break
		}
		if st.Status[j] == Running || !alive(st, j) || !fits(st, j) {
			continue
		}
		if used+st.Jobs[j].P <= st.P {
			active[j] = true
			used += st.Jobs[j].P
		}
	}
	keep := make([]bool, m)
	used, lim := 0, st.Keep(st.P)
	for _, j := range a.order { // lines 10–16
		if used >= lim {
			break
		}
		if active[j] && used+st.Jobs[j].P <= lim {
			keep[j] = true
			used += st.Jobs[j].P
		}
	}
	return planActive(st, active, keep), nil
}

// byWidth orders the jobs by non-increasing p_j, ties by index.
func byWidth(st *State, order []int) []int {
	order = order[:0]
	for j := range st.Jobs {
		order = append(order, j)
	}
	sort.SliceStable(order, func(a, b int) bool { return st.Jobs[order[a]].P > st.Jobs[order[b]].P })
	return order
}

// fits reports whether job j, started at T_i, can still checkpoint before
// T_{i+1}: C_j (+ R_j if it holds no processors) ≤ T. The paper's sections
// (T ≥ 0.8·avgT = 80, C_j + R_j ≤ 40) always fit; shorter sections must not
// make a greedy start a job it could not save.
func fits(st *State, j int) bool {
	need := st.Jobs[j].C
	if st.Status[j] == Idle {
		need += st.Jobs[j].R
	}
	return need <= st.T
}

// alive reports whether job j may be scheduled from T_i on: released by
// T_i (Section 5: only alive jobs can be allocated processors) and not done.
func alive(st *State, j int) bool {
	return st.Status[j] != Done && st.Jobs[j].Release <= st.Now
}

// planActive builds the plan of the greedy algorithms: active jobs run the
// whole section (recovering first when idle at T_i), those not kept
// checkpoint at T − C_j; Running jobs that are not active would lose work
// and are kept active by the callers.
func planActive(st *State, active, keep []bool) *Plan {
	cases := make([]uint8, len(st.Jobs))
	for j, s := range st.Status {
		switch {
		case !alive(st, j) && s != Running:
		case !active[j] && s == Checkpointed:
			cases[j] = caseCkptIdle
		case !active[j]:
			cases[j] = caseIdleIdle
		case s == Running:
			cases[j] = pick(keep[j], caseRunRun, caseRunCkpt3)
		case s == Checkpointed:
			cases[j] = pick(keep[j], caseCkptRun, caseCkptCkpt3)
		default:
			cases[j] = pick(keep[j], caseIdleRec1Run, caseIdleRec1Ckpt)
		}
	}
	return planFromCases(st, cases, 0)
}
