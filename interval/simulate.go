package interval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/optimize"
	"github.com/ckpt-hpc/ckpt/rng"
)

// maxSimFailures bounds the failures of one simulated run: a law whose runs
// are almost always shorter than a checkpoint block would never finish.
const maxSimFailures = 1_000_000

// RenewalMean estimates E(Y) for Formula (3): the mean number of failures
// of a renewal process with inter-failure law `law` during te of running
// time, over reps draws (run i seeded by rng.Derive(seed, 1, i)). It is what the MNOF of
// a history of such tasks measures when the overheads are small.
// O(reps·E(Y)).
func RenewalMean(te float64, law distribution.Distribution, seed uint64, reps int) float64 {
	return float64(renewalCount(te, law, seed, 0, reps)) / float64(reps)
}

// RenewalMeanWorkers is RenewalMean on that many goroutines, the same
// number: the failures are counted in integers, whose sum does not depend
// on the order.
func RenewalMeanWorkers(te float64, law distribution.Distribution, seed uint64, reps, workers int) float64 {
	n := 1
	if workers > 1 {
		n = min(workers*chunksPerWorker, reps)
	}
	if n <= 1 {
		return RenewalMean(te, law, seed, reps)
	}
	counts := make([]int, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				counts[k] = renewalCount(te, law, seed, k*reps/n, (k+1)*reps/n)
			}
		})
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total >= math.MaxInt32 {
		return RenewalMean(te, law, seed, reps) // the sequential count's cap
	}
	return float64(total) / float64(reps)
}

// renewalCount is the number of failures during te of runs lo … hi−1,
// capped at math.MaxInt32.
func renewalCount(te float64, law distribution.Distribution, seed uint64, lo, hi int) int {
	var src rand.PCG
	g := rand.New(&src)
	total := 0
	for i := lo; i < hi; i++ {
		rng.Reseed(&src, rng.Derive(seed, 1, uint64(i)))
		t := law.Rand(g)
		for t < te && total < math.MaxInt32 {
			total++
			t += law.Rand(g)
		}
	}
	return total
}

// BestFixed searches the fixed period that minimises the mean wall-clock
// time over these runs (MeanWallclock, common random numbers): first the
// equal-interval periods te/x for x = 1 … maxX, then a golden-section
// refinement of the period between the neighbours te/(x+1) and te/(x−1) of
// the best x (a period that does not divide te leaves a shorter last
// interval, which can be slightly better). Ties keep the longer period.
// O((maxX + 40)·reps·failures), each failure drawn once. The scan skips the numbers of
// intervals x whose mean cannot beat the best so far: every run of a period
// takes at least its failure-free time te + (x−1)·C (the work, each lost
// second redone, and the checkpoints), so once that floor, less a margin
// far above rounding (1e-6 relative), is no smaller than the best mean, the
// strict comparison would keep the best anyway (TestBestFixedPruneExact
// checks it against the full scan).
func (rs *Runs) BestFixed(te, c, r float64, maxX int) (period, mean float64, err error) {
	if maxX < 1 {
		return 0, 0, fmt.Errorf("maxX must be >= 1, got %d", maxX)
	}
	law := rs.law
	eval := func(p float64) float64 {
		m, err := rs.MeanWallclock(te, p, c, r)
		if err != nil {
			return math.Inf(1) // hopeless period: too few checkpoints for this law
		}
		return m
	}
	mean, x := math.Inf(1), 0
	for n := 1; n <= maxX; n++ {
		if !rs.noPrune && failureFree(te, te/float64(n), c)*(1-1e-6) >= mean {
			continue // cannot win: see above
		}
		if m := eval(te / float64(n)); m < mean {
			x, mean = n, m
		}
	}
	if x == 0 {
		return 0, 0, fmt.Errorf("no period up to %d intervals completes under %v", maxX, law)
	}
	period = te / float64(x)
	lo, hi := te/float64(x+1), te
	if x > 1 {
		hi = te / float64(x-1)
	}
	b := optimize.Golden{Steps: 40, Tol: 1e-6 * period, Ties: optimize.TiesRight}.Minimize(eval, lo, hi)
	for _, c := range []struct{ p, f float64 }{{b.X1, b.F1}, {b.X2, b.F2}} {
		if c.f < mean {
			period, mean = c.p, c.f
		}
	}
	return period, mean, nil
}

// failureFree is the wall-clock time of a run without failures, Replay's
// arithmetic (NaN for invalid arguments); no run is shorter.
func failureFree(te, period, c float64) float64 {
	p, err := newReplayer(te, period, c, 0)
	if err != nil {
		return math.NaN()
	}
	return p.result().Wallclock
}
