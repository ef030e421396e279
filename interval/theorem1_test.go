package interval

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// The worked examples of the paper (Section 4.1 remark and Section 4.2.2).
func TestTheorem1WorkedExamples(t *testing.T) {
	if x := OptimalIntervals(18, 2, 2); x != 3 {
		t.Errorf("x*(18, 2, 2) = %v, want 3", x)
	}
	if n := Intervals(18, 2, 2); n != 3 {
		t.Errorf("Intervals(18, 2, 2) = %d, want 3", n)
	}
	if p := 18 / float64(Intervals(18, 2, 2)); p != 6 {
		t.Errorf("period = %v, want 6 s", p)
	}
	if n := Intervals(441, 1, 2); n != 21 {
		t.Errorf("Intervals(441, 1, 2) = %d, want 21 (20 checkpoints)", n)
	}
	// Section 4.1: exponential failures with λ = 0.00423445, C = 2 s gives
	// Young's period ≈ 30.7 s.
	if p := Young(2, 1/0.00423445); math.Abs(p-30.7) > 0.05 {
		t.Errorf("Young(2, 1/0.00423445) = %v, want 30.7", p)
	}
}

// Eq. (4) by hand for the 18 s example: 18 + 2·2 + R·2 + 18·2/6 = 28 + 2R.
func TestExpectedWallclockByHand(t *testing.T) {
	if got := ExpectedWallclock(18, 2, 0.5, 2, 3); got != 18+4+1+6 {
		t.Errorf("E(Tw) = %v, want 29", got)
	}
	if got := ExpectedWallclockPeriod(18, 2, 0.5, 2, 6); !near(got, 29, 1e-12) {
		t.Errorf("E(Tw) with period 6 = %v, want 29", got)
	}
	// Period 7 on 18: intervals 7, 7, 4: loss Σlen²/(2Te) = (49+49+16)/36.
	want := 18 + 2*2 + 0.5*2 + 2*(49+49+16)/36.0
	if got := ExpectedWallclockPeriod(18, 2, 0.5, 2, 7); !near(got, want, 1e-12) {
		t.Errorf("E(Tw) with period 7 = %v, want %v", got, want)
	}
	for _, bad := range [][5]float64{{0, 1, 1, 1, 1}, {1, 0, 1, 1, 1}, {1, 1, -1, 1, 1}, {1, 1, 1, -1, 1}, {1, 1, 1, 1, 0.5}} {
		if v := ExpectedWallclock(bad[0], bad[1], bad[2], bad[3], bad[4]); !math.IsNaN(v) {
			t.Errorf("ExpectedWallclock%v = %v, want NaN", bad, v)
		}
	}
}

// The integer x of Intervals is the minimiser of Eq. (4) found by
// exhaustive search, and x* is the real minimiser found by golden-section
// search.
func TestIntervalsMinimisesEq4(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		te := rapid.Float64Range(1, 1e6).Draw(t, "te")
		c := rapid.Float64Range(0.01, 1000).Draw(t, "c")
		ey := rapid.Float64Range(0, 50).Draw(t, "ey")
		r := rapid.Float64Range(0, 100).Draw(t, "r")
		n := Intervals(te, c, ey)
		if n < 1 {
			t.Fatalf("Intervals = %d", n)
		}
		best, bestX := math.Inf(1), 0
		limit := int(math.Sqrt(te*ey/(2*c))) + 3
		if limit > 200000 {
			limit = 200000
		}
		for x := 1; x <= limit; x++ {
			if v := ExpectedWallclock(te, c, r, ey, float64(x)); v < best*(1-1e-13) {
				best, bestX = v, x
			}
		}
		got := ExpectedWallclock(te, c, r, ey, float64(n))
		if got > best*(1+1e-12) {
			t.Fatalf("Intervals = %d costs %v, exhaustive search found %d costing %v", n, got, bestX, best)
		}
		if ey > 0 {
			xs := OptimalIntervals(te, c, ey)
			f := func(x float64) float64 { return ExpectedWallclock(te, c, r, ey, x) }
			lo, hi := 1.0, math.Max(2, 4*xs)
			xm := golden(f, lo, hi)
			// x* is at least as good as the numeric minimum, and close to
			// it (the objective is flat there: its rounding error
			// hides differences of order √ε·x*).
			if xs >= 1 && (f(xs) > f(xm)+1e-13*math.Abs(f(xm)) || math.Abs(xm-xs) > 1e-3*xs) {
				t.Fatalf("golden search minimum at %v (E=%v), x* = %v (E=%v)", xm, f(xm), xs, f(xs))
			}
		}
	})
}

func golden(f func(float64) float64, a, b float64) float64 {
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	for i := 0; i < 200 && b-a > 1e-12*math.Max(1, b); i++ {
		if f(c) < f(d) {
			b, d = d, c
			c = b - g*(b-a)
		} else {
			a, c = c, d
			d = a + g*(b-a)
		}
	}
	return (a + b) / 2
}

// Corollary 1: with E(Y) = Te/MTBF, the period Te/x* is Young's period,
// whatever Te.
func TestCorollary1(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		te := rapid.Float64Range(1, 1e7).Draw(t, "te")
		c := rapid.Float64Range(0.01, 100).Draw(t, "c")
		m := rapid.Float64Range(1, 1e6).Draw(t, "mtbf")
		p := te / OptimalIntervals(te, c, te/m)
		if !near(p, Young(c, m), 1e-12) {
			t.Fatalf("Te/x* = %v, Young = %v", p, Young(c, m))
		}
	})
}

// exactExpWallclock is the exact expected time to run one period of work
// w followed by a checkpoint C, with exponential failures of rate λ striking
// work, checkpoints and restarts alike and restart R, per unit of work:
// e^{λR}(e^{λ(w+C)} − 1)/(λ·w) (the classical renewal result).
func exactExpWallclock(w, c, r, lambda float64) float64 {
	return math.Exp(lambda*r) * math.Expm1(lambda*(w+c)) / (lambda * w)
}

// Young's and Daly's periods approach the exact optimum of the exponential
// model as C/M → 0, Daly more closely (an independent oracle: numeric
// minimisation of the exact renewal formula).
func TestYoungDalyLimitExponential(t *testing.T) {
	m := 1000.0
	prevYoung := math.Inf(1)
	for _, c := range []float64{100, 10, 1, 0.1, 0.01} {
		f := func(w float64) float64 { return exactExpWallclock(w, c, 0, 1/m) }
		opt := golden(f, 1e-3, 10*m)
		ey := math.Abs(Young(c, m)-opt) / opt
		ed := math.Abs(Daly(c, m)-opt) / opt
		if ed > ey {
			t.Errorf("C=%v: Daly error %.3g > Young error %.3g (opt %v, Young %v, Daly %v)", c, ed, ey, opt, Young(c, m), Daly(c, m))
		}
		if ey >= prevYoung {
			t.Errorf("C=%v: Young error %.3g did not shrink (was %.3g)", c, ey, prevYoung)
		}
		prevYoung = ey
		if c <= 0.01 && ey > 0.01 {
			t.Errorf("C=%v: Young error %.3g, want < 1%%", c, ey)
		}
		if ed > 0.01 {
			t.Errorf("C=%v: Daly error %.3g, want < 1%%", c, ed)
		}
	}
	if Daly(3000, 1000) != 1000 {
		t.Errorf("Daly for C >= 2M should be M")
	}
}

func TestPlanMethods(t *testing.T) {
	ms, err := Plan(Task{Te: 18, C: 2, R: 0, EY: 2, MTBF: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[2].Name != MethodMNOF || ms[2].Intervals != 3 || ms[2].Period != 6 {
		t.Fatalf("mnof plan = %+v", ms)
	}
	// MTBF = Te/E(Y) = 9: Young's period √36 = 6, the same plan (Corollary 1).
	if ms[0].Period != 6 || ms[0].Intervals != 3 || !near(ms[0].ExpectedWallclock, ms[2].ExpectedWallclock, 1e-12) {
		t.Errorf("young plan = %+v", ms[0])
	}
	for _, bad := range []Task{
		{Te: 0, C: 1, EY: 1, MTBF: math.NaN()},
		{Te: 1, C: 0, EY: 1, MTBF: math.NaN()},
		{Te: 1, C: -1, EY: 1, MTBF: math.NaN()},
		{Te: 1, C: 1, EY: -1, MTBF: math.NaN()},
		{Te: 1, C: 1, R: -1, EY: 1, MTBF: math.NaN()},
		{Te: 1, C: 1, EY: math.NaN(), MTBF: math.NaN()},
		{Te: 1, C: 1, EY: math.NaN(), MTBF: 0},
	} {
		if _, err := Plan(bad); err == nil {
			t.Errorf("Plan(%+v) accepted", bad)
		}
	}
	// No failures: one interval, no checkpoint, for every method.
	ms, err = Plan(Task{Te: 100, C: 1, EY: 0, MTBF: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Intervals != 1 || m.ExpectedWallclock != 100 {
			t.Errorf("no failure: %+v", m)
		}
	}
}
