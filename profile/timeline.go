package profile

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// DefaultSteps is the default number of grid steps of a Timeline.
const DefaultSteps = 2048

// timelineTail is the upper tail mass ignored per task when sizing the grid.
const timelineTail = 1e-9

// Timeline answers the time-dependent questions of Sections 2.3 and 3.2:
// which task runs at time t (Figs. 9 and 11) and the likely maximum memory
// M_τ(t) of Eq. (2).
//
// Method. The grid is t_m = m·h, m = 0 … N, with h = (Σ_i Q_i(1 − 10⁻⁹))/N.
// Each task law is rounded to the nearest grid point (mass below h/2,
// including any negative mass of a Normal, goes to 0) and the partial sums
// S_i = X_1 + … + X_i are obtained by discrete convolution (mass beyond t_N,
// at most n·10⁻⁹, is dropped). Queries then condition on the rounded
// S_{i−1} and use task i's exact law for the last step:
//
//	P(S_{i−1} < t ≤ S_i) = Σ_{t_m < t} P(S_{i−1} = t_m)·P(X_i ≥ t − t_m),
//
// where the cell of t_m holding t counts only for its part below t (its
// mass spread uniformly over the cell), so that the rounding of S_{i−1} by
// up to (i−1)h/2 does not move mass across t to first order.
type Timeline struct {
	app *App
	h   float64
	// pmf[i][m] = P(S_i = t_m) for the rounded laws, i = 0 … n.
	pmf [][]float64
}

// NewTimeline builds the timeline of a on a grid of steps points (0 means
// DefaultSteps). O(n·N·K) for n tasks on N steps, a task law spanning K
// steps; it stops with ctx's error when ctx ends.
func NewTimeline(ctx context.Context, a *App, steps int) (*Timeline, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if steps == 0 {
		steps = DefaultSteps
	}
	if steps < 2 {
		return nil, fmt.Errorf("timeline needs at least 2 grid steps, got %d", steps)
	}
	hi := 0.0
	for i, t := range a.Tasks {
		q := t.Walltime.Quantile(1 - timelineTail)
		if math.IsNaN(q) || math.IsInf(q, 0) {
			return nil, fmt.Errorf("task %d: law %v has no finite quantile 1-%g", i+1, t.Walltime, timelineTail)
		}
		hi += math.Max(q, 0)
	}
	if !(hi > 0) {
		return nil, fmt.Errorf("every task has zero walltime")
	}
	h := hi / float64(steps)
	tl := &Timeline{app: a, h: h, pmf: make([][]float64, len(a.Tasks)+1)}
	tl.pmf[0] = make([]float64, steps+1)
	tl.pmf[0][0] = 1
	for i, t := range a.Tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := roundLaw(t.Walltime, h, steps)
		prev, next := tl.pmf[i], make([]float64, steps+1)
		for m, p := range prev {
			if p == 0 {
				continue
			}
			for k, w := range q {
				if m+k > steps {
					break
				}
				next[m+k] += p * w
			}
		}
		tl.pmf[i+1] = next
	}
	return tl, nil
}

// roundLaw puts on grid point k the mass of ((k−½)h, (k+½)h], and on 0 the
// mass of (−∞, h/2].
func roundLaw(d distribution.Distribution, h float64, steps int) []float64 {
	q := make([]float64, steps+1)
	prev := d.CDF(h / 2)
	q[0] = prev
	last := 0
	for k := 1; k <= steps; k++ {
		c := d.CDF((float64(k) + 0.5) * h)
		q[k] = math.Max(c-prev, 0)
		prev = c
		if q[k] > 0 {
			last = k
		}
	}
	return q[:last+1]
}

// Finished is y_i(t) = P(Σ_{j≤i} X_j < t), the probability that task i
// (1-based) has finished by time t (Figs. 9 and 11). Finished(0, t) is 1
// for t > 0.
func (tl *Timeline) Finished(i int, t float64) float64 {
	if i == 0 {
		if t > 0 {
			return 1
		}
		return 0
	}
	d := tl.app.Tasks[i-1].Walltime
	return math.Min(tl.condition(i, t, d.CDF), 1)
}

// Running is P(S_{i−1} < t ≤ S_i): the probability that task i (1-based) is
// the one executing at time t.
func (tl *Timeline) Running(i int, t float64) float64 {
	d := tl.app.Tasks[i-1].Walltime
	return math.Min(tl.condition(i, t, d.Survival), 1)
}

// condition is Σ P(S_{i−1} ∈ cell m, S_{i−1} < t)·g(t − s_m): the rounded
// mass of cell m is spread uniformly over [t_m − h/2, t_m + h/2], so the
// cell that contains t counts for the fraction of it below t, evaluated at
// that part's midpoint s_m. This makes the rounding error second order in h.
func (tl *Timeline) condition(i int, t float64, g func(float64) float64) float64 {
	if i == 1 { // S_0 = 0 exactly
		if t > 0 {
			return g(t)
		}
		return 0
	}
	s := 0.0
	h := tl.h
	for m, p := range tl.pmf[i-1] {
		lo, hi, mid := (float64(m)-0.5)*h, (float64(m)+0.5)*h, float64(m)*h
		if m == 0 { // the mass of [0, h/2] (negative draws count as 0)
			lo, mid = 0, h/4
		}
		if lo >= t {
			break
		}
		if p == 0 {
			continue
		}
		if hi <= t {
			s += p * g(t-mid)
		} else {
			s += p * (t - lo) / (hi - lo) * g((t-lo)/2)
		}
	}
	return s
}

// LikelyMax is M_τ(t) of Eq. (2): the largest M_i among the tasks that run
// at time t with probability greater than τ; 0 when there is none (the job
// has almost surely finished).
func (tl *Timeline) LikelyMax(tau, t float64) float64 {
	m := 0.0
	for i, task := range tl.app.Tasks {
		if task.Mem > m && tl.Running(i+1, t) > tau {
			m = task.Mem
		}
	}
	return m
}

// TotalDiscrete is the law of S_n on the grid, as a distribution.Discrete.
func (tl *Timeline) TotalDiscrete() (*distribution.Discrete, error) {
	p := tl.pmf[len(tl.pmf)-1]
	var vs, ps []float64
	total := 0.0
	for m, w := range p {
		total += w
		if w > 0 || len(vs) > 0 {
			vs = append(vs, float64(m)*tl.h)
			ps = append(ps, w)
		}
	}
	for i := range ps {
		ps[i] /= total
	}
	return distribution.NewDiscrete(vs, ps)
}
