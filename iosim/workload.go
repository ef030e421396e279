package iosim

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/des"
)

// Job is one job of the initial list (Section V).
type Job struct {
	ID    int
	Class int     // index into Config.Classes
	Work  float64 // compute seconds, uniform in [0.8w, 1.2w]
}

// WorkloadSlack is how much more node-time than N × span the job list
// holds, so that no strategy runs out of jobs before the span ends.
const WorkloadSlack = 1.1

// maxJobs bounds the job list (a config whose jobs are tiny against the
// span would otherwise draw without end).
const maxJobs = 1 << 20

// GenerateJobs draws the job list of Section V from the seed's workload
// stream: classes are drawn with probability ∝ share/(q·w) so that each
// class's expected node-time share is its Share; drawing stops once the
// jobs' node-time is at least WorkloadSlack × N × span and every class's
// node-time share is within 1 % (absolute) of its target. If the shares
// are off when the volume is reached, the most under-represented class is
// added until they are within 1 %; the list is then shuffled.
//
// O(J·K) for J jobs and K classes.
func GenerateJobs(c *Config, span float64, seed uint64) ([]Job, error) {
	return generateJobsSpread(c, span, seed, 0.8, 0.4, false)
}

// generateJobsSpread is GenerateJobs with work uniform in
// [lo·w, (lo+width)·w], minus the input and output times at the full
// bandwidth when minusIO (AuthorsModel.NarrowWork).
func generateJobsSpread(c *Config, span float64, seed uint64, lo, width float64, minusIO bool) ([]Job, error) {
	r := des.Stream(seed, streamWorkload)
	K := len(c.Classes)
	weights := make([]float64, K)
	tot := 0.0
	for k, cl := range c.Classes {
		weights[k] = cl.Share / (float64(cl.Nodes) * float64(cl.Walltime))
		tot += weights[k]
	}
	used := make([]float64, K)
	sum := 0.0
	need := WorkloadSlack * float64(c.Platform.Nodes) * span
	var jobs []Job
	add := func(k int) {
		w := float64(c.Classes[k].Walltime) * (lo + width*r.Float64())
		if minusIO {
			w -= (c.Classes[k].Input + c.Classes[k].Output) * c.JobMemory(k) / float64(c.Platform.Bandwidth)
		}
		jobs = append(jobs, Job{ID: len(jobs), Class: k, Work: w})
		v := w * float64(c.Classes[k].Nodes)
		used[k] += v
		sum += v
	}
	worst := func() (int, float64) {
		wk, wd := 0, math.Inf(-1)
		for k := range K {
			if d := c.Classes[k].Share - used[k]/sum; d > wd {
				wk, wd = k, d
			}
		}
		return wk, wd
	}
	within := func() bool {
		for k := range K {
			if math.Abs(used[k]/sum-c.Classes[k].Share) > 0.01 {
				return false
			}
		}
		return true
	}
	if minusIO {
		for k, cl := range c.Classes {
			if io := (cl.Input + cl.Output) * c.JobMemory(k) / float64(c.Platform.Bandwidth); io >= lo*float64(cl.Walltime) {
				return nil, fmt.Errorf("workload: class %s's input and output (%gs) leave it no work", cl.Name, io)
			}
		}
	}
	for sum < need {
		if len(jobs) >= maxJobs {
			return nil, fmt.Errorf("workload: more than %d jobs needed to fill the span; walltimes too short", maxJobs)
		}
		u := r.Float64() * tot
		k := 0
		for k < K-1 && u >= weights[k] {
			u -= weights[k]
			k++
		}
		add(k)
	}
	for !within() {
		if len(jobs) >= maxJobs {
			return nil, fmt.Errorf("workload: class shares cannot be met within 1%%")
		}
		k, _ := worst()
		add(k)
	}
	r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for i := range jobs {
		jobs[i].ID = i
	}
	return jobs, nil
}

// Stream kinds for des.Stream(seed, kind, ...).
const (
	streamFailures = 1
	streamWorkload = 2
)
