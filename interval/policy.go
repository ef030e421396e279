package interval

import (
	"fmt"
	"math"
)

// Policy chooses the checkpoint period (work between checkpoints) of a task
// of the trace; +Inf means no checkpoint. Each policy of the paper's
// evaluation is a Policy: Formula (3) or Young's formula, with the task's own
// failure count and intervals ("precise prediction", Table 6) or with the
// MNOF and MTBF of its priority group (Fig. 9, Fig. 10).
type Policy interface {
	Name() string
	Period(t TraceTask) float64
}

// MNOFPolicy is Theorem 1: Te/x with x = Intervals(Te, C, MNOF(task)).
type MNOFPolicy struct {
	Label string
	C     float64
	MNOF  func(TraceTask) float64 // NaN or 0: no checkpoint
}

func (p MNOFPolicy) Name() string { return p.Label }

// Period implements Policy.
func (p MNOFPolicy) Period(t TraceTask) float64 {
	m := p.MNOF(t)
	if !(m > 0) {
		return math.Inf(1)
	}
	return t.Te / float64(Intervals(t.Te, p.C, m))
}

// YoungPolicy is Young's formula √(2·C·MTBF(task)).
type YoungPolicy struct {
	Label string
	C     float64
	MTBF  func(TraceTask) float64 // NaN or +Inf: no checkpoint
}

func (p YoungPolicy) Name() string { return p.Label }

// Period implements Policy.
func (p YoungPolicy) Period(t TraceTask) float64 {
	m := p.MTBF(t)
	if !(m > 0) || math.IsInf(m, 1) {
		return math.Inf(1)
	}
	return Young(p.C, m)
}

// OwnMNOF is the task's own number of failures (precise prediction).
func OwnMNOF(t TraceTask) float64 { return float64(len(t.Failures)) }

// OwnMTBF is the mean of the task's own failure intervals (precise
// prediction); +Inf for a task that never failed.
func OwnMTBF(t TraceTask) float64 {
	if len(t.Failures) == 0 {
		return math.Inf(1)
	}
	s := 0.0
	for _, d := range t.Failures {
		s += d
	}
	return s / float64(len(t.Failures))
}

// GroupMNOF and GroupMTBF look the task's priority up in per-priority
// statistics (ByPriority); a missing group gives NaN (no checkpoint).
func GroupMNOF(g map[int]Stats) func(TraceTask) float64 {
	return func(t TraceTask) float64 {
		if s, ok := g[t.Priority]; ok {
			return s.MNOF
		}
		return math.NaN()
	}
}

// GroupMTBF: see GroupMNOF.
func GroupMTBF(g map[int]Stats) func(TraceTask) float64 {
	return func(t TraceTask) float64 {
		if s, ok := g[t.Priority]; ok {
			return s.MTBF
		}
		return math.NaN()
	}
}

// ReplayAll replays every task under the policy with checkpoint cost c and
// restart cost r. out is reused when large enough. O(total failures).
func ReplayAll(tasks []TraceTask, p Policy, c, r float64, out []ReplayResult) ([]ReplayResult, error) {
	out = out[:0]
	for i, t := range tasks {
		res, err := Replay(t.Te, p.Period(t), c, r, t.Failures)
		if err != nil {
			return nil, fmt.Errorf("task %d (job %d index %d): %w", i, t.Job, t.Index, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// JobWPR is Eq. (9) per job: the work of its tasks over their wall-clock
// time, Σ Te / Σ Tw (one task: the task's WPR). Jobs in order of first
// appearance; tasks and results are parallel. O(tasks).
func JobWPR(tasks []TraceTask, res []ReplayResult) (jobs []int64, wpr []float64) {
	idx := map[int64]int{}
	var work, wall []float64
	for i, t := range tasks {
		k, ok := idx[t.Job]
		if !ok {
			k = len(jobs)
			idx[t.Job] = k
			jobs = append(jobs, t.Job)
			work = append(work, 0)
			wall = append(wall, 0)
		}
		work[k] += t.Te
		wall[k] += res[i].Wallclock
	}
	wpr = make([]float64, len(jobs))
	for k := range jobs {
		wpr[k] = work[k] / wall[k]
	}
	return jobs, wpr
}

// JobWPRGloudSim is JobWPR under the accounting of GloudSim's analyser
// (ReplayGloudSim) with GloudSimPeriod: Formula (3) when formula3, else
// Young, with the given MNOF and MTBF estimators. Per job Σ W / Σ Tw.
func JobWPRGloudSim(tasks []TraceTask, formula3 bool, c float64, mnof, mtbf func(TraceTask) float64) (jobs []int64, wpr []float64) {
	idx := map[int64]int{}
	var work, wall []float64
	segs := make([]float64, 0, 16)
	for _, t := range tasks {
		k, ok := idx[t.Job]
		if !ok {
			k = len(jobs)
			idx[t.Job] = k
			jobs = append(jobs, t.Job)
			work = append(work, 0)
			wall = append(wall, 0)
		}
		segs = append(append(segs[:0], t.Failures...), t.LastRun)
		w, tw := ReplayGloudSim(GloudSimPeriod(formula3, t.Te, c, mnof(t), mtbf(t)), c, segs)
		work[k] += w
		wall[k] += tw
	}
	wpr = make([]float64, len(jobs))
	for k := range jobs {
		wpr[k] = work[k] / wall[k]
	}
	return jobs, wpr
}
