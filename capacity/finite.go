package capacity

import (
	"errors"
	"math"
	"sort"
)

var errFinalCheckpoint = errors.New("a running job completes in a section shorter than its final checkpoint")

// Finish adapts the plan of a section to finite jobs (Section 5.2), in
// order of completion time:
//   - a job that reaches its length L_j at t_c stops and takes its final
//     checkpoint [t_c, t_c + C_j], then releases its processors; when that
//     checkpoint would cross T_{i+1}, the job instead checkpoints as usual
//     at T_{i+1} − C_j (it completes in a later section) or, if its run
//     starts later than that, does not run this section;
//   - the processors freed at t_c + C_j, with those idle until T_{i+1},
//     go to idle alive jobs chosen by an exact subset sum maximising the
//     processors reallocated (ties: the earliest jobs); each recovers at
//     once, runs and checkpoints at T_{i+1} − C_j (the paper checkpoints
//     them when the completed job was to be checkpointed; we always do,
//     which keeps the online constraint without tracking processors).
//
// Jobs released during the section may be started at a reallocation.
// Finish returns a new plan; the input is not modified. Time
// O(k·(m·|intervals| + m·P)) for k completions.
func Finish(st *State, pl *Plan) (*Plan, error) {
	m := len(st.Jobs)
	out := &Plan{T: pl.T, Jobs: make([][]Interval, m), Cnf: pl.Cnf, Gain: pl.Gain, Case: pl.Case}
	for j := range pl.Jobs {
		out.Jobs[j] = append([]Interval(nil), pl.Jobs[j]...)
	}
	T := st.T
	eps := tol * math.Max(1, T)
	processed := make([]bool, m)
	for {
		best, bt, k := -1, math.Inf(1), 0
		for j, jb := range st.Jobs {
			if processed[j] || jb.Length == 0 || st.Status[j] == Done {
				continue
			}
			if tc, kk, ok := completion(out.Jobs[j], jb.Length-work(st, j)); ok && tc < bt {
				best, bt, k = j, tc, kk
			}
		}
		if best < 0 {
			return out, nil
		}
		j, jb := best, st.Jobs[best]
		processed[j] = true
		ivs := out.Jobs[j]
		a := ivs[k].Start // ivs[k] is the run that reaches L_j
		head := ivs[:k]
		if bt+jb.C <= T+eps {
			out.Jobs[j] = append(head, Interval{Run, a, bt}, Interval{Checkpoint, bt, bt + jb.C})
			if bt <= a {
				out.Jobs[j] = append(head, Interval{Checkpoint, a, a + jb.C})
			}
			if err := reallocate(st, out, bt+jb.C); err != nil {
				return nil, err
			}
			continue
		}
		s := T - jb.C
		switch {
		case s > a+eps:
			out.Jobs[j] = append(head, Interval{Run, a, s}, Interval{Checkpoint, s, T})
		case len(head) > 0 && head[len(head)-1].Kind == Recover && head[len(head)-1].End >= a-eps:
			out.Jobs[j] = head[:len(head)-1]
		case len(head) > 0 && head[len(head)-1].Kind == Checkpoint:
			out.Jobs[j] = head
		case a <= eps && st.Status[j] == Checkpointed:
			out.Jobs[j] = head
		default:
			return nil, errFinalCheckpoint
		}
	}
}

// completion returns when the intervals accumulate rem of work, and the
// index of the run interval in which that happens.
func completion(ivs []Interval, rem float64) (float64, int, bool) {
	acc := 0.0
	for k, iv := range ivs {
		if iv.Kind != Run {
			continue
		}
		if d := iv.End - iv.Start; acc+d >= rem-tol*math.Max(1, iv.End) {
			return iv.Start + math.Max(0, rem-acc), k, true
		}
		acc += iv.End - iv.Start
	}
	return 0, 0, false
}

// reallocate starts idle alive jobs at t on the processors free during
// [t, T], chosen by an exact subset sum.
func reallocate(st *State, pl *Plan, t float64) error {
	T := st.T
	// Peak use over [t, T).
	type ev struct {
		t  float64
		dp int
	}
	var evs []ev
	for j, ivs := range pl.Jobs {
		for _, iv := range ivs {
			if iv.End > t {
				evs = append(evs, ev{math.Max(iv.Start, t), st.Jobs[j].P}, ev{iv.End, -st.Jobs[j].P})
			}
		}
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].dp < evs[b].dp
	})
	used, peak := 0, 0
	for _, e := range evs {
		used += e.dp
		peak = max(peak, used)
	}
	free := st.P - peak
	if free <= 0 {
		return nil
	}
	var cand []int
	for j, jb := range st.Jobs {
		if len(pl.Jobs[j]) == 0 && st.Status[j] != Done && st.Status[j] != Running &&
			jb.Release <= st.Now+t && t+jb.R+jb.C < T && jb.P <= free && remaining(st, j) > 0 {
			cand = append(cand, j)
		}
	}
	// Subset sum: from[c] = the candidate that first reached total c.
	from := make([]int, free+1)
	for c := range from {
		from[c] = -1
	}
	from[0] = len(cand)
	for i, j := range cand {
		p := st.Jobs[j].P
		for c := free; c >= p; c-- {
			if from[c] < 0 && from[c-p] >= 0 && from[c-p] != i {
				from[c] = i
			}
		}
	}
	c := free
	for from[c] < 0 {
		c--
	}
	for c > 0 {
		i := from[c]
		j := cand[i]
		jb := st.Jobs[j]
		pl.Jobs[j] = []Interval{{Recover, t, t + jb.R}, {Run, t + jb.R, T - jb.C}, {Checkpoint, T - jb.C, T}}
		c -= jb.P
	}
	return nil
}

// remaining is L_j − l_j (+Inf for an infinite job).
func remaining(st *State, j int) float64 {
	if st.Jobs[j].Length == 0 {
		return math.Inf(1)
	}
	return st.Jobs[j].Length - work(st, j)
}
