package interval

import (
	"fmt"
	"math"
)

// TraceTask is a real task to replay: its work and the uninterrupted
// running times after which it failed.
type TraceTask struct {
	Job      int64
	Index    int
	Priority int // as in the trace (Google: 0–11; the paper prints Priority+1)
	// Te is the work of the task. From a GloudSim trace it is the task's
	// totalTaskLength, the sum of its execution segments (GloudSim's
	// workload of the task).
	Te float64
	// Failures are the uninterrupted running times, from a (re)start to
	// the next failure, in order: the durations of the segments that ended
	// in a failure. Their number is the task's number of failures and
	// their mean its own MTBF.
	Failures []float64
	// LastRun is the duration of the final, successful segment of the
	// trace (used by the GloudSim accounting only).
	LastRun float64
}

// ReplayResult is the outcome of one task's replay.
type ReplayResult struct {
	// Wallclock is Tw: work, checkpoints taken, time lost to failures and
	// restarts.
	Wallclock float64
	// Failures is the number of failures that struck before the task
	// completed (the trace's later failures never happen).
	Failures int
	// Checkpoints is the number of checkpoints taken.
	Checkpoints int
	// Lost is the running time lost to failures: work since the last
	// checkpoint plus any checkpoint in progress.
	Lost float64
}

// Replay runs a task of work te, checkpointing every `period` of work at
// cost c (IntervalsForPeriod(te, period)−1 checkpoints at period, 2·period,
// …; none at the end), through the trace's failures: the k-th failure
// strikes after failures[k] seconds of running since the task's (re)start,
// checkpoint time included, unless the task completes first. After each
// failure the task restarts from its last completed checkpoint at cost r
// (the restart itself is not exposed to failures; the trace's clocks start
// after it). A failure during a checkpoint loses that checkpoint. Then
//
//	Tw = Te + C·(#checkpoints) + Σ_{failures} (lost_h + R),
//
// Eq. (1) of the paper with the lost time T_h − Λ(T_h) measured on the
// running clock. A period ≥ te (or +Inf) means no checkpoint.
//
// Each uninterrupted run is resolved in closed form (how many blocks of
// period+c fit), so the cost is O(len(failures)) whatever the number of
// checkpoints.
func Replay(te, period, c, r float64, failures []float64) (ReplayResult, error) {
	i := 0
	return replay(te, period, c, r, func() (float64, bool) {
		if i == len(failures) {
			return 0, false
		}
		i++
		return failures[i-1], true
	})
}

// replay is Replay with the running times drawn from next, which returns
// false when no failure is left.
func replay(te, period, c, r float64, next func() (float64, bool)) (ReplayResult, error) {
	p, err := newReplayer(te, period, c, r)
	if err != nil {
		return ReplayResult{}, err
	}
	for i := 0; ; i++ {
		d, ok := next()
		if !ok {
			break
		}
		if !(d >= 0) || math.IsInf(d, 0) {
			return ReplayResult{}, badRunningTime(i, d)
		}
		if _, done := p.feed([]float64{d}); done {
			break // completes before this failure
		}
	}
	return p.result(), nil
}

// replayer is the state of one replay: the checkpoints of the task and
// the outcome so far. Replay and Runs feed it the running times one by one,
// so that both do the same arithmetic in the same order.
type replayer struct {
	n, done     int     // checkpoints planned, completed
	last, block float64 // work after the last checkpoint; period + c
	r           float64 // restart cost
	res         ReplayResult
}

// newReplayer checks the arguments of Replay and plans the checkpoints.
func newReplayer(te, period, c, r float64) (replayer, error) {
	if !(te > 0) || math.IsInf(te, 0) {
		return replayer{}, fmt.Errorf("work must be finite and > 0, got %v", te)
	}
	if !(period > 0) {
		return replayer{}, fmt.Errorf("period must be > 0, got %v", period)
	}
	if !(c > 0) || math.IsInf(c, 0) || !(r >= 0) || math.IsInf(r, 0) {
		return replayer{}, fmt.Errorf("need C > 0 and R >= 0, got C=%v R=%v", c, r)
	}
	n := IntervalsForPeriod(te, math.Min(period, te)) - 1 // checkpoints
	if n == 0 {
		period = te
	}
	return replayer{n: n, last: te - float64(n)*period, block: period + c, r: r}, nil
}

// feed lets the failures that strike after the running times ds (finite
// and ≥ 0) hit the task, in order, until it completes before one of them.
// It returns how many struck and whether the task completed. This loop is
// the what-if Monte Carlo's hot path: its state stays in registers, and the
// checkpoints still to take, n − done, are held as a float64 — an integer
// below 2⁵³, so every operation on it is exact and the results are bit for
// bit those of the integer count converted at each use.
func (p *replayer) feed(ds []float64) (struck int, completed bool) {
	rem := float64(p.n - p.done)
	block, last, r := p.block, p.last, p.r
	wall, lost := p.res.Wallclock, p.res.Lost
	for _, d := range ds {
		if d >= rem*block+last {
			completed = true
			break
		}
		k := rem
		if q := math.Floor(d / block); q < k {
			k = q
		}
		rem -= k
		lost += d - k*block
		wall += d + r
		struck++
	}
	p.done = p.n - int(rem)
	p.res.Wallclock, p.res.Lost = wall, lost
	p.res.Failures += struck
	return struck, completed
}

// result completes the run after its last failure.
func (p *replayer) result() ReplayResult {
	res := p.res
	res.Wallclock += float64(p.n-p.done)*p.block + p.last
	res.Checkpoints = p.n
	return res
}

// badRunningTime is the error of failure i's invalid running time d.
func badRunningTime(i int, d float64) error {
	return fmt.Errorf("failure %d: running time must be finite and >= 0, got %v", i+1, d)
}
