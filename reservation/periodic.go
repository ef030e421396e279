package reservation

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Periodic is Algorithm 2 on the domain [a, b] with τ chunks of length
// T = (b − a)/τ: milestones a + i·T for i < τ and b for the last. With ckpt
// (ALL-CKPT-PER) every reservation but the last checkpoints; without it
// (NO-CKPT-PER) none does.
func Periodic(a, b float64, tau int, ckpt bool) Strategy {
	T := (b - a) / float64(tau)
	s := make(Strategy, tau)
	for i := 1; i < tau; i++ {
		s[i-1] = Step{Milestone: a + float64(i)*T, Checkpoint: ckpt}
	}
	s[tau-1] = Step{Milestone: b}
	return s
}

// BestPeriodic tries τ = 1 … maxTau and returns the cheapest periodic
// strategy for x (the paper searches τ ∈ [1, 1000]). Ties keep the smaller
// τ. Time O(maxTau²) survival evaluations.
func BestPeriodic(x distribution.Distribution, c Costs, ckpt bool, maxTau int) (tau int, s Strategy, cost float64, err error) {
	return bestPeriodic(context.Background(), x, c, ckpt, maxTau, 0)
}

// bestPeriodic is BestPeriodic that checks ctx once per τ and, when
// maxLength > 0, keeps only the τ whose reservations are at most maxLength
// (tau 0 and cost +Inf when none is).
func bestPeriodic(ctx context.Context, x distribution.Distribution, c Costs, ckpt bool, maxTau int, maxLength float64) (tau int, s Strategy, cost float64, err error) {
	if maxTau < 1 {
		return 0, nil, 0, fmt.Errorf("maximum number of chunks must be >= 1, got %d", maxTau)
	}
	a, b := x.Support()
	if math.IsInf(b, 0) {
		return 0, nil, 0, fmt.Errorf("periodic strategies need a bounded support, got [%v, %v]", a, b)
	}
	cost = math.Inf(1)
	for t := 1; t <= maxTau; t++ {
		if err := ctx.Err(); err != nil {
			return 0, nil, 0, err
		}
		cand := Periodic(a, b, t, ckpt)
		if cand.Validate() != nil {
			break // chunks below float resolution
		}
		if k, _ := exceeds(cand, c, maxLength); k > 0 {
			continue
		}
		// A candidate is priced only until its cost exceeds the best one
		// (the comparison below is strict, so the choice is the same).
		v, e := expectedCostOnAbove(cand, x, c, cost)
		if e != nil {
			return 0, nil, 0, e
		}
		if v < cost {
			tau, s, cost = t, cand, v
		}
	}
	return tau, s, cost, nil
}
