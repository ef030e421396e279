package interval

import "math"

// ReplayGloudSim is the accounting of GloudSim's numeric analyser
// (Analyzer.compProcessedWorkload in nThanksForAllTheFish/gloudsim), which
// the paper's Table 6 and Fig. 9 over "all of 300k Google jobs" appear to
// come from; it is kept as the paper-exact switch beside Replay.
//
// The trace's time line is kept as it is: the task runs its segments (all
// but the last ending in a failure) and checkpoints every `period` of work
// without the checkpoints taking any of the segment's time. A failed segment
// of duration d saves (⌈d/period⌉ − 1)·period of work and loses the rest;
// the last segment saves all of its duration. Then
//
//	W  = Σ saved,
//	Tw = Σ durations + ⌊W/period⌋·C   (no restart cost),
//
// and WPR = W/Tw. A period of 0 (GloudSim: no checkpoint position, which
// happens for Formula (3) when x* < 1) returns W = Tw = Σ durations, i.e. a
// WPR of 1 even if the task failed: a quirk that favours Formula (3) on
// tasks with few expected failures. segments are all the durations, the
// last one the successful run. O(len(segments)).
func ReplayGloudSim(period, c float64, segments []float64) (work, wallclock float64) {
	total := 0.0
	for _, d := range segments {
		total += d
	}
	if period == 0 || len(segments) == 0 {
		return total, total
	}
	for i, d := range segments {
		if i == len(segments)-1 {
			work += d
			break
		}
		k := math.Ceil(d / period)
		if k < 1 {
			k = 1 // GloudSim adds one period before comparing
		}
		work += (k - 1) * period
	}
	return work, total + math.Floor(work/period)*c
}

// GloudSimPeriod is the period GloudSim's analyser uses for a task of work
// te: Young's √(2·C·MTBF), or, for Formula (3), te/x* with the real
// x* = √(te·E(Y)/(2C)) of Eq. (3), not rounded, and 0 (no checkpoint) when
// x* < 1.
func GloudSimPeriod(formula3 bool, te, c, mnof, mtbf float64) float64 {
	if formula3 {
		x := OptimalIntervals(te, c, mnof)
		if !(x >= 1) {
			return 0
		}
		return te / x
	}
	p := Young(c, mtbf)
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0
	}
	return p
}
