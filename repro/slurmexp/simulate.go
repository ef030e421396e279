package slurmexp

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/rng"
)

// The strategies of Section 5.
const (
	DynProgCount = "DYN-PROG-COUNT"
	AllCkpt      = "ALL-CKPT"
	HPC          = "HPC"
)

// Strategies lists them in the paper's order.
var Strategies = []string{DynProgCount, AllCkpt, HPC}

// Measures are Fig. 8's two numbers for one application and strategy.
type Measures struct {
	App, Strategy string
	Jobs          int
	// Utilization is Σ walltime / Σ time held; Stretch is the mean of
	// time held / walltime.
	Utilization, Stretch float64
	// ReservedUtilization and ReservedStretch are the same with the time
	// reserved (the RESERVATION-ONLY cost the plans minimise: the last
	// reservation in full) in place of the time held.
	ReservedUtilization, ReservedStretch float64
}

// Held is the time a job of walltime t holds a node under strategy s:
// every reservation before the one that completes it in full, then that
// one's restart and remaining work (package reservation's Eq. (5) with
// α = 0, β = 1, γ = 0). +Inf when no reservation covers t.
func Held(s reservation.Strategy, c, r, t float64) float64 {
	return reservation.CostFor(s, reservation.Costs{Beta: 1, C: c, R: r}, t)
}

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

// Simulate draws n walltimes of app (seed and the app's index give the
// stream) and returns the measures of each strategy on them. The HPC
// strategy of job i starts from the mean of the 5 walltimes before it (5
// warm-up runs drawn first) and grows by 50% per retry, from scratch.
func Simulate(ctx context.Context, app App, index, n int, seed uint64) ([]Measures, error) {
	d, err := app.Dist()
	if err != nil {
		return nil, err
	}
	r := rng.Stream(seed, uint64(index))
	ts := make([]float64, n+5)
	for i := range ts {
		ts[i] = d.Quantile(r.Float64())
	}
	costs := reservation.Costs{Alpha: 1, C: app.C, R: app.R}
	_, b := d.Support()
	var out []Measures
	for _, name := range Strategies {
		hs, rs := make([]float64, n), make([]float64, n)
		var s reservation.Strategy
		for i := range n {
			if i == 0 || name == HPC { // one plan for every job, but HPC's
				if s, err = strategyFor(ctx, name, d, costs, ts[i:i+5], b); err != nil {
					return nil, fmt.Errorf("%s %s: %v", app.Name, name, err)
				}
			}
			hs[i], rs[i] = Held(s, app.C, app.R, ts[i+5]), reservation.CostFor(s, costs, ts[i+5])
			if math.IsInf(hs[i], 0) {
				return nil, fmt.Errorf("%s %s: walltime %v not covered", app.Name, name, ts[i+5])
			}
		}
		m := Measures{App: app.Name, Strategy: name, Jobs: n}
		m.Utilization, m.Stretch = Measure(ts[5:], hs)
		m.ReservedUtilization, m.ReservedStretch = Measure(ts[5:], rs)
		out = append(out, m)
	}
	return out, nil
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
