package interval

import (
	"fmt"
	"math"
)

// Method names, as the CLI prints them and as keys of its JSON output.
const (
	MethodYoung = "young" // Young's period √(2·C·MTBF), Eq. (6)
	MethodDaly  = "daly"  // Daly's higher-order period
	MethodMNOF  = "mnof"  // Theorem 1: the integer x minimising Eq. (4)
)

// Task is what Plan needs to know about a task.
type Task struct {
	// Te is the work (productive time, no failure and no checkpoint),
	// > 0.
	Te float64
	// C is the cost of one checkpoint, > 0.
	C float64
	// R is the cost of one restart, ≥ 0.
	R float64
	// EY is the expected number of failures during the task (MNOF), ≥ 0;
	// NaN when unknown (then Te/MTBF, Corollary 1).
	EY float64
	// MTBF is the mean time between failures, > 0 (+Inf: no failure);
	// NaN when unknown (then Te/EY, Corollary 1).
	MTBF float64
}

// Validate checks the fields and that at least one of EY and MTBF is known.
func (t Task) Validate() error {
	switch {
	case !(t.Te > 0) || math.IsInf(t.Te, 0):
		return fmt.Errorf("work Te must be finite and > 0, got %v", t.Te)
	case !(t.C > 0) || math.IsInf(t.C, 0):
		return fmt.Errorf("checkpoint cost C must be finite and > 0, got %v", t.C)
	case !(t.R >= 0) || math.IsInf(t.R, 0):
		return fmt.Errorf("restart cost R must be finite and >= 0, got %v", t.R)
	case !math.IsNaN(t.EY) && !(t.EY >= 0 && !math.IsInf(t.EY, 0)):
		return fmt.Errorf("expected number of failures E(Y) must be finite and >= 0, got %v", t.EY)
	case !math.IsNaN(t.MTBF) && !(t.MTBF > 0):
		return fmt.Errorf("MTBF must be > 0, got %v", t.MTBF)
	case math.IsNaN(t.EY) && math.IsNaN(t.MTBF):
		return fmt.Errorf("give the expected number of failures E(Y) or the MTBF")
	}
	return nil
}

// Resolved fills the unknown one of EY and MTBF by Corollary 1's link
// E(Y) = Te/MTBF (exact for a Poisson process of failures over the work).
func (t Task) Resolved() Task {
	if math.IsNaN(t.EY) {
		t.EY = t.Te / t.MTBF
	}
	if math.IsNaN(t.MTBF) {
		if t.EY == 0 {
			t.MTBF = math.Inf(1)
		} else {
			t.MTBF = t.Te / t.EY
		}
	}
	return t
}

// Method is one method's plan for a task.
type Method struct {
	Name string
	// Intervals is the number of checkpointing intervals (Intervals−1
	// checkpoints).
	Intervals int
	// Period is the work between checkpoints (the last interval may be
	// shorter for Young and Daly); Te when there is no checkpoint.
	Period float64
	// ExpectedWallclock is E(Tw) of Eq. (4) (ExpectedWallclockPeriod for
	// Young and Daly) with the task's E(Y).
	ExpectedWallclock float64
	// Overhead is ExpectedWallclock − Te.
	Overhead float64
	// ExactExponential is the exact E(Tw) of the same plan under
	// exponential failures of the task's MTBF striking at any time,
	// restarts included (ExactWallclockExp).
	ExactExponential float64
	// ExactReplay is the exact E(Tw) of the plan in the replay model
	// (failures during work and checkpoints, none during a restart) with
	// exponential running times of the task's MTBF (ExactWallclockReplayExp).
	ExactReplay float64
}

// Eq4Gap is the largest relative gap |Eq. (4) − exact|/exact between the
// first-order ExpectedWallclock and the two exact expectations; NaN when
// they cannot be computed.
func (m Method) Eq4Gap() float64 {
	g := math.Abs(m.ExpectedWallclock-m.ExactExponential) / m.ExactExponential
	return math.Max(g, math.Abs(m.ExpectedWallclock-m.ExactReplay)/m.ExactReplay)
}

// Eq4GapThreshold is the relative gap above which the CLI warns that
// Eq. (4)'s first-order E(Tw) is not the exact expectation.
const Eq4GapThreshold = 0.01

// withExact fills the exact expectations of m for task t (resolved).
func (m Method) withExact(t Task) Method {
	m.ExactExponential = ExactWallclockExp(t.Te, m.Period, t.C, t.R, t.MTBF)
	m.ExactReplay = ExactWallclockReplayExp(t.Te, m.Period, t.C, t.R, t.MTBF)
	return m
}

// Plan returns the plans of Young, Daly and Theorem 1 (in that order) for
// the task, each priced by Eq. (4) with the same E(Y), so that they compare.
// Young and Daly need the MTBF and Theorem 1 needs E(Y); the missing one is
// derived by Corollary 1. Each plan also carries its exact expectations
// for exponential failures of the task's MTBF (ExactWallclockExp,
// ExactWallclockReplayExp). O(1).
func Plan(t Task) ([]Method, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	t = t.Resolved()
	out := make([]Method, 0, 3)
	for _, m := range []struct {
		name   string
		period float64
	}{{MethodYoung, Young(t.C, t.MTBF)}, {MethodDaly, Daly(t.C, t.MTBF)}} {
		p := math.Min(m.period, t.Te)
		x := IntervalsForPeriod(t.Te, p)
		if x == 1 {
			p = t.Te
		}
		e := ExpectedWallclockPeriod(t.Te, t.C, t.R, t.EY, p)
		out = append(out, Method{Name: m.name, Intervals: x, Period: p, ExpectedWallclock: e, Overhead: e - t.Te}.withExact(t))
	}
	x := Intervals(t.Te, t.C, t.EY)
	e := ExpectedWallclock(t.Te, t.C, t.R, t.EY, float64(x))
	out = append(out, Method{Name: MethodMNOF, Intervals: x, Period: t.Te / float64(x), ExpectedWallclock: e, Overhead: e - t.Te}.withExact(t))
	return out, nil
}
