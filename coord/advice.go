package coord

import (
	"errors"
	"math"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Advice answers "when next?".
type Advice struct {
	Job    string  `json:"job"`
	Method string  `json:"method"`
	C      float64 `json:"c"`    // checkpoint duration used (the EWMA estimate)
	MTBF   float64 `json:"mtbf"` // the job's MTBF used (NaN under E(Y) without one)
	EY     float64 `json:"ey,omitempty"`
	// Period is the work between two checkpoints: the method's optimum,
	// or shorter so that a last checkpoint ends at the allocation end.
	Period float64 `json:"period"`
	// Optimum is the method's period before the allocation-end
	// correction.
	Optimum float64 `json:"optimum"`
	// At is when the next checkpoint should start (≥ now); +Inf: never
	// (no failure expected and no allocation end).
	At float64 `json:"at"`
	// Final: the next checkpoint is the last one before the allocation
	// end (it ends at End).
	Final bool `json:"final,omitempty"`
	// None: no checkpoint can end before the allocation end any more.
	None   bool   `json:"none,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Next returns the next checkpoint time of job id at time now.
//
// The unconstrained period τ is interval.Period's for the job's method:
// Daly's or Young's for C = the job's estimate and M = its MTBF (given; or
// Work/E(Y); or μ̂_ind/q from the platform), or, for method ey, Te/x with
// x = interval.Intervals(Te, C, E(Y)) equal intervals of Theorem 1. The next checkpoint starts τ after
// the last one ended. With an allocation end E and T = E − last the
// remaining time, the k = ⌈T/(τ+C)⌉ remaining segments are shrunk to
// τ' = T/k − C so that the k-th checkpoint ends exactly at E (τ' ≤ τ); if
// T < C, or now + C > E, no checkpoint fits (None).
func (c *Coordinator) Next(now float64, id string) (Advice, error) {
	c.begin(now)
	j, ok := c.jobs[id]
	if !ok {
		return Advice{}, errorf(NotFound, "id", "no job %q", clip(id))
	}
	s := j.Spec
	a := Advice{Job: id, Method: s.Method, C: j.CEst, MTBF: math.NaN()}
	if a.Method == "" {
		a.Method = MethodDaly
	}
	te := s.Work
	if te == 0 && s.End > j.Registered {
		te = s.End - j.Registered
	}
	switch {
	case s.MTBF > 0:
		a.MTBF = s.MTBF
	case s.EY > 0 && te > 0:
		a.MTBF = te / s.EY
	default:
		if mu := c.NodeMTBF(now); mu > 0 {
			a.MTBF = mu / float64(s.Nodes)
		}
	}
	if a.Method == MethodEY {
		switch {
		case !(te > 0):
			return a, errorf(Invalid, "work", "method ey needs the job's work (work, or an allocation end)")
		case s.EY > 0:
			a.EY = s.EY
		case !(a.MTBF > 0):
			return a, errorf(Invalid, "ey", "method ey needs E(Y) (ey), the job's MTBF, or observed platform failures")
		default:
			a.EY = te / a.MTBF
		}
	} else if !(a.MTBF > 0) {
		return a, errorf(Invalid, "mtbf", "no MTBF: give mtbf or ey, or start the service with a node-MTBF prior (no failure observed yet)")
	}
	var err error
	if a.Optimum, err = interval.Period(a.Method, te, j.CEst, a.MTBF, a.EY); err != nil {
		if ue := (*usage.Error)(nil); errors.As(err, &ue) {
			return a, errorf(Invalid, ue.Field, "%v", ue.Err)
		}
		return a, errorf(Invalid, "", "%v", err)
	}
	fitEnd(&a, now, j.LastCheckpoint, s.End)
	return a, nil
}

// fitEnd places the next checkpoint τ after last, corrected for the
// allocation end (0: none).
func fitEnd(a *Advice, now, last, end float64) {
	a.Period = a.Optimum
	if end > 0 {
		t := end - last
		if t < a.C || now+a.C > end {
			a.None, a.At, a.Period = true, math.Inf(1), math.NaN()
			a.Reason = "no checkpoint can end before the allocation end"
			return
		}
		k := 1.0
		if !math.IsInf(a.Optimum, 1) {
			k = math.Max(1, math.Ceil(t/(a.Optimum+a.C)))
		}
		a.Period = t/k - a.C
		a.Final = k == 1
	}
	a.At = last + a.Period
	if a.At < now {
		a.At = now // overdue
	}
	if end > 0 && a.At+a.C > end {
		a.At = end - a.C
	}
	if math.IsInf(a.At, 1) {
		a.Reason = "no failure expected: no checkpoint needed"
	}
}
