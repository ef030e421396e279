package interval

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"
)

// TestExactWallclockByHand: te = 20 s in two intervals of 10 s, C = 1 s,
// R = 2 s, MTBF = 100 s. The first block is 11 s, the last 10 s:
// E = e^{0.02}·100·[(e^{0.11} − 1) + (e^{0.10} − 1)] = 22.592255485…, and
// without failures during restarts (102)·[…] = 22.587796830…; one interval
// without restart cost is the textbook MTBF·(e^{te/MTBF} − 1).
func TestExactWallclockByHand(t *testing.T) {
	if got := ExactWallclockExp(20, 10, 1, 2, 100); math.Abs(got-22.592255485048597) > 1e-12 {
		t.Errorf("ExactWallclockExp = %.15g, want 22.592255485048597", got)
	}
	if got := ExactWallclockReplayExp(20, 10, 1, 2, 100); math.Abs(got-22.587796830520936) > 1e-12 {
		t.Errorf("ExactWallclockReplayExp = %.15g, want 22.587796830520936", got)
	}
	if got, want := ExactWallclockExp(50, 50, 1, 0, 30), 30*(math.Exp(50.0/30)-1); math.Abs(got-want) > 1e-12*want {
		t.Errorf("one interval: %v, want %v", got, want)
	}
	// The paper's first example, Te = 18, C = 2, E(Y) = 2 (MTBF 9 s), x = 3:
	// Eq. (4) says 28 s; the exact expectation is 9·[2(e^{8/9} − 1) + e^{2/3} − 1].
	if got := ExactWallclockExp(18, 6, 2, 0, 9); math.Abs(got-34.31326454666182) > 1e-12 {
		t.Errorf("paper example: %v, want 34.31326454666182", got)
	}
	if got := ExactWallclockExp(18, 6, 2, 5, math.Inf(1)); got != 18+2*2 {
		t.Errorf("no failure: %v, want 22", got)
	}
	if got := ExactWallclockExp(18, 0, 2, 5, 9); !math.IsNaN(got) {
		t.Errorf("period 0: %v, want NaN", got)
	}
}

// TestExactWallclockEq4FirstOrder: expanding the replay form to first
// order in λ gives Eq. (4) plus the failures that strike during the n
// checkpoints, λ·n·C·(τ + C/2 + r), which Eq. (4) leaves out; after that
// term the gap shrinks like λ² (a factor 100 per decade of MTBF).
func TestExactWallclockEq4FirstOrder(t *testing.T) {
	te, c, r, x := 1000.0, 2.0, 3.0, 10
	tau, n := te/float64(x), float64(x-1)
	prev := math.NaN()
	for _, mtbf := range []float64{1e4, 1e5, 1e6} {
		l := 1 / mtbf
		e4 := ExpectedWallclock(te, c, r, te*l, float64(x))
		first := l * n * c * (tau + c/2 + r)
		gap := math.Abs(ExactWallclockReplayExp(te, tau, c, r, mtbf) - e4 - first)
		if !math.IsNaN(prev) && !(gap < prev/50) {
			t.Errorf("MTBF %v: second-order gap %v did not shrink like λ² (previous %v)", mtbf, gap, prev)
		}
		prev = gap
	}
}

// simulateWallclock is an independent event-by-event simulation of the
// model of ExactWallclockExp (exposed restarts) or of Replay (not exposed):
// Poisson failures of rate 1/mtbf on the wall clock.
func simulateWallclock(te, period, c, r, mtbf float64, exposed bool, seed uint64, runs int) (mean, se float64) {
	n := IntervalsForPeriod(te, period) - 1
	var blocks []float64
	for range n {
		blocks = append(blocks, period+c)
	}
	blocks = append(blocks, te-float64(n)*period)
	var s, s2 float64
	for i := range runs {
		g := rng.Stream(seed, uint64(i))
		var clock float64
		next := g.ExpFloat64() * mtbf // time to the next failure
		for _, w := range blocks {
			for next < w { // failure inside the block: lose it, restart
				clock += next
				next = g.ExpFloat64() * mtbf
				if exposed {
					for next < r {
						clock += next
						next = g.ExpFloat64() * mtbf
					}
				}
				clock += r
				if exposed {
					next -= r
				} else {
					next = g.ExpFloat64() * mtbf
				}
			}
			clock += w
			next -= w
		}
		s += clock
		s2 += clock * clock
	}
	mean = s / float64(runs)
	return mean, math.Sqrt((s2/float64(runs) - mean*mean) / float64(runs))
}

// TestExactWallclockMonteCarlo: both closed forms lie within 4 standard
// errors of 200 000 simulated runs, the errors being under 0.2% of the mean,
// in a regime (λ·(period+C) ≈ 0.5, R = 20% of the MTBF) where Eq. (4) is
// far off and the two models differ by several standard errors.
func TestExactWallclockMonteCarlo(t *testing.T) {
	te, period, c, r, mtbf := 600.0, 100.0, 20.0, 50.0, 240.0
	const runs = 200_000
	for _, exposed := range []bool{true, false} {
		mean, se := simulateWallclock(te, period, c, r, mtbf, exposed, 7, runs)
		want := ExactWallclockReplayExp(te, period, c, r, mtbf)
		if exposed {
			want = ExactWallclockExp(te, period, c, r, mtbf)
		}
		if se > 0.002*mean || math.Abs(mean-want) > 4*se {
			t.Errorf("exposed=%v: simulated %v ± %v, closed form %v", exposed, mean, se, want)
		}
	}
	if a, b := ExactWallclockExp(te, period, c, r, mtbf), ExactWallclockReplayExp(te, period, c, r, mtbf); !(a > b*1.01) {
		t.Errorf("exposed restarts %v should cost clearly more than %v", a, b)
	}
}

// A plan without checkpoint (one interval) does not depend on C: a C so
// large that e^{λ(period+C)} overflows made 0·(+Inf) = NaN (ckpt interval
// --memory 1e9 extrapolates C = 9.1e6 s), now refused as non-finite.
func TestExactWallclockOneIntervalIgnoresC(t *testing.T) {
	for _, f := range []func(te, period, c, r, mtbf float64) float64{ExactWallclockExp, ExactWallclockReplayExp} {
		want := f(200, 300, 1, 0, 100)
		if got := f(200, 42000, 9.07857666061822e+06, 0, 100); got != want || math.Abs(want-100*math.Expm1(2)) > 1e-9 {
			t.Errorf("got %v, want %v = 100·(e² − 1)", got, want)
		}
	}
}
