package interval

import (
	"fmt"
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

// The reference simulation the tests compare Runs against: one run at a
// time, drawing every failure again for every period.

// simulateOne runs a task of work te, checkpointed every `period` of work at
// cost c, restarting at cost r, under failures whose uninterrupted running
// times are independent draws from law (a renewal process restarted at each
// failure; the trace replay's model with synthetic failures). It returns one
// run's outcome; the error reports invalid arguments or a run that needed
// more than a million failures (the period is hopeless for this law).
// O(failures).
func simulateOne(te, period, c, r float64, law distribution.Distribution, rng *rand.Rand) (ReplayResult, error) {
	k := 0
	var overflow bool
	res, err := replay(te, period, c, r, func() (float64, bool) {
		if k == maxSimFailures {
			overflow = true
			return 0, false
		}
		k++
		return law.Rand(rng), true
	})
	if err == nil && overflow {
		err = fmt.Errorf("more than %d failures in one run (period %v, law %v)", maxSimFailures, period, law)
	}
	return res, err
}

// meanWallclock is the Monte Carlo mean of Tw over reps runs of simulateOne,
// each drawing from its own generator seeded by (seed, rep), so that
// different periods see the same failures (common random numbers) and the
// search over periods is not fooled by noise. O(reps·failures). To try
// several periods, NewRuns draws the failures once for all of them.
func meanWallclock(te, period, c, r float64, law distribution.Distribution, seed uint64, reps int) (float64, error) {
	if reps < 1 {
		return 0, fmt.Errorf("reps must be >= 1, got %d", reps)
	}
	var src rand.PCG
	g := rand.New(&src)
	s := 0.0
	for i := 0; i < reps; i++ {
		rng.Reseed(&src, rng.Derive(seed, 0, uint64(i)))
		res, err := simulateOne(te, period, c, r, law, g)
		if err != nil {
			return 0, err
		}
		s += res.Wallclock
	}
	return s / float64(reps), nil
}

// bestFixed searches the fixed period that minimises the simulated mean
// wall-clock time (meanWallclock, common random numbers): first the
// equal-interval periods te/x for x = 1 … maxX, then a golden-section
// refinement of the period between the neighbours te/(x+1) and te/(x−1) of
// the best x (a period that does not divide te leaves a shorter last
// interval, which can be slightly better). Ties keep the longer period.
// O((maxX + 40)·reps·failures).
func bestFixed(te, c, r float64, law distribution.Distribution, seed uint64, reps, maxX int) (period, mean float64, err error) {
	runs, err := NewRuns(law, seed, reps)
	if err != nil {
		return 0, 0, err
	}
	return runs.BestFixed(te, c, r, maxX)
}
