package interval

import (
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/trace"
)

// TasksFromGloudSim turns a GloudSim trace into tasks to replay, in file
// order: Te is the task's totalTaskLength and the failures its failure
// intervals (all segments but the last). O(segments).
func TasksFromGloudSim(tr trace.GloudSimTrace) []TraceTask {
	var out []TraceTask
	for _, j := range tr.Jobs {
		for _, t := range j.Tasks {
			out = append(out, TraceTask{Job: j.ID, Index: t.Index, Priority: j.Priority, Te: t.TotalLength, Failures: t.FailureIntervals(),
				LastRun: t.Segments[len(t.Segments)-1].Duration})
		}
	}
	return out
}

// Stats are the failure statistics of a group of tasks.
type Stats struct {
	Tasks    int
	Failures int
	// MNOF is the mean number of failures per task (Failures/Tasks).
	MNOF float64
	// MTBF is the mean of all the group's failure intervals (Σ intervals /
	// Failures): the mean uninterrupted run that ended in a failure. NaN
	// when no task failed.
	MTBF float64
}

// statsOf reads a failure count's MNOF and MTBF (trace.FailureCount, the
// one estimator).
func statsOf(c trace.FailureCount) Stats {
	return Stats{Tasks: c.Tasks, Failures: c.Failures, MNOF: c.MNOF(), MTBF: c.MTBF()}
}

// Estimate computes the MNOF and MTBF of a group of tasks with
// trace.FailureCount. O(failures).
func Estimate(tasks []TraceTask) Stats {
	c := trace.FailureCount{Tasks: len(tasks)}
	for _, t := range tasks {
		c.Failures += len(t.Failures)
		for _, d := range t.Failures {
			c.Interrupted += d // one running sum, in order
		}
	}
	return statsOf(c)
}

// ByPriority groups the tasks whose work Te is below maxLen (+Inf for no
// limit) by priority and estimates each group, as in Table 7 of the paper.
func ByPriority(tasks []TraceTask, maxLen float64) map[int]Stats {
	groups := map[int][]TraceTask{}
	for _, t := range tasks {
		if t.Te < maxLen {
			groups[t.Priority] = append(groups[t.Priority], t)
		}
	}
	out := make(map[int]Stats, len(groups))
	for p, g := range groups {
		out[p] = Estimate(g)
	}
	return out
}

// FailureIntervals pools the failure intervals of the tasks, in order.
func FailureIntervals(tasks []TraceTask) []float64 {
	var out []float64
	for _, t := range tasks {
		out = append(out, t.Failures...)
	}
	return out
}

// FitFamilies are the families FitInterFailure tries, as in Fig. 5 of the
// paper.
var FitFamilies = []string{"exponential", "weibull", "lognormal", "pareto"}

// FitInterFailure fits the FitFamilies to inter-failure times by maximum
// likelihood and returns them by increasing AIC (failed fits last, in
// FitFamilies order), ranked by distribution.FitRanked. Samples ≤ 0 (simultaneous failures) are dropped
// first, since Weibull, LogNormal and Pareto live on (0, ∞); dropped is
// their number. O(N log N).
func FitInterFailure(samples []float64) (fits []distribution.Candidate, dropped int) {
	pos := make([]float64, 0, len(samples))
	for _, x := range samples {
		if x > 0 && !math.IsInf(x, 0) {
			pos = append(pos, x)
		} else {
			dropped++
		}
	}
	fits = distribution.FitRanked(pos, FitFamilies, distribution.ByAIC)
	for i := range fits {
		if fits[i].Skipped != "" { // no fit: no likelihood, ranked last
			fits[i].Dist, fits[i].LogLikelihood, fits[i].AIC, fits[i].BIC, fits[i].KS = nil, math.NaN(), math.Inf(1), math.Inf(1), math.NaN()
		}
	}
	return fits, dropped
}

// SystemFailures are the failure statistics of one LANL system.
type SystemFailures struct {
	System   int
	Failures int
	// MTBF is the system's mean time between failure starts (trace.MTBF).
	MTBF float64
	// Intervals are the times between distinct failure events (failures
	// starting in the same minute merged), the samples of Fits.
	Intervals []float64
	Fits      []distribution.Candidate
}

// LANLSystems groups LANL failure records by system and fits the
// inter-event times of each system with at least minFailures failures.
// O(n log n).
func LANLSystems(recs []trace.LANLFailure, minFailures int) []SystemFailures {
	var out []SystemFailures
	for _, s := range trace.GroupLANLBySystem(recs) {
		if len(s.Failures) < minFailures {
			continue
		}
		iv := s.InterEventTimes()
		fits, _ := FitInterFailure(iv)
		out = append(out, SystemFailures{System: s.System, Failures: len(s.Failures), MTBF: s.MTBF(), Intervals: iv, Fits: fits})
	}
	return out
}
