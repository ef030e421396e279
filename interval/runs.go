package interval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

// maxKept bounds the failure draws a Runs keeps (8 bytes each): beyond it
// a run's further draws are made again from its stream on every replay.
const maxKept = 1 << 22

// chunksPerWorker splits the runs finer than the workers, so that a worker
// slowed by other load leaves its share to the others.
const chunksPerWorker = 4

// Runs are the failure sequences of reps simulated runs of a task under one
// law (failures: independent draws of the law on the running time, a
// renewal process restarted at each failure; the trace replay's model):
// run i draws from the stream rng.Stream(seed, 0, i), whatever the
// period. Every period replays the same sequences (common random numbers),
// so Runs draws each failure once, when a run first needs it, and keeps it
// for the next periods: a replay then costs no sampling, and its results
// are those of drawing every run again for every period, bit for bit
// (the tests' reference simulation checks it). With Workers > 1
// the runs are replayed in parallel and their times summed in run order
// afterwards, so the results do not depend on the number of workers.
//
// Memory: O(reps + draws kept), the draws at most maxKept. A Runs is not
// safe for concurrent use (its methods use its workers themselves).
type Runs struct {
	// Workers is the number of goroutines a replay of the runs uses (≤ 1:
	// one, the caller's).
	Workers int
	law     distribution.Distribution
	draws   [][]float64 // the draws of each run so far
	state   []rand.PCG  // each run's generator after its draws
	keep    int         // the most draws kept (maxKept; tests lower it)
	chunks  []runChunk  // the runs split for the workers, made on first use
	packed  int         // draws laid out in run order at the last pack
	wall    []float64   // each run's Tw, when replayed in parallel
	// noPrune makes BestFixed try every x (tests compare the two).
	noPrune bool
}

// runChunk is a range of runs replayed by one worker at a time, with the
// generator it draws from and its share of the draw budget.
type runChunk struct {
	lo, hi     int
	kept, keep int
	src        rand.PCG
	gen        *rand.Rand
}

// NewRuns prepares reps runs of law seeded by seed (run i from
// rng.Derive(seed, 0, i)). O(reps); no draw is made yet.
func NewRuns(law distribution.Distribution, seed uint64, reps int) (*Runs, error) {
	if reps < 1 {
		return nil, fmt.Errorf("reps must be >= 1, got %d", reps)
	}
	rs := &Runs{law: law, draws: make([][]float64, reps), state: make([]rand.PCG, reps), keep: maxKept}
	for i := range rs.state {
		rng.Reseed(&rs.state[i], rng.Derive(seed, 0, uint64(i)))
	}
	return rs, nil
}

// split makes the chunks for w workers (one chunk for w ≤ 1), keeping the
// draws already made and sharing the remaining budget.
func (rs *Runs) split(w int) {
	n := 1
	if w > 1 {
		n = min(w*chunksPerWorker, len(rs.draws))
	}
	if len(rs.chunks) == n {
		return
	}
	kept := 0
	for _, c := range rs.chunks {
		kept += c.kept
	}
	left := max(rs.keep-kept, 0)
	rs.chunks = make([]runChunk, n)
	for k := range rs.chunks {
		c := &rs.chunks[k]
		c.lo, c.hi = k*len(rs.draws)/n, (k+1)*len(rs.draws)/n
		c.keep = left / n
		c.gen = rand.New(&c.src)
	}
	rs.chunks[0].kept = kept // the draws kept so far count once
	rs.chunks[0].keep += kept + left%n
}

// MeanWallclock is the Monte Carlo mean of Tw over these runs for a task
// of work te checkpointed every period at cost c, restarting at cost r.
// O(reps·failures), plus the draws no earlier period needed.
func (rs *Runs) MeanWallclock(te, period, c, r float64) (float64, error) {
	p0, err := newReplayer(te, period, c, r)
	if err != nil {
		return 0, err
	}
	rs.split(rs.Workers)
	rs.pack()
	if len(rs.chunks) == 1 {
		s := 0.0
		for i := range rs.draws {
			p := p0
			if err := rs.replay(&rs.chunks[0], i, period, &p); err != nil {
				return 0, err
			}
			s += p.result().Wallclock
		}
		return s / float64(len(rs.draws)), nil
	}
	if err := rs.parallel(p0, period); err != nil {
		return 0, err
	}
	s := 0.0
	for _, w := range rs.wall {
		s += w // in run order: the sum of the sequential loop
	}
	return s / float64(len(rs.draws)), nil
}

// parallel replays every run on rs.Workers goroutines into rs.wall. Its
// error is the one of the first run that fails, the sequential loop's.
func (rs *Runs) parallel(p0 replayer, period float64) error {
	if len(rs.wall) != len(rs.draws) {
		rs.wall = make([]float64, len(rs.draws))
	}
	errs := make([]error, len(rs.chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(rs.Workers, len(rs.chunks)) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(rs.chunks); k = int(next.Add(1) - 1) {
				ch := &rs.chunks[k]
				for i := ch.lo; i < ch.hi; i++ {
					p := p0
					if err := rs.replay(ch, i, period, &p); err != nil {
						errs[k] = err
						break
					}
					rs.wall[i] = p.result().Wallclock
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// replay feeds run i's failures to p until the task completes, as
// the reference simulation does for that period, drawing the failures no earlier period
// needed with ch's generator. Only valid draws are kept, so an invalid one
// is drawn again, and refused, by every replay that reaches it.
func (rs *Runs) replay(ch *runChunk, i int, period float64, p *replayer) error {
	ds := rs.draws[i]
	if _, completed := p.feed(ds); completed {
		return nil
	}
	// The run needs more failures than any earlier period: draw them.
	ch.src = rs.state[i]
	for j := len(ds); ; j++ {
		if j == maxSimFailures {
			return fmt.Errorf("more than %d failures in one run (period %v, law %v)", maxSimFailures, period, rs.law)
		}
		d := rs.law.Rand(ch.gen)
		if !(d >= 0) || math.IsInf(d, 0) {
			return badRunningTime(j, d)
		}
		if ch.kept < ch.keep {
			ch.kept++
			ds = append(ds, d)
			rs.draws[i], rs.state[i] = ds, ch.src
		}
		if _, completed := p.feed([]float64{d}); completed {
			return nil
		}
	}
}

// pack lays the draws kept out in one array, in run order, once an eighth
// of them or more were drawn since the last time: a replay then reads them
// as one stream instead of jumping between the runs' own slices (twice as
// fast on the what-if's 20 000 runs). Amortised O(1) per draw kept.
func (rs *Runs) pack() {
	n := rs.kept()
	if n == rs.packed || 8*(n-rs.packed) < n {
		return
	}
	flat := make([]float64, 0, n)
	for i, ds := range rs.draws {
		lo := len(flat)
		flat = append(flat, ds...)
		rs.draws[i] = flat[lo:len(flat):len(flat)] // a later draw reallocates
	}
	rs.packed = n
}

// kept is the number of draws kept, over all runs.
func (rs *Runs) kept() int {
	n := 0
	for _, c := range rs.chunks {
		n += c.kept
	}
	return n
}
