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

// Estimate computes the MNOF and MTBF of a group of tasks. O(failures).
func Estimate(tasks []TraceTask) Stats {
	s := Stats{Tasks: len(tasks), MNOF: math.NaN(), MTBF: math.NaN()}
	sum := 0.0
	for _, t := range tasks {
		s.Failures += len(t.Failures)
		for _, d := range t.Failures {
			sum += d
		}
	}
	if s.Tasks > 0 {
		s.MNOF = float64(s.Failures) / float64(s.Tasks)
	}
	if s.Failures > 0 {
		s.MTBF = sum / float64(s.Failures)
	}
	return s
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

// Fit is one family's maximum-likelihood fit of inter-failure times.
type Fit struct {
	Family string
	Dist   distribution.Distribution // nil when the fit failed
	LogLik float64
	AIC    float64 // 2k − 2 log L
	KS     float64 // Kolmogorov–Smirnov distance to the samples
	Err    string  // why the fit failed
}

// FitFamilies are the families FitInterFailure tries, as in Fig. 5 of the
// paper.
var FitFamilies = []string{"exponential", "weibull", "lognormal", "pareto"}

// FitInterFailure fits the FitFamilies to inter-failure times by maximum
// likelihood and returns them by increasing AIC (failed fits last, in
// FitFamilies order), ranked by distribution.FitRanked. Samples ≤ 0 (simultaneous failures) are dropped
// first, since Weibull, LogNormal and Pareto live on (0, ∞); dropped is
// their number. O(N log N).
func FitInterFailure(samples []float64) (fits []Fit, dropped int) {
	pos := make([]float64, 0, len(samples))
	for _, x := range samples {
		if x > 0 && !math.IsInf(x, 0) {
			pos = append(pos, x)
		} else {
			dropped++
		}
	}
	for _, c := range distribution.FitRanked(pos, FitFamilies, distribution.ByAIC) {
		if c.Skipped != "" {
			fits = append(fits, Fit{Family: c.Family, Err: c.Skipped, LogLik: math.NaN(), AIC: math.Inf(1), KS: math.NaN()})
			continue
		}
		fits = append(fits, Fit{Family: c.Family, Dist: c.Dist, LogLik: c.LogLikelihood, AIC: c.AIC, KS: c.KS})
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
	Fits      []Fit
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
