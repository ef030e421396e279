package iosim

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/des"
)

// The authors' finite workload and measurement (AuthorsModel.Drain).

// Their run's ignored ends (src/celio.C lines 82–83): 24 h at the start,
// 24.9 h at the end.
const (
	authorsIgnoreStart = 24 * 3600.0
	authorsIgnoreEnd   = 24.9 * 3600.0
)

// drainWindowLength is the measured window under Drain: Window, or 31 days.
func (m AuthorsModel) drainWindowLength() float64 {
	if m.Window > 0 {
		return m.Window
	}
	return AuthorsWindow
}

// minRun is the authors' min_run for a window of w seconds: the node-time
// per node their job list holds (src/celio.C line 85).
func minRun(w float64) float64 { return 1.2*w + authorsIgnoreEnd + authorsIgnoreStart }

// drainUsable is the interval of a drained run ending at L in which the
// window is placed: [L·isr, L·ier] (StatTrace::getStat).
func (m AuthorsModel) drainUsable(L float64) (lo, hi float64) {
	mr := minRun(m.drainWindowLength())
	return L * authorsIgnoreStart / mr, L * (mr - authorsIgnoreEnd) / mr
}

// drainCap is when a run that has not drained is stopped: 20 × min_run
// (src/celio.C: "if( sim.cur_date() > 20.0 * min_run ) { converged =
// false; break; }"); its window is then placed as if it ended there.
func (m AuthorsModel) drainCap() float64 { return 20 * minRun(m.drainWindowLength()) }

// drainWindow is the measured window: the whole run in the first pass
// (opt.drainEnd = 0), else a window at a random offset of the usable
// interval of the first pass's run.
func (m AuthorsModel) drainWindow(opt Options) (w0, w1 float64) {
	if opt.drainEnd == 0 {
		return 0, m.drainCap()
	}
	lo, hi := m.drainUsable(opt.drainEnd)
	W := m.drainWindowLength()
	u := des.Stream(opt.Seed, streamWindow).Float64()
	w0 = lo + u*(hi-lo-W)
	return w0, w0 + W
}

// drained reports whether, under Drain, every job has ended.
func (s *simulator) drained() bool {
	return s.opt.Authors.Drain && len(s.queue) == 0 && len(s.running) == 0
}

// simulateDrain runs a Drain simulation in two passes (the window depends
// on when the run ends, and the booking is done as the run goes): the
// first runs the job list to its end (at most drainCap), the second again
// (the same run: it is deterministic) up to the end of the window placed
// by that end.
func simulateDrain(ctx context.Context, c *Config, st Strategy, opt Options) (Run, error) {
	opt, err := withDrainEnd(ctx, c, st, opt)
	if err != nil {
		return Run{}, err
	}
	return SimulateContext(ctx, c, st, opt)
}

// withDrainEnd is opt with drainEnd set by a first pass when Drain is on
// (opt itself otherwise).
func withDrainEnd(ctx context.Context, c *Config, st Strategy, opt Options) (Options, error) {
	if !opt.Authors.Drain || opt.drainEnd != 0 {
		return opt, nil
	}
	s, err := newSimulator(c, st, opt)
	if err != nil {
		return opt, err
	}
	if err := s.run(ctx); err != nil {
		return opt, err
	}
	opt.drainEnd = s.lastEnd
	if !s.drained() {
		opt.drainEnd = s.w1 // not converged: stopped at the cap
	}
	if lo, hi := opt.Authors.drainUsable(opt.drainEnd); hi-lo < opt.Authors.drainWindowLength() || !(opt.drainEnd > 0) {
		return opt, fmt.Errorf("strategy %s: the job list drained at %.0f s, too early for a %gs window (the authors' \"Interval too big\")",
			st.Name, opt.drainEnd, opt.Authors.drainWindowLength())
	}
	return opt, nil
}

// generateJobsAuthors draws the job list as System::finalize does (see
// AuthorsModel.Drain), with the work of NarrowWork when it is on, else
// Section V's. O(J·K) for J jobs and K classes.
func generateJobsAuthors(c *Config, opt Options) ([]Job, error) {
	r := des.Stream(opt.Seed, streamWorkload)
	K := len(c.Classes)
	target := make([]float64, K)
	tot := 0.0
	for _, cl := range c.Classes {
		tot += cl.Share
	}
	for k, cl := range c.Classes {
		target[k] = cl.Share / tot
	}
	lo, width := 0.8, 0.4
	if opt.Authors.NarrowWork {
		lo, width = 0.9, 0.2
	}
	need := float64(c.Platform.Nodes) * minRun(opt.Authors.drainWindowLength())
	used := make([]float64, K)
	sum := 0.0
	var jobs []Job
	within := func() bool {
		for k := range K {
			if math.Abs(used[k]/sum-target[k]) > 0.01 {
				return false
			}
		}
		return true
	}
	goals := make([]int, 0, K)
	for drawn := 0; sum < need || !within(); drawn++ {
		if sum > 2*need { // System::finalize's failsafe: draw again
			jobs, sum = jobs[:0], 0
			clear(used)
		}
		if len(jobs) >= maxJobs {
			return nil, fmt.Errorf("workload: more than %d jobs needed to fill the span; walltimes too short", maxJobs)
		}
		if drawn >= maxJobs { // the redraws never meet the shares (jobs too wide for them)
			return nil, fmt.Errorf("workload: %d jobs drawn without a list whose class shares are within 1%% of the config's between %.3g and twice that node-seconds", drawn, need)
		}
		goals = goals[:0]
		for k := range K {
			if sum < need || used[k]/sum < target[k] {
				goals = append(goals, k)
			}
		}
		if len(goals) == 0 {
			for k := range K {
				if used[k]/sum < target[k]+0.01 {
					goals = append(goals, k)
				}
			}
		}
		if len(goals) == 0 {
			return nil, fmt.Errorf("workload: class shares cannot be met within 1%%")
		}
		k := pickGoal(goals, target, r.Float64())
		cl := c.Classes[k]
		w := float64(cl.Walltime) * (lo + width*r.Float64())
		if opt.Authors.NarrowWork {
			w -= (cl.Input + cl.Output) * c.JobMemory(k) / float64(c.Platform.Bandwidth)
		}
		if !(w > 0) {
			return nil, fmt.Errorf("workload: class %s's input and output leave it no work", cl.Name)
		}
		jobs = append(jobs, Job{ID: len(jobs), Class: k, Work: w})
		v := float64(cl.Nodes) * 1.1 * w // App::clear: wall ⌈1.1 × work⌉, no checkpoint in the baseline
		used[k] += v
		sum += v
	}
	return slices.Clip(jobs), nil
}

// pickGoal is System::pick_class: the first goal whose cumulative share
// reaches u × the goals' total share.
func pickGoal(goals []int, target []float64, u float64) int {
	tot := 0.0
	for _, k := range goals {
		tot += target[k]
	}
	coin, cum := u*tot, 0.0
	for _, k := range goals {
		cum += target[k]
		if coin <= cum {
			return k
		}
	}
	return goals[len(goals)-1]
}
