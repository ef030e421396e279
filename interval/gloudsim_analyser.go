package interval

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/trace"
)

// The accounting of GloudSim's numeric analyser, the program behind the
// paper's Table 6 and Fig. 9 (Analyzer, Logger.compStatResult and
// OptCPAnalyzer of nThanksForAllTheFish/gloudsim), followed in every
// detail so that its published result logs are reproduced to their last
// digit. Everything is single-precision (the analyser's Java floats), in
// its order of operations:
//
//   - every task has checkpoint cost C = 2 s (Analyzer.cpCost) and no
//     restart cost;
//   - Young's period is √(C·MTBF/θ) and Formula (3) takes x* = √(θ·Te·F/C)
//     checkpoints, θ = ½ being the paper's formulas (θ = 1 is the
//     analyser's other run); x* is not rounded: the period is Te/x*, and no
//     checkpoint at all when x* < 1 (then WPR = 1 whatever the failures);
//   - with precise prediction (Table 6) a task's MTBF is the mean of its own
//     failure intervals (btMeanLength) and F its number of failures; with
//     per-priority estimates (Fig. 9) the MTBF is the group's pjcMeanLength
//     and F the group's failures per task in integer division (GloudSim
//     divides two ints: 0.58 failures per task becomes 0, so Formula (3)
//     takes no checkpoint for that priority);
//   - the trace's segments are replayed on its own time line: a failed
//     segment of length d keeps the whole periods that fit in it (a
//     segment ending exactly on a checkpoint keeps one fewer) and loses the
//     rest; the last segment keeps all of its length; the work W is the sum
//     kept (capped at Te), and Tw = W + ⌊W/period⌋·C + the time lost;
//   - a task's WPR is W/Tw; a job's WPR is the mean of its tasks' WPRs (not
//     Σ W / Σ Tw); a trace's average is the mean over its jobs; its lowest
//     WPR is the minimum over all tasks (not jobs), starting from 1.

// GloudSimAnalyserTask is one task (a GloudSim "batch task") as the analyser
// reads it, in single precision.
type GloudSimAnalyserTask struct {
	Job      int64
	Priority int
	// Segments are the recorded durations of the uninterrupted runs; all but
	// the last ended in a failure.
	Segments []float32
	// Te is totalTaskLength, the sum of the segments as GloudSim stored it.
	Te float32
	// MTBF is btMeanLength, the mean of the task's failure intervals (NaN
	// when it never failed).
	MTBF float32
}

// GloudSimAnalyserJob is one job with its tasks, in file order.
type GloudSimAnalyserJob struct {
	ID       int64
	Priority int
	Tasks    []GloudSimAnalyserTask
}

// GloudSimAnalyserGroup is a priority group (GloudSim's PJobContainer).
type GloudSimAnalyserGroup struct {
	Priority int
	// MTBF is pjcMeanLength; MNOF is the group's failures per task in
	// integer division, as GloudSim computes it.
	MTBF float32
	MNOF float32
	Jobs []GloudSimAnalyserJob
}

// GloudSimAnalyserTrace reads a GloudSim trace into the analyser's groups,
// in file order. O(segments).
func GloudSimAnalyserTrace(tr trace.GloudSimTrace) []GloudSimAnalyserGroup {
	var out []GloudSimAnalyserGroup
	idx := map[int]int{}
	fails, tasks := map[int]int{}, map[int]int{}
	for _, j := range tr.Jobs {
		k, ok := idx[j.Priority]
		if !ok || out[k].Priority != j.Priority || k != len(out)-1 {
			k = len(out)
			idx[j.Priority] = k
			out = append(out, GloudSimAnalyserGroup{Priority: j.Priority, MTBF: float32(tr.PriorityMeanLength[j.Priority])})
		}
		job := GloudSimAnalyserJob{ID: j.ID, Priority: j.Priority}
		for _, t := range j.Tasks {
			segs := make([]float32, len(t.Segments))
			for i, s := range t.Segments {
				segs[i] = float32(s.Duration)
			}
			job.Tasks = append(job.Tasks, GloudSimAnalyserTask{Job: j.ID, Priority: j.Priority, Segments: segs, Te: float32(t.TotalLength), MTBF: float32(t.MeanLength)})
			fails[k] += len(segs) - 1
			tasks[k]++
		}
		out[k].Jobs = append(out[k].Jobs, job)
	}
	for k := range out {
		if tasks[k] > 0 {
			out[k].MNOF = float32(fails[k] / tasks[k]) // GloudSim's int/int
		}
	}
	return out
}

// javaInt is Java's (int) cast of a float: truncation towards zero, NaN to
// 0, saturation at the int range.
func javaInt(f float32) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// GloudSimAnalyserPeriod is the analyser's checkpoint interval for a task:
// Young's √(C·MTBF/θ) when young, else Te/x* with x* = √(θ·Te·F/C), 0 (no
// checkpoint) when x* < 1.
func GloudSimAnalyserPeriod(young bool, c, theta, te, mtbf, failures float32) float32 {
	if young {
		return float32(math.Sqrt(float64(c * mtbf * 1 / theta)))
	}
	x := float32(math.Sqrt(float64(theta * te * failures / c)))
	if javaInt(x) == 0 {
		return 0
	}
	return te / x
}

// maxAnalyserSteps bounds the periods counted in one segment (the analyser
// adds them one by one).
const maxAnalyserSteps = 1 << 26

// GloudSimAnalyserReplay is the analyser's replay of one task's segments
// under checkpoint interval ch (Analyzer.compProcessedWorkload): it returns
// the work W and the wall-clock time Tw, in single precision. ch = 0 means
// no checkpoint (W = Tw = Te). O(segments + Σ d/ch).
func GloudSimAnalyserReplay(c, te, ch float32, segs []float32) (work, wall float32, err error) {
	if ch == 0 {
		return te, te, nil
	}
	// Failure positions on the trace's time line, and the segment lengths
	// as their differences (the analyser's rounding).
	pos := make([]float32, len(segs))
	var last float32
	for i, d := range segs {
		pos[i] = last + d
		last = pos[i]
	}
	var sum, seg, lost float32
	for i := range pos {
		d := pos[i]
		if i > 0 {
			d = pos[i] - pos[i-1]
		}
		final := i == len(pos)-1
		for steps := 0; seg < d; steps++ {
			if final {
				seg += d
				break
			}
			if steps == maxAnalyserSteps {
				return 0, 0, fmt.Errorf("checkpoint interval %v too small for a %v s segment", ch, d)
			}
			seg += ch
		}
		if final {
			sum += seg
			break
		}
		seg -= ch
		lost += d - seg
		sum += seg
		seg = 0
		if sum >= te {
			break
		}
	}
	if sum < te {
		te = sum
	}
	ckpt := float32(javaInt(te/ch)) * c
	return te, te + ckpt + lost, nil
}

// GloudSimAnalyserResult is the analyser's summary of a trace (its log's
// "tr" line) with its per-job WPRs.
type GloudSimAnalyserResult struct {
	// MeanWPR is the mean over jobs of the job WPR (the mean of its tasks');
	// MinWPR is the lowest task WPR (at most 1).
	MeanWPR, MinWPR float32
	Jobs            []int64
	Priorities      []int // per job, as in the file (0–11)
	JobWPR          []float32
	JobMinWPR       []float32
}

// GloudSimAnalyse runs the analyser on a trace's groups: Young or Formula
// (3) (young), θ (½ for the paper's formulas), with each task's own MTBF
// and failure count (precise) or its group's (per-priority estimates), and
// checkpoint cost c (the analyser's 2 s). O(segments + Σ d/period).
func GloudSimAnalyse(groups []GloudSimAnalyserGroup, young, precise bool, theta, c float32) (GloudSimAnalyserResult, error) {
	res := GloudSimAnalyserResult{MinWPR: 1}
	var total float32
	n := 0
	for _, g := range groups {
		var gsum float32
		for _, j := range g.Jobs {
			var jsum float32
			jmin := float32(1)
			for _, t := range j.Tasks {
				mtbf, f := g.MTBF, g.MNOF
				if precise {
					mtbf, f = t.MTBF, float32(len(t.Segments)-1)
				}
				w, tw, err := GloudSimAnalyserReplay(c, t.Te, GloudSimAnalyserPeriod(young, c, theta, t.Te, mtbf, f), t.Segments)
				if err != nil {
					return res, fmt.Errorf("job %d: %v", j.ID, err)
				}
				r := w / tw
				if r < jmin {
					jmin = r
				}
				jsum += r
			}
			jw := jsum / float32(len(j.Tasks))
			gsum += jw
			res.Jobs, res.Priorities = append(res.Jobs, j.ID), append(res.Priorities, j.Priority)
			res.JobWPR, res.JobMinWPR = append(res.JobWPR, jw), append(res.JobMinWPR, jmin)
			if jmin < res.MinWPR {
				res.MinWPR = jmin
			}
		}
		total += gsum
		n += len(g.Jobs)
	}
	res.MeanWPR = total / float32(n)
	return res, nil
}
