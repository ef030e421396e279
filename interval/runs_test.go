package interval

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
	"pgregory.net/rapid"
)

// meanBySimulate is the definition of MeanWallclock, written out: run i
// draws from rng.Stream(seed, 0, i) through Simulate.
func meanBySimulate(te, period, c, r float64, law distribution.Distribution, seed uint64, reps int) (float64, error) {
	s := 0.0
	for i := range reps {
		res, err := simulateOne(te, period, c, r, law, rng.Stream(seed, 0, uint64(i)))
		if err != nil {
			return 0, err
		}
		s += res.Wallclock
	}
	return s / float64(reps), nil
}

// Runs replays the draws of the definition, bit for bit, whatever the
// order of the periods (each new period may need draws no earlier one
// did) and whether the draws fit the budget or are made again.
func TestRunsMatchSimulate(t *testing.T) {
	for _, s := range whatIfLaws {
		for _, tc := range []struct{ keep, workers int }{{maxKept, 1}, {0, 1}, {37, 1}, {maxKept, 2}, {37, 3}, {maxKept, 100}} {
			keep := tc.keep
			rs, err := NewRuns(s.law, 11, 60)
			if err != nil {
				t.Fatal(err)
			}
			rs.keep, rs.Workers = keep, tc.workers
			for _, x := range []float64{40, 1, 7.3, 200, 0.5, 3, 1, 40} {
				p := s.te / x
				want, err := meanBySimulate(s.te, p, s.c, s.r, s.law, 11, 60)
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range []func() (float64, error){
					func() (float64, error) { return rs.MeanWallclock(s.te, p, s.c, s.r) },
					func() (float64, error) { return meanWallclock(s.te, p, s.c, s.r, s.law, 11, 60) },
				} {
					if g, err := got(); err != nil || math.Float64bits(g) != math.Float64bits(want) {
						t.Errorf("%s keep %d workers %d, period %v: got %v (%v), definition %v", s.name, keep, tc.workers, p, g, err, want)
					}
				}
			}
			if rs.kept() > keep {
				t.Errorf("%s: %d draws kept, budget %d", s.name, rs.kept(), keep)
			}
		}
	}
}

// An invalid draw (a negative running time) is refused by every replay
// that reaches it, with the definition's error; so is a hopeless period.
func TestRunsErrorsMatchSimulate(t *testing.T) {
	for _, tc := range []struct {
		law      distribution.Distribution
		te, p, c float64
		reps     int
	}{
		{distribution.Normal{Mu: 50, Sigma: 100}, 1000, 100, 2, 20},
		{distribution.Exponential{Rate: 1e6}, 1000, 1000, 2, 1},
	} {
		_, want := meanBySimulate(tc.te, tc.p, tc.c, 2, tc.law, 3, tc.reps)
		if want == nil {
			t.Fatalf("%v: the definition did not fail", tc.law)
		}
		for _, workers := range []int{1, 2} {
			rs, err := NewRuns(tc.law, 3, tc.reps)
			if err != nil {
				t.Fatal(err)
			}
			rs.Workers = workers
			for range 2 {
				if _, err := rs.MeanWallclock(tc.te, tc.p, tc.c, 2); err == nil || err.Error() != want.Error() {
					t.Errorf("%v, %d workers: error %v, want %v", tc.law, workers, err, want)
				}
			}
		}
		if _, err := meanWallclock(tc.te, tc.p, tc.c, 2, tc.law, 3, tc.reps); err == nil || err.Error() != want.Error() {
			t.Errorf("%v: MeanWallclock error %v, want %v", tc.law, err, want)
		}
	}
	if _, err := NewRuns(distribution.Exponential{Rate: 1}, 1, 0); err == nil {
		t.Error("NewRuns accepted 0 runs")
	}
}

// BestFixed on shared runs is BestFixed.
func TestRunsBestFixedMatches(t *testing.T) {
	s := whatIfLaws[2]
	rs, err := NewRuns(s.law, 5, 50)
	if err != nil {
		t.Fatal(err)
	}
	p1, m1, err1 := rs.BestFixed(s.te, s.c, s.r, 30)
	p2, m2, err2 := bestFixed(s.te, s.c, s.r, s.law, 5, 50, 30)
	if p1 != p2 || m1 != m2 || err1 != nil || err2 != nil {
		t.Errorf("Runs.BestFixed %v %v %v, BestFixed %v %v %v", p1, m1, err1, p2, m2, err2)
	}
}

// No run is shorter than its failure-free time (the floor BestFixed prunes
// with), for every law, number of intervals and run.
func TestRunsNeverBelowFailureFree(t *testing.T) {
	for _, s := range whatIfLaws {
		rs, err := NewRuns(s.law, 13, 100)
		if err != nil {
			t.Fatal(err)
		}
		for x := 1; x <= 120; x++ {
			period := s.te / float64(x)
			floor := failureFree(s.te, period, s.c)
			if want := s.te + float64(x-1)*s.c; math.Abs(floor-want) > 1e-9*want {
				t.Fatalf("%s x=%d: failure-free time %v, want te + (x-1)C = %v", s.name, x, floor, want)
			}
			rs.split(1)
			for i := range rs.draws {
				p, err := newReplayer(s.te, period, s.c, s.r)
				if err != nil {
					t.Fatal(err)
				}
				if err := rs.replay(&rs.chunks[0], i, period, &p); err != nil {
					t.Fatal(err)
				}
				if w := p.result().Wallclock; w < floor {
					t.Fatalf("%s x=%d run %d: Tw %v below the failure-free %v", s.name, x, i, w, floor)
				}
			}
		}
	}
}

// The pruned scan finds the full scan's period and mean, bit for bit.
func TestBestFixedPruneExact(t *testing.T) {
	for _, s := range whatIfLaws {
		for _, seed := range []uint64{1, 2} {
			var got [2][2]float64
			for k, noPrune := range []bool{false, true} {
				rs, err := NewRuns(s.law, seed, 150)
				if err != nil {
					t.Fatal(err)
				}
				rs.noPrune = noPrune
				p, m, err := rs.BestFixed(s.te, s.c, s.r, 150)
				if err != nil {
					t.Fatal(err)
				}
				got[k] = [2]float64{p, m}
			}
			if got[0] != got[1] {
				t.Errorf("%s seed %d: pruned (period, mean) %v, full scan %v", s.name, seed, got[0], got[1])
			}
		}
	}
}

// RenewalMean on several workers counts the same failures as on one, and
// both count the definition's: failures of rng.Stream(seed, 1, i) during te.
func TestRenewalMeanWorkers(t *testing.T) {
	for _, s := range whatIfLaws {
		total := 0
		for i := range 50 {
			g := rng.Stream(4, 1, uint64(i))
			for tm := s.law.Rand(g); tm < s.te; tm += s.law.Rand(g) {
				total++
			}
		}
		want := float64(total) / 50
		for _, w := range []int{0, 1, 2, 3, 64} {
			if got := RenewalMeanWorkers(s.te, s.law, 4, 50, w); got != want {
				t.Errorf("%s, %d workers: %v, definition %v", s.name, w, got, want)
			}
		}
		if got := RenewalMean(s.te, s.law, 4, 50); got != want {
			t.Errorf("%s: RenewalMean %v, definition %v", s.name, got, want)
		}
	}
}

// replayInts is Replay as it was written before the replay loop was tuned
// (integer checkpoint counts converted at each use): the oracle of
// TestReplayBitIdentical.
func replayInts(te, period, c, r float64, failures []float64) ReplayResult {
	n := IntervalsForPeriod(te, math.Min(period, te)) - 1
	if n == 0 {
		period = te
	}
	last := te - float64(n)*period
	block := period + c
	var res ReplayResult
	done := 0
	for _, d := range failures {
		left := float64(n-done)*block + last
		if d >= left {
			break
		}
		k := n - done
		if q := math.Floor(d / block); q < float64(k) {
			k = int(q)
		}
		done += k
		res.Lost += d - float64(k)*block
		res.Wallclock += d + r
		res.Failures++
	}
	res.Wallclock += float64(n-done)*block + last
	res.Checkpoints = n
	return res
}

// Replay (and so Simulate and Runs, which share its loop) gives the
// integer-count arithmetic's results bit for bit.
func TestReplayBitIdentical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		te := rapid.Float64Range(1e-3, 1e7).Draw(t, "te")
		period := te / rapid.Float64Range(0.01, 5000).Draw(t, "x")
		c := rapid.Float64Range(1e-6, 1e4).Draw(t, "c")
		r := rapid.Float64Range(0, 1e4).Draw(t, "r")
		// Running times anywhere, and some a few ulps from a multiple of
		// the block (where rounding could tell two arithmetics apart).
		block := math.Min(period, te) + c
		fs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) float64 {
			if !rapid.Bool().Draw(t, "edge") {
				return rapid.Float64Range(0, 3*te).Draw(t, "d")
			}
			d := float64(rapid.IntRange(0, 60).Draw(t, "m")) * block
			for u := rapid.IntRange(-3, 3).Draw(t, "ulps"); u != 0; u -= u / max(u, -u) {
				d = math.Nextafter(d, float64(u)*math.Inf(1))
			}
			return math.Max(d, 0)
		}), 0, 40).Draw(t, "failures")
		got, err := Replay(te, period, c, r, fs)
		if err != nil {
			t.Fatal(err)
		}
		if want := replayInts(te, period, c, r, fs); got != want {
			t.Fatalf("Replay %+v, integer arithmetic %+v", got, want)
		}
	})
}
