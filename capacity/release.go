package capacity

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/ckpt-hpc/ckpt/trace"
)

// JobSpec is a job of a log: its width and its length in simulation time
// units.
type JobSpec struct {
	P int
	L float64
}

// Specs returns the (width, run time / unit) pairs of an SWF log, skipping
// jobs of unknown width or run time. The paper's time unit is 20 s
// (Appendix E.5.1: avgT = 100 units ≈ 33 min).
func Specs(jobs []trace.SWFJob, unit float64) []JobSpec {
	var out []JobSpec
	for _, j := range jobs {
		p := j.AllocatedProcs
		if p <= 0 {
			p = j.RequestedProcs
		}
		if p > 0 && j.RunTime > 0 {
			out = append(out, JobSpec{int(p), j.RunTime / unit})
		}
	}
	return out
}

// ReleaseMethod generates release dates for a target load (Appendix E.5.2).
type ReleaseMethod string

const (
	Accumulation ReleaseMethod = "accumulation"
	FIFO         ReleaseMethod = "fifo"     // the paper's choice
	Smallest     ReleaseMethod = "smallest" // FIFO ordered by remaining work
)

// GenerateFinite draws an instance of finite jobs (Sections 5 and 6.3): the
// sections as Generate; jobs drawn from specs (p ≤ P_min) and released so
// that the load stays near the target (Appendix E.5.2): in each section the
// useful-work budget MW_i (Section 3.4, with C_min = R_min = CLo) is given
// to the alive jobs — in release order (FIFO), by remaining work (Smallest)
// or in aggregate (Accumulation) — new jobs are released while the budget
// is not exhausted, then while the alive jobs require fewer than Load·P_i
// processors; a job generated for section i is released uniformly in
// section i − 1 (at 0 for the first). C_j = max(5, min(x, L_j/10)) with x ~
// U[CLo, CHi], R_j = C_j (Section 6.3; 5 is CLo).
func GenerateFinite(r *rand.Rand, pr Params, specs []JobSpec, method ReleaseMethod) (*Instance, error) {
	in, err := Generate(r, pr, []int{1})
	if err != nil {
		return nil, err
	}
	in.Jobs = nil
	var pool []JobSpec
	for _, s := range specs {
		if s.P >= 1 && s.P <= in.PMin && s.L > 0 {
			pool = append(pool, s)
		}
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("no job of the log fits in p_min = %d processors", in.PMin)
	}
	switch method {
	case Accumulation, FIFO, Smallest:
	default:
		return nil, fmt.Errorf("unknown release method %q (want accumulation, fifo or smallest)", method)
	}
	type virt struct {
		p   int
		rem float64
		seq int
	}
	var alive []virt
	start, prevStart, prevP := 0.0, 0.0, 0
	omega := 0.0
	newJob := func(i int) virt {
		s := pool[r.IntN(len(pool))]
		x := pr.CLo + (pr.CHi-pr.CLo)*r.Float64()
		c := max(pr.CLo, min(x, s.L/10))
		rel := 0.0
		if i > 0 {
			rel = prevStart + (start-prevStart)*r.Float64()
		}
		in.Jobs = append(in.Jobs, Job{P: s.P, C: c, R: c, Release: rel, Length: s.L})
		return virt{s.P, s.L, len(in.Jobs) - 1}
	}
	for i, sec := range in.Sections {
		T := sec.Length
		budget := MW(in.Platform, sec.P, prevP, T, pr.CLo, pr.CLo)
		switch method {
		case Accumulation:
			// ω_i starts at ω_{i−1} − MW_{i−1}; new jobs add the work
			// they could do in this section until ω_i ≥ MW_i. For the
			// load check every alive job is assumed to run the whole
			// section.
			for omega < budget {
				v := newJob(i)
				omega += float64(v.p) * min(v.rem, T)
				alive = append(alive, v)
			}
			for k := range alive {
				alive[k].rem -= T
			}
			omega -= budget
		default:
			if method == Smallest {
				sort.SliceStable(alive, func(a, b int) bool { return alive[a].rem < alive[b].rem })
			}
			give := func(v *virt) {
				w := min(float64(v.p)*min(v.rem, T), budget)
				v.rem -= w / float64(v.p)
				budget -= w
			}
			for k := range alive {
				give(&alive[k])
			}
			for budget > 1e-9 {
				v := newJob(i)
				give(&v)
				alive = append(alive, v)
			}
		}
		kept := alive[:0]
		need := 0
		for _, v := range alive {
			if v.rem > 1e-9 {
				kept = append(kept, v)
				need += v.p
			}
		}
		alive = kept
		for float64(need) < pr.Load*float64(sec.P) {
			v := newJob(i)
			alive = append(alive, v)
			need += v.p
		}
		if method != Smallest {
			sort.SliceStable(alive, func(a, b int) bool { return alive[a].seq < alive[b].seq })
		}
		prevStart, start, prevP = start, start+T, sec.P
	}
	return in, nil
}
