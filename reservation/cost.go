package reservation

import (
	"fmt"
	"math"
	"sort"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// ErrNotCovered is wrapped by the errors of functions that price a strategy
// whose last milestone leaves some walltimes without a reservation.
var ErrNotCovered = fmt.Errorf("strategy does not cover the distribution")

// ExpectedCost is E(S(X)) by Theorem 1, Eq. (7):
//
//	βE[X] + Σ_{i≥1} (αW_i + β(R_i + (1−δ_{i−1})T_{i−1} + C_{i−1}) + γ)·P(X > t_{i−1})
//
// with P(X > t_0) = 1. The strategy must cover the support of d: if
// P(X > t_last) > 0 some jobs never finish and the expected cost is infinite,
// which is reported as an error wrapping ErrNotCovered. Time O(|S|) calls to
// d.Survival.
func ExpectedCost(s Strategy, d distribution.Distribution, c Costs) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if err := c.Validate(); err != nil {
		return 0, err
	}
	if p := d.Survival(s.Last()); p > 0 {
		return math.Inf(1), fmt.Errorf("%w: last milestone %g leaves P(X > %g) = %.3g", ErrNotCovered, s.Last(), s.Last(), p)
	}
	return expectedCost(s, c, d.Survival, d.Mean()), nil
}

// expectedCost evaluates Eq. (7) for the reservations of s (Reservations).
func expectedCost(s Strategy, c Costs, survival func(float64) float64, mean float64) float64 {
	return expectedCostAbove(s, c, survival, mean, math.Inf(1))
}

// expectedCostAbove is expectedCost that stops as soon as the running total
// exceeds bound and returns that partial total, which then exceeds bound
// too, as the full one would: every term of Eq. (7) is >= 0 for valid costs
// and a rounded sum of a float and a non-negative float is never below the
// float, so the running total never decreases. With bound = +Inf it is
// expectedCost, bit for bit. The reservations are decomposed as it goes
// (reservationOf), so that a stopped pricing costs only the steps it read.
func expectedCostAbove(s Strategy, c Costs, survival func(float64) float64, mean, bound float64) float64 {
	total := c.Beta * mean
	pNeeded := 1.0
	var prev Reservation
	saved, restart := 0.0, 0.0
	for i, st := range s {
		var r Reservation
		r, saved, restart = reservationOf(st, c, saved, restart)
		if i > 0 {
			pNeeded = survival(prev.Milestone)
			if pNeeded <= 0 {
				break
			}
		}
		term := c.Alpha*r.Length + c.Gamma
		if i > 0 {
			lost := prev.Work
			if prev.Checkpoint {
				lost = 0
			}
			waste := r.Restart + lost + prev.CheckpointTime
			if c.Limited() {
				waste += prev.Margin + prev.Slack // reserved, so used, but no planned work
			}
			term += c.Beta * waste
		}
		total += term * pNeeded
		if total > bound {
			break
		}
		prev = r
	}
	return total
}

// CostFor is C_S(k, t) of Eq. (5): the cost of running a job of walltime t
// with strategy s, where reservation k is the first with t ≤ t_k. It returns
// +Inf when t exceeds the last milestone. It does not validate s.
func CostFor(s Strategy, c Costs, t float64) float64 {
	rs := Reservations(s, c)
	k := sort.Search(len(s), func(i int) bool { return t <= s[i].Milestone })
	if k == len(s) {
		return math.Inf(1)
	}
	cost := 0.0
	for i := range k {
		cost += (c.Alpha+c.Beta)*rs[i].Length + c.Gamma
	}
	r := rs[k]
	start := r.Milestone - r.Work // progress at the start of reservation k
	return cost + c.Alpha*r.Length + c.Beta*(r.Restart+t-start) + c.Gamma
}

// Omniscient is the cost of a scheduler that knows each job's walltime and
// makes one exact reservation: (α + β)·E[X] + γ. No strategy does better
// (used in the proof of Lemma 1), so it normalises Fig. 7.
func Omniscient(d distribution.Distribution, c Costs) float64 {
	return (c.Alpha+c.Beta)*d.Mean() + c.Gamma
}
