package iosim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
)

// ErrNotReached is wrapped by BandwidthFor's error when even the highest
// bandwidth does not give the target efficiency.
var ErrNotReached = errors.New("target not reached")

// BandwidthFor finds by bisection (on a log scale, to relative precision
// relTol) the smallest aggregate bandwidth in [lo, hi] at which strategy
// st's mean waste over reps trials is at most 1 − efficiency (Fig. 4 uses
// efficiency 0.8). Every evaluation uses the same trial seeds, so the
// mean waste is a deterministic function of the bandwidth. It returns hi's
// error if even hi is not enough and lo if lo already suffices. A
// bandwidth at which the platform cannot make progress
// (Config.CheckProgress) counts as waste 1 without a simulation.
func BandwidthFor(ctx context.Context, c Config, st Strategy, efficiency float64, reps int, opt Options, ro runner.Options, lo, hi, relTol float64) (float64, error) {
	if !(efficiency > 0 && efficiency < 1) {
		return 0, fmt.Errorf("efficiency must be in (0, 1), got %v", efficiency)
	}
	if !(lo > 0 && hi > lo) || !(relTol > 0) {
		return 0, fmt.Errorf("need 0 < lo < hi and tolerance > 0, got lo=%v hi=%v tol=%v", lo, hi, relTol)
	}
	meanWaste := func(beta float64) (float64, error) {
		cb := c.WithBandwidth(beta)
		if !opt.NoFailures && opt.Failures == nil {
			var np *NoProgressError
			if err := cb.CheckProgress(); errors.As(err, &np) {
				return 1, nil // no progress at this bandwidth: waste 1
			}
		}
		pts := []SweepPoint{{Param: "bandwidth", Value: beta, Config: cb}}
		rs, err := Sweep(ctx, pts, []Strategy{st}, reps, opt, ro, nil)
		if err != nil {
			return 0, err
		}
		if opt.Accounting == AuthorsAccounting {
			Renormalize(rs) // the largest baseline of this bandwidth's trials
		}
		return Aggregate(rs)[0].Strategies[0].Waste.Mean, nil
	}
	ok := func(beta float64) (bool, error) {
		w, err := meanWaste(beta)
		return w <= 1-efficiency, err
	}
	return smallestGood(lo, hi, relTol, ok, func() error {
		return fmt.Errorf("%s does not reach efficiency %v even at %s: %w", st.Name, efficiency, units.FormatBandwidth(hi), ErrNotReached)
	})
}

// smallestGood is the smallest x in [lo, hi] at which ok, false below some
// threshold and true above it, is true: bisection on a log scale to
// relative precision relTol, O(log(log(hi/lo)/relTol)) calls of ok. It
// returns notReached() when ok(hi) is false, and lo when ok(lo) is true.
func smallestGood(lo, hi, relTol float64, ok func(float64) (bool, error), notReached func() error) (float64, error) {
	if good, err := ok(hi); err != nil {
		return 0, err
	} else if !good {
		return 0, notReached()
	}
	if good, err := ok(lo); err != nil {
		return 0, err
	} else if good {
		return lo, nil
	}
	for hi/lo > 1+relTol {
		mid := math.Sqrt(lo * hi)
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
