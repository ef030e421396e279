package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
)

// ScheduleMetrics are ckpt's measures of a schedule computed elsewhere
// (Batsim's PREFIX_jobs.csv of an exported instance).
type ScheduleMetrics struct {
	Jobs      int     `json:"jobs"`      // jobs of the instance
	Started   int     `json:"started"`   // jobs that started before the horizon
	Completed int     `json:"completed"` // jobs that completed successfully
	Goodput   float64 `json:"goodput"`   // Eq. (1): Σ p_j·work_j / ∫P(t)dt
	MinYield  float64 `json:"min_yield"` // Eq. (3) over the jobs released before the horizon
	// Violations counts jobs that ran, at some time, on a resource that
	// P(t) made unavailable, or started before their release; their work
	// is not counted.
	Violations int       `json:"violations"`
	Yields     []float64 `json:"yields"`
}

// BatsimScheduleMetrics measures the Batsim schedule res of the instance in
// exported by ExportBatsim. Job ids are the instance's job indices (a
// "workload!" prefix is dropped). A job's useful work is its run time
// within the horizon minus R_j (the first load), capped at L_j for a
// finite job, when it completed successfully or was still running at the
// horizon; a job killed earlier had no checkpoint in Batsim and loses its
// work. Goodput and yields then follow Eqs. (1)–(3), with
// Avail_j = ∫_{r_j}^{T_{n+1}} 1{P(u) ≥ p_j} du. Jobs absent from res did
// not run. Time O(m·n) for m jobs and n sections.
func BatsimScheduleMetrics(in *Instance, res []trace.BatsimJobResult) (ScheduleMetrics, error) {
	if err := in.Validate(); err != nil {
		return ScheduleMetrics{}, err
	}
	h := Horizon(in)
	m := ScheduleMetrics{Jobs: len(in.Jobs)}
	work := make([]float64, len(in.Jobs))
	seen := make([]bool, len(in.Jobs))
	for _, r := range res {
		id := r.JobID[strings.LastIndexByte(r.JobID, '!')+1:]
		j, err := strconv.Atoi(id)
		if err != nil || j < 0 || j >= len(in.Jobs) {
			return m, fmt.Errorf("job %q is not a job of the instance (ids 0..%d)", r.JobID, len(in.Jobs)-1)
		}
		if seen[j] {
			return m, fmt.Errorf("job %q appears twice", r.JobID)
		}
		seen[j] = true
		jb := in.Jobs[j]
		if r.Res != jb.P {
			return m, fmt.Errorf("job %q requests %d resources, the instance's job has p = %d", r.JobID, r.Res, jb.P)
		}
		if math.IsNaN(r.Start) || r.Start >= h {
			continue
		}
		m.Started++
		if r.Success {
			m.Completed++
		}
		end := math.Min(r.Finish, h)
		if r.Start < jb.Release || !availableDuring(in, r.Allocated, r.Start, end) {
			m.Violations++
			continue
		}
		if r.Success || r.Finish >= h {
			w := math.Max(end-r.Start-jb.R, 0)
			if jb.Length > 0 {
				w = math.Min(w, jb.Length)
			}
			work[j] = w
		}
	}
	area, sum := 0.0, 0.0
	for _, s := range in.Sections {
		area += float64(s.P) * s.Length
	}
	m.MinYield = math.Inf(1)
	for j, jb := range in.Jobs {
		sum += float64(jb.P) * work[j]
		if jb.Release >= h {
			continue
		}
		y := 0.0
		if a := availTime(in, jb, h); a > 0 {
			y = work[j] / a
		}
		m.Yields = append(m.Yields, y)
		m.MinYield = math.Min(m.MinYield, y)
	}
	if len(m.Yields) == 0 {
		m.MinYield = 0
	}
	m.Goodput = sum / area
	return m, nil
}

// availableDuring reports whether every resource of set is below P(t) for
// all t in [s, e).
func availableDuring(in *Instance, set trace.IntervalSet, s, e float64) bool {
	top := -1
	for _, iv := range set {
		top = max(top, iv.Hi)
	}
	t := 0.0
	for _, sec := range in.Sections {
		if t < e && t+sec.Length > s && top >= sec.P {
			return false
		}
		t += sec.Length
	}
	return true
}

// availTime is ∫_{r_j}^{h} 1{P(u) ≥ p_j} du (Eq. 2's denominator).
func availTime(in *Instance, jb Job, h float64) float64 {
	t, a := 0.0, 0.0
	for _, sec := range in.Sections {
		lo, hi := math.Max(t, jb.Release), math.Min(t+sec.Length, h)
		if sec.P >= jb.P && hi > lo {
			a += hi - lo
		}
		t += sec.Length
	}
	return a
}
