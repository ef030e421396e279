package interval

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

// maxKept bounds the failure draws a Runs keeps (8 bytes each): beyond it
// a run's further draws are made again from its stream on every replay.
const maxKept = 1 << 22

// Runs are the failure sequences of MeanWallclock's reps runs under one
// law: run i draws from the stream rng.Stream(seed, 0, i), whatever the
// period. Every period replays the same sequences (common random numbers),
// so Runs draws each failure once, when a run first needs it, and keeps it
// for the next periods: a replay then costs no sampling, and its results
// are those of MeanWallclock and BestFixed, bit for bit.
//
// Memory: O(reps + draws kept), the draws at most maxKept. A Runs is not
// safe for concurrent use.
type Runs struct {
	law   distribution.Distribution
	draws [][]float64 // the draws of each run so far
	state []rand.PCG  // each run's generator after its draws
	kept  int         // draws kept, over all runs
	keep  int         // the most draws kept (maxKept; tests lower it)
	// noPrune makes BestFixed try every x (tests compare the two).
	noPrune bool
	src     rand.PCG   // the generator being drawn from
	gen     *rand.Rand // draws from src
}

// NewRuns prepares reps runs of law seeded by seed, as MeanWallclock
// seeds them. O(reps); no draw is made yet.
func NewRuns(law distribution.Distribution, seed uint64, reps int) (*Runs, error) {
	if reps < 1 {
		return nil, fmt.Errorf("reps must be >= 1, got %d", reps)
	}
	rs := &Runs{law: law, draws: make([][]float64, reps), state: make([]rand.PCG, reps), keep: maxKept}
	for i := range rs.state {
		reseed(&rs.state[i], rng.Derive(seed, 0, uint64(i)))
	}
	rs.gen = rand.New(&rs.src)
	return rs, nil
}

// MeanWallclock is the package's MeanWallclock for these runs: the mean Tw
// of a task of work te checkpointed every period at cost c, restarting at
// cost r. O(reps·failures), plus the draws no earlier period needed.
func (rs *Runs) MeanWallclock(te, period, c, r float64) (float64, error) {
	p0, err := newReplayer(te, period, c, r)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for i := range rs.draws {
		p := p0
		if err := rs.replay(i, period, &p); err != nil {
			return 0, err
		}
		s += p.result().Wallclock
	}
	return s / float64(len(rs.draws)), nil
}

// replay feeds run i's failures to p until the task completes, as
// Simulate does for that period. Only valid draws are kept, so an invalid
// one is drawn again, and refused, by every replay that reaches it.
func (rs *Runs) replay(i int, period float64, p *replayer) error {
	ds := rs.draws[i]
	if _, completed := p.feed(ds); completed {
		return nil
	}
	// The run needs more failures than any earlier period: draw them.
	rs.src = rs.state[i]
	for j := len(ds); ; j++ {
		if j == maxSimFailures {
			return fmt.Errorf("more than %d failures in one run (period %v, law %v)", maxSimFailures, period, rs.law)
		}
		d := rs.law.Rand(rs.gen)
		if !(d >= 0) || math.IsInf(d, 0) {
			return badRunningTime(j, d)
		}
		if rs.kept < rs.keep {
			rs.kept++
			ds = append(ds, d)
			rs.draws[i], rs.state[i] = ds, rs.src
		}
		if _, completed := p.feed([]float64{d}); completed {
			return nil
		}
	}
}
