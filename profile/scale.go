package profile

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Scaled returns a copy of a whose task i runs factors[i] times longer:
// X'_i = factors[i]·X_i, memory M_i unchanged. It is the per-phase transfer
// of Section 4.5 (a model trained on one machine, each phase slowed by its
// own factor on another). Only Normal task laws (the paper's) are scaled,
// exactly: N(μ, σ) becomes N(f·μ, f·σ). It refuses a factor count other
// than the task count, a factor that is not finite and > 0, and any other
// law family. O(n) for n tasks.
func (a *App) Scaled(factors []float64) (*App, error) {
	if len(factors) != len(a.Tasks) {
		return nil, fmt.Errorf("%d slowdown factors for %d tasks", len(factors), len(a.Tasks))
	}
	out := &App{Name: a.Name, Tasks: make([]Task, len(a.Tasks))}
	for i, t := range a.Tasks {
		f := factors[i]
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("task %d: slowdown factor %v, want a finite value > 0", i+1, f)
		}
		n, ok := t.Walltime.(distribution.Normal)
		if !ok {
			return nil, fmt.Errorf("task %d: scaling supports Normal walltime laws, not %s", i+1, t.Walltime)
		}
		t.Walltime = distribution.Normal{Mu: f * n.Mu, Sigma: f * n.Sigma}
		out.Tasks[i] = t
	}
	return out, nil
}
