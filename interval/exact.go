package interval

import "math"

// ExactWallclockExp is the exact expected wall-clock time of a task of
// work te checkpointed every `period` of work at cost c and restarted at
// cost r, under exponential failures of mean mtbf that strike at any time:
// during work, during a checkpoint and during a restart.
//
// The model: n = IntervalsForPeriod(te, period) − 1 checkpoints split the
// work into n blocks of period + c and a last interval of
// ℓ = te − n·period with no checkpoint after it. Failures are a Poisson
// process of rate λ = 1/mtbf on the wall clock. A failure loses the work
// and the checkpoint in progress since the last completed checkpoint (the
// task's start before the first one) and is followed by a restart of cost
// r, which a failure may also interrupt (the restart then begins again).
// Every failure, including one before the first checkpoint, costs a
// restart. A block of length W then takes, in expectation,
//
//	E(W) = (e^{λW} − 1)·(1/λ + E(R)),  E(R) = (e^{λr} − 1)/λ,
//
// (renewal at each failure: E = W·e^{−λW} + ∫₀^W (t + E(R) + E) λe^{−λt} dt),
// so that
//
//	E(Tw) = e^{λr}/λ · [ n·(e^{λ(period+c)} − 1) + (e^{λℓ} − 1) ].
//
// For equal intervals (period = te/x) this is
// e^{λr}/λ·[(x−1)(e^{λ(te/x+c)} − 1) + e^{λte/x} − 1]. λ → 0 (mtbf = +Inf)
// gives te + n·c. Eq. (4) (with E(Y) = λ·te) is the first-order expansion
// in λ of the replay form below except for the failures during the n
// checkpoints, λ·n·c·(period + c/2 + r), which it leaves out. The result overflows to +Inf when λ·(period+c) exceeds
// about 709. NaN for invalid arguments. O(1).
func ExactWallclockExp(te, period, c, r, mtbf float64) float64 {
	return exactExp(te, period, c, r, mtbf, true)
}

// ExactWallclockReplayExp is the same expectation under the model of Replay
// and Simulate with exponential running times between failures: failures
// strike during work and checkpoints (the running clock) but not during a
// restart, which always costs exactly r. A block of length W then takes
// (e^{λW} − 1)·(1/λ + r), and
//
//	E(Tw) = (1/λ + r) · [ n·(e^{λ(period+c)} − 1) + (e^{λℓ} − 1) ].
//
// It is below ExactWallclockExp by the failures that restarts would see.
// O(1).
func ExactWallclockReplayExp(te, period, c, r, mtbf float64) float64 {
	return exactExp(te, period, c, r, mtbf, false)
}

func exactExp(te, period, c, r, mtbf float64, restartExposed bool) float64 {
	if !(te > 0) || math.IsInf(te, 0) || !(period > 0) || !(c > 0) || math.IsInf(c, 0) ||
		!(r >= 0) || math.IsInf(r, 0) || !(mtbf > 0) {
		return math.NaN()
	}
	n := IntervalsForPeriod(te, math.Min(period, te)) - 1
	if n == 0 {
		period = te
	}
	last := te - float64(n)*period
	if math.IsInf(mtbf, 1) {
		return te + float64(n)*c
	}
	l := 1 / mtbf
	// expm1(λW)/λ keeps its digits when λW is small. Without checkpoints
	// (n = 0) c plays no part: 0·e^{λ(period+c)} was NaN once it overflowed.
	blocks := math.Expm1(l*last) / l
	if n > 0 {
		blocks += float64(n) * math.Expm1(l*(period+c)) / l
	}
	if restartExposed {
		return math.Exp(l*r) * blocks
	}
	return (1 + l*r) * blocks
}
