package slurm

import (
	"context"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
)

// The strategies of Section 5.
const (
	DynProgCount = "DYN-PROG-COUNT"
	AllCkpt      = "ALL-CKPT"
	HPC          = "HPC"
)

// Strategies lists them in the paper's order.
var Strategies = []string{DynProgCount, AllCkpt, HPC}

// Measure computes the measures of walltimes ts and held times hs.
func Measure(ts, hs []float64) (util, stretch float64) {
	var st, sh, sr float64
	for i, t := range ts {
		st += t
		sh += hs[i]
		sr += hs[i] / t
	}
	return st / sh, sr / float64(len(ts))
}

// strategyFor plans strategy name for law d; HPC uses the history.
func strategyFor(ctx context.Context, name string, d distribution.Distribution, c reservation.Costs, history []float64, b float64) (reservation.Strategy, error) {
	if name == HPC {
		return reservation.Escalating(reservation.NeuroFirst(history, d), 1.5, b)
	}
	algo := reservation.AlgoDynProgCount
	if name == AllCkpt {
		algo = reservation.AlgoAllCkpt
	}
	res, err := reservation.PlanContext(ctx, d, reservation.Options{Costs: c, Algorithm: algo, Epsilon: 0.1})
	if err != nil {
		return nil, err
	}
	return res.Strategy, nil
}
