package capacity

import (
	"fmt"
	"math"
	"sort"
)

// Outcome is what a validated plan achieved in its section.
type Outcome struct {
	Work   []float64 // l_j^i, effective working time of each job
	End    []Status  // status of each job at T_{i+1}
	Area   float64   // Σ_j p_j l_j^i, the useful work of the section
	Wasted float64   // processor-time spent checkpointing or recovering
	// Completed[j] is the time (from T_i) at which finite job j reached
	// its length L_j, −1 if it did not.
	Completed []float64
}

// tol is the absolute time tolerance of the validator (plans are built
// from sums of float64 durations).
const tol = 1e-9

// Validate checks a plan against the state independently of how it was
// built, and returns what it achieved. It rejects
//   - intervals outside [0, T], empty, unsorted or overlapping;
//   - a checkpoint not exactly C_j long or a recovery not exactly R_j long;
//   - work lost: a job that stops (or, Running at T_i, does not continue
//     at 0) with unsaved work;
//   - work or a checkpoint on processors whose state was not loaded (a job
//     idle at T_i, or stopped since, must recover first), and a recovery of
//     a job already loaded;
//   - more than P_i processors in use at any instant;
//   - the online constraint: the jobs still running without a checkpoint at
//     T_{i+1} hold more than max(P_i − δ, P_min) processors;
//   - finite jobs: activity before the release date, work beyond L_j, or a
//     completed job that keeps running.
//
// A job is Checkpointed at T_{i+1} if it is active at T with its state
// saved, Running if active with unsaved work, Idle otherwise.
func Validate(st *State, pl *Plan) (*Outcome, error) {
	m := len(st.Jobs)
	if pl == nil || len(pl.Jobs) != m {
		return nil, fmt.Errorf("plan has %d jobs, state %d", lenJobs(pl), m)
	}
	eps := tol * math.Max(1, st.T)
	out := &Outcome{Work: make([]float64, m), End: make([]Status, m), Completed: make([]float64, m)}
	var evs []procEvent
	for j, ivs := range pl.Jobs {
		var err error
		if evs, err = validateJob(st, j, ivs, eps, out, evs); err != nil {
			return nil, err
		}
	}
	if err := checkCapacity(evs, st.P, eps); err != nil {
		return nil, err
	}
	keep, running := st.Keep(st.P), 0
	for j, s := range out.End {
		if s == Running {
			running += st.Jobs[j].P
		}
	}
	if running > keep {
		return nil, fmt.Errorf("online constraint: %d processors run unsaved at the next event, at most max(P_i-δ, P_min) = %d", running, keep)
	}
	return out, nil
}

// procEvent is a change of dp processors in use at time t.
type procEvent struct {
	t  float64
	dp int
}

// validateJob checks the intervals of job j, records what it achieved in
// out and appends its processor events to evs.
func validateJob(st *State, j int, ivs []Interval, eps float64, out *Outcome, evs []procEvent) ([]procEvent, error) {
	jb := st.Jobs[j]
	s0 := st.Status[j]
	if s0 == Done {
		if len(ivs) > 0 {
			return nil, fmt.Errorf("job %d: completed but scheduled", j)
		}
		out.End[j] = Done
		return evs, nil
	}
	tl := timeline{j: j, jb: jb, T: st.T, now: st.Now, eps: eps, loaded: s0 == Running || s0 == Checkpointed, dirty: s0 == Running}
	for k, iv := range ivs {
		if err := tl.step(k, iv, out); err != nil {
			return nil, err
		}
		evs = append(evs, procEvent{iv.Start, jb.P}, procEvent{iv.End, -jb.P})
	}
	if len(ivs) == 0 && s0 == Running {
		return nil, fmt.Errorf("job %d: running at the event but idle in the plan (work lost)", j)
	}
	switch {
	case len(ivs) > 0 && tl.prev >= st.T-eps:
		out.End[j] = Checkpointed
		if tl.dirty {
			out.End[j] = Running
		}
	case tl.dirty:
		return nil, fmt.Errorf("job %d: stops at %v with unsaved work (work lost)", j, tl.prev)
	default:
		out.End[j] = Idle
	}
	out.Completed[j] = -1
	if jb.Length > 0 {
		if err := checkCompletion(st, j, ivs, eps, out); err != nil {
			return nil, err
		}
	}
	out.Area += float64(jb.P) * out.Work[j]
	return evs, nil
}

// timeline is the state of one job's processors in a section of length T
// starting at now while its intervals are read in order: loaded (its state is on them), dirty (unsaved work), prev
// (the end of the last interval).
type timeline struct {
	j             int
	jb            Job
	T, now, eps   float64
	loaded, dirty bool
	prev          float64
}

// step checks interval k of the job and accounts its work and waste.
func (tl *timeline) step(k int, iv Interval, out *Outcome) error {
	j, jb, eps := tl.j, tl.jb, tl.eps
	if !(iv.End-iv.Start > 0) {
		return fmt.Errorf("job %d interval %d: empty or reversed [%v, %v)", j, k, iv.Start, iv.End)
	}
	if T := tl.T; iv.Start < -eps || iv.End > T+eps {
		return fmt.Errorf("job %d interval %d: [%v, %v) outside the section [0, %v]", j, k, iv.Start, iv.End, T)
	}
	if iv.Start < tl.prev-eps {
		return fmt.Errorf("job %d interval %d: starts at %v before the previous one ends at %v", j, k, iv.Start, tl.prev)
	}
	if iv.Start > tl.prev+eps { // idle gap: the job released its processors
		if tl.dirty {
			return fmt.Errorf("job %d: stops at %v with unsaved work (work lost)", j, tl.prev)
		}
		tl.loaded = false
	}
	if jb.Length > 0 && tl.now+iv.Start < jb.Release-eps {
		return fmt.Errorf("job %d: active at %v before its release date %v", j, tl.now+iv.Start, jb.Release)
	}
	d := iv.End - iv.Start
	switch iv.Kind {
	case Recover:
		if tl.loaded {
			return fmt.Errorf("job %d interval %d: recovery while already loaded", j, k)
		}
		if math.Abs(d-jb.R) > eps {
			return fmt.Errorf("job %d interval %d: recovery lasts %v, R_j = %v", j, k, d, jb.R)
		}
		tl.loaded, tl.dirty = true, false
		out.Wasted += d * float64(jb.P)
	case Run:
		if !tl.loaded {
			return fmt.Errorf("job %d interval %d: runs at %v without recovery", j, k, iv.Start)
		}
		tl.dirty = true
		out.Work[j] += d
	case Checkpoint:
		if !tl.loaded {
			return fmt.Errorf("job %d interval %d: checkpoints at %v without recovery", j, k, iv.Start)
		}
		if math.Abs(d-jb.C) > eps {
			return fmt.Errorf("job %d interval %d: checkpoint lasts %v, C_j = %v", j, k, d, jb.C)
		}
		tl.dirty = false
		out.Wasted += d * float64(jb.P)
	default:
		return fmt.Errorf("job %d interval %d: unknown activity %d", j, k, iv.Kind)
	}
	tl.prev = iv.End
	return nil
}

// checkCompletion checks a finite job's work against its length L_j: never
// beyond it, and a job that reaches it takes its final checkpoint right
// after (Section 5) and is Done.
func checkCompletion(st *State, j int, ivs []Interval, eps float64, out *Outcome) error {
	jb := st.Jobs[j]
	done := 0.0
	if st.Work != nil {
		done = st.Work[j]
	}
	switch total := done + out.Work[j]; {
	case total > jb.Length+eps:
		return fmt.Errorf("job %d: works %v beyond its length %v", j, total, jb.Length)
	case total >= jb.Length-eps && len(ivs) > 0:
		n := len(ivs)
		if n < 2 || ivs[n-1].Kind != Checkpoint || ivs[n-2].Kind != Run || ivs[n-1].Start > ivs[n-2].End+eps {
			return fmt.Errorf("job %d: completes without its final checkpoint", j)
		}
		out.Completed[j] = ivs[n-2].End
		out.End[j] = Done
	}
	return nil
}

// checkCapacity sweeps the interval ends; at equal times (within eps)
// releases come first (intervals are half-open), and at most p processors
// may be in use.
func checkCapacity(evs []procEvent, p int, eps float64) error {
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].dp < evs[b].dp
	})
	used := 0
	for k := 0; k < len(evs); {
		t := evs[k].t
		for ; k < len(evs) && evs[k].t <= t+eps; k++ {
			used += evs[k].dp
		}
		if used > p {
			return fmt.Errorf("%d processors in use at t = %v, P_i = %d", used, t, p)
		}
	}
	return nil
}

func lenJobs(pl *Plan) int {
	if pl == nil {
		return 0
	}
	return len(pl.Jobs)
}
