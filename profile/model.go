package profile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Task is one phase j_i of the chain: its walltime law f_i and its peak
// memory M_i.
type Task struct {
	// Name labels the task in reports (optional).
	Name string
	// Walltime is the law of X_i, in seconds.
	Walltime distribution.Distribution
	// Mem is the peak memory M_i in GB. Valid range [0, +∞).
	Mem float64
}

// App is the chain j_1 → j_2 → … → j_n of Eq. (1).
type App struct {
	Name  string
	Tasks []Task
}

// MaxTasks is the largest number of tasks (phases) of an App: the planner's
// Timeline costs O(n·N) per work value for n tasks on a grid of N steps,
// about 5 s for 1000 tasks; the papers' applications have 3 to 7.
const MaxTasks = 1000

// MaxMem is the largest peak memory of a task, in GB (one exabyte): larger
// values come from a unit error (bytes where GB are meant), and their
// checkpoint and restart costs overflow.
const MaxMem = 1e9

// ErrTooLarge is wrapped by the errors that refuse an App (or a profile
// file) beyond MaxTasks tasks or MaxFileBytes bytes.
var ErrTooLarge = errors.New("profile too large")

// Validate reports more than MaxTasks tasks (wrapping ErrTooLarge), and the
// first task without a law or with a memory outside [0, MaxMem].
func (a *App) Validate() error {
	if len(a.Tasks) == 0 {
		return fmt.Errorf("application %q has no task", a.Name)
	}
	if len(a.Tasks) > MaxTasks {
		return fmt.Errorf("%w: application %q has %d tasks, more than %d", ErrTooLarge, a.Name, len(a.Tasks), MaxTasks)
	}
	for i, t := range a.Tasks {
		if t.Walltime == nil {
			return fmt.Errorf("task %d has no walltime law", i+1)
		}
		if math.IsNaN(t.Mem) || math.IsInf(t.Mem, 0) || t.Mem < 0 {
			return fmt.Errorf("task %d: memory %v GB, want a finite value >= 0", i+1, t.Mem)
		}
		if t.Mem > MaxMem {
			return fmt.Errorf("task %d: memory %v GB exceeds the limit of %.0e GB; check the units of mem (GB)", i+1, t.Mem, float64(MaxMem))
		}
	}
	return nil
}

// MeanMemory is M̄ = Σ M_i E[X_i] / Σ E[X_i] (Section 3.2.2), the time-
// weighted average of the task peaks.
func (a *App) MeanMemory() float64 {
	var num, den float64
	for _, t := range a.Tasks {
		m := t.Walltime.Mean()
		num += t.Mem * m
		den += m
	}
	return num / den
}

// PeakMemory is max_i M_i, what a memory-oblivious request asks for.
func (a *App) PeakMemory() float64 {
	m := 0.0
	for _, t := range a.Tasks {
		m = math.Max(m, t.Mem)
	}
	return m
}

// MeanWalltime is E[Σ X_i].
func (a *App) MeanWalltime() float64 {
	s := 0.0
	for _, t := range a.Tasks {
		s += t.Walltime.Mean()
	}
	return s
}

// Total returns the law of the walltime Σ X_i. When every task is Normal it
// is the exact Normal N(Σμ_i, √Σσ_i²) of Section 3.2.1 (like the paper, it
// then keeps the small mass below zero that Normal tasks carry; the planner
// cuts it). Otherwise it is the discrete law of the grid convolution of
// NewTimeline (each task rounded to the grid, negative values at 0).
func (a *App) Total() (distribution.Distribution, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	mu, v := 0.0, 0.0
	allNormal := true
	for _, t := range a.Tasks {
		n, ok := t.Walltime.(distribution.Normal)
		if !ok {
			allNormal = false
			break
		}
		mu += n.Mu
		v += n.Sigma * n.Sigma
	}
	if allNormal {
		return distribution.Normal{Mu: mu, Sigma: math.Sqrt(v)}, nil
	}
	tl, err := NewTimeline(context.Background(), a, 0)
	if err != nil {
		return nil, err
	}
	return tl.TotalDiscrete()
}

// Sample draws one run (the duration of every task) from the model;
// negative draws of a Normal are set to 0, as in the Timeline. It is the
// Monte Carlo oracle of the tests.
func (a *App) Sample(r *rand.Rand) []float64 {
	out := make([]float64, len(a.Tasks))
	for i, t := range a.Tasks {
		out[i] = math.Max(0, t.Walltime.Rand(r))
	}
	return out
}
