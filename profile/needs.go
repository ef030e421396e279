package profile

import (
	"context"
	"fmt"
	"math"
)

// Needs returns, for every work value t in values, the checkpoint cost
// C(M(t)) of Section 4.2 (MEM-ALL-CKPT checkpoints the memory the job
// likely holds at t) and the memory M(t) a reservation running through t
// must request. These are the per-point inputs of memplan.MemLaw; mem0
// is the memory needed just after the start.
//
// Memory requests use the conditional form of Eq. (2),
//
//	M^c_τ(t) = max{M_i | P(S_{i−1} < t ≤ S_i | S_n ≥ t) > τ},
//
// because a reservation is only used by a job that is still running: with
// the unconditional M_τ(t) every task's probability falls below τ in the
// upper tail and late reservations would ask for 0 GB (a certain kill).
// Checkpoint costs use the conditional form too (a checkpoint at t is only
// taken by a running job) unless paperCkpt is set, which keeps the
// unconditional M_τ(t) of the paper (Section 4.2), under which a late
// checkpoint costs the latency alone. O(len(values)·n·N) for n tasks on a
// grid of N steps; it stops with ctx's error when ctx ends.
func (tl *Timeline) Needs(ctx context.Context, values []float64, ckptTau, memTau float64, paperCkpt bool, c CheckpointCost) (ckpt, mem []float64, mem0 float64, err error) {
	if err := c.Validate(); err != nil {
		return nil, nil, 0, err
	}
	for _, tau := range []float64{ckptTau, memTau} {
		if !(tau >= 0 && tau < 1) {
			return nil, nil, 0, fmt.Errorf("τ = %v, want a probability in [0, 1)", tau)
		}
	}
	ckpt = make([]float64, len(values))
	mem = make([]float64, len(values))
	run := make([]float64, len(tl.app.Tasks))
	at := func(t float64) (mc, mm float64) {
		alive := 0.0
		for i := range tl.app.Tasks {
			run[i] = tl.Running(i+1, t)
			alive += run[i]
		}
		if alive <= 0 {
			alive = 1 // beyond the grid: nothing runs
		}
		for i, task := range tl.app.Tasks {
			pc := run[i] / alive
			if paperCkpt {
				pc = run[i]
			}
			if pc > ckptTau {
				mc = math.Max(mc, task.Mem)
			}
			if run[i]/alive > memTau {
				mm = math.Max(mm, task.Mem)
			}
		}
		return mc, mm
	}
	for k, v := range values {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		mc, mm := at(v)
		ckpt[k] = c.Cost(mc)
		mem[k] = mm
	}
	_, mem0 = at(math.Min(tl.h, values[0]/2+1e-9))
	return ckpt, mem, mem0, nil
}

// HungryTask is the 1-based index of the task of largest peak memory (the
// first of them on ties).
func (a *App) HungryTask() int {
	best := 0
	for i, t := range a.Tasks {
		if t.Mem > a.Tasks[best].Mem {
			best = i
		}
	}
	return best + 1
}

// SafeBefore is the ε-quantile of the start S_{h−1} of task h (1-based):
// a reservation of that much work reaches task h with probability ε only.
// MEM-ALL-CKPT-V2 ends its first reservation there (Section 4.3.3; the
// paper's 25 minutes for SLANT is ε ≈ 0.027 under Table 2). Bisection on
// Finished to 10⁻³ s.
func (tl *Timeline) SafeBefore(h int, eps float64) (float64, error) {
	if h < 2 || h > len(tl.app.Tasks) {
		return 0, fmt.Errorf("task %d has no predecessor in a chain of %d tasks", h, len(tl.app.Tasks))
	}
	if !(eps > 0 && eps < 1) {
		return 0, fmt.Errorf("ε = %v, want a probability in (0, 1)", eps)
	}
	lo, hi := 0.0, tl.h*float64(len(tl.pmf[0])-1)
	for hi-lo > 1e-3 {
		mid := (lo + hi) / 2
		if tl.Finished(h-1, mid) < eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
