package memplan

import (
	"fmt"
	"math"
)

// RunMetrics are the metrics of Section 4.3.2 for one actual run executed
// with a memory-aware strategy.
type RunMetrics struct {
	// Time is the total reservation time Σ (R_k + T_k + C_k) over the
	// reservations used (killed ones included).
	Time float64 `json:"reservation_time"`
	// Utilisation is the walltime divided by Time.
	Utilisation float64 `json:"utilisation"`
	// WeightedMemory is Σ W_k·M_k / Σ W_k over the same reservations.
	WeightedMemory float64 `json:"weighted_memory"`
	// Reservations counts the reservations used, Kills those killed for
	// exceeding their memory request.
	Reservations int `json:"reservations"`
	Kills        int `json:"kills"`
}

// maxReservations bounds EvaluateRun's loop.
const maxReservations = 100000

// EvaluateRun executes plan on one actual run whose tasks last durations[i]
// seconds and peak at peaks[i] GB, and returns its metrics.
//
// Execution. Reservation k starts from the saved progress p (the last
// checkpoint) and runs for T_k (up to the start of task StopBeforeTask if
// set). If the job ends inside it, the run is over. Otherwise, if the
// reservation checkpoints, p moves to its end; if not, its work is lost.
// A run longer than the plan gets extension reservations (R, ExtendWork,
// ExtendCkpt) at ExtendMem with checkpoints until it ends.
//
// Memory kills. If a task active during the reservation peaks above its
// request M_k, the job is killed (out of memory) when that task starts: the
// work since p is lost, and the same reservation is submitted again with
// the memory of the plan's largest need (ExtendMem), or the run's own peak
// if that is larger. A killed reservation counts its full length W_k at M_k
// in every metric: it was granted, and the scheduler had set it aside.
// Every reservation likewise counts its full requested length, used or not
// (Section 4.3.2).
func EvaluateRun(plan *MemPlan, durations, peaks []float64) (RunMetrics, error) {
	if len(durations) == 0 || len(durations) != len(peaks) {
		return RunMetrics{}, fmt.Errorf("run needs as many peaks as durations (got %d and %d)", len(durations), len(peaks))
	}
	if len(plan.Reservations) == 0 {
		return RunMetrics{}, fmt.Errorf("empty plan")
	}
	cum := make([]float64, len(durations)+1)
	runPeak := 0.0
	for i, d := range durations {
		if math.IsNaN(d) || d < 0 || math.IsInf(d, 0) || math.IsNaN(peaks[i]) || peaks[i] < 0 {
			return RunMetrics{}, fmt.Errorf("task %d: duration %v or peak %v invalid", i+1, d, peaks[i])
		}
		cum[i+1] = cum[i] + d
		runPeak = math.Max(runPeak, peaks[i])
	}
	total := cum[len(durations)]
	var m RunMetrics
	var sumWM float64
	p := 0.0
	retryMem := math.Max(plan.ExtendMem, runPeak)
	retry := false
	for k := 0; ; {
		if m.Reservations >= maxReservations {
			return m, fmt.Errorf("run of %v s not finished after %d reservations", total, maxReservations)
		}
		var r MemReservation
		if k < len(plan.Reservations) {
			r = plan.Reservations[k]
		} else {
			r = MemReservation{Mem: plan.ExtendMem, StopBeforeTask: 0}
			r.Restart, r.Work, r.CheckpointTime, r.Checkpoint = plan.Restart, plan.ExtendWork, plan.ExtendCkpt, true
			r.Length = r.Restart + r.Work + r.CheckpointTime
		}
		if retry {
			r.Mem = retryMem
			retry = false
		}
		m.Reservations++
		m.Time += r.Length
		sumWM += r.Length * r.Mem
		end := p + r.Work
		if k < len(plan.Reservations) && math.Abs(end-r.Milestone) <= 1e-9*math.Max(1, r.Milestone) {
			end = r.Milestone // p + (t_k − t_{k−1}) may round below t_k
		}
		if h := r.StopBeforeTask; h > 0 && h <= len(durations) && p < cum[h-1] {
			end = math.Min(end, cum[h-1])
		}
		reach := math.Min(end, total)
		killed := false
		for i := range durations {
			if cum[i] < reach && cum[i+1] > p && peaks[i] > r.Mem {
				killed = true
				break
			}
		}
		if killed {
			m.Kills++
			retry = true
			continue // same reservation again, work since p lost
		}
		if total <= end {
			break
		}
		if r.Checkpoint {
			p = end
		}
		k++
	}
	m.Utilisation = total / m.Time
	m.WeightedMemory = sumWM / m.Time
	return m, nil
}

// ExpectedMetrics is the expectation of EvaluateRun's reservation time and
// weighted memory when the walltime follows the discrete law (values,
// probs) and memory never exceeds the requests: it prices any plan (NEURO's
// included, whose extensions Theorem 1 does not see) under a model.
// O(len(values)·|plan|).
func ExpectedMetrics(plan *MemPlan, values, probs []float64) (time, wmem float64, err error) {
	if len(values) == 0 || len(values) != len(probs) {
		return 0, 0, fmt.Errorf("law needs as many probabilities as values (got %d and %d)", len(values), len(probs))
	}
	zero := []float64{0}
	for i, v := range values {
		if probs[i] == 0 {
			continue
		}
		m, err := EvaluateRun(plan, []float64{v}, zero)
		if err != nil {
			return 0, 0, err
		}
		time += probs[i] * m.Time
		wmem += probs[i] * m.WeightedMemory
	}
	return time, wmem, nil
}
