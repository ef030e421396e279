package reservation

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

func bounded(t *testing.T, d distribution.Distribution) distribution.Distribution {
	t.Helper()
	x, _, err := Law(d, distribution.DefaultTailMass)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// continuousLaws are bounded laws of different shapes, in hours.
func continuousLaws(t *testing.T) map[string]distribution.Distribution {
	t.Helper()
	return map[string]distribution.Distribution{
		"uniform":       distribution.Uniform{A: 1, B: 20},
		"truncnormal":   distribution.TruncatedNormal{Mu: 8, Sigma: math.Sqrt2, A: 1, B: 20},
		"boundedpareto": distribution.BoundedPareto{L: 1, H: 20, Alpha: 2.1},
		"beta":          distribution.Beta{Alpha: 2, Beta: 2, A: 0, B: 1},
		"exponential":   bounded(t, distribution.Exponential{Rate: 1}),
		"lognormal":     bounded(t, distribution.LogNormal{Mu: 1, Sigma: 0.5}),
	}
}

func TestMonteCarloConvergesToTheorem1(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	c := Costs{Alpha: 1, Beta: 0.5, Gamma: 0.2, C: 0.3, R: 0.2}
	for name, x := range continuousLaws(t) {
		ap, err := Approximate(x, c, Mixed, 300, false)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := ExpectedCost(ap.Strategy, x, c)
		if err != nil {
			t.Fatal(err)
		}
		mean, se := MonteCarlo(ap.Strategy, c, x, 200000, rng)
		if math.Abs(mean-exact) > 4*se+1e-12 {
			t.Errorf("%s: Monte Carlo %v ± %v, Theorem 1 %v", name, mean, se, exact)
		}
		if math.Abs(ap.Cost-exact) > 1e-9*exact {
			t.Errorf("%s: Approximate reports %v, Theorem 1 %v", name, ap.Cost, exact)
		}
	}
}

// Algorithm 1's grid must deliver a plan within (1+ε) of the optimum. The
// optimum is bounded from below by the certified lower bound of a much finer
// grid, so cost ≤ (1+ε)·LB_fine is a strictly stronger check.
func TestApproximationGuaranteeAgainstFineLowerBound(t *testing.T) {
	c := ReservationOnly(1, 1)
	for name, x := range continuousLaws(t) {
		fine, err := Approximate(x, c, Mixed, 4000, true)
		if err != nil {
			t.Fatal(err)
		}
		if fine.LowerBound > fine.Cost || fine.LowerBound <= 0 {
			t.Fatalf("%s: lower bound %v vs cost %v", name, fine.LowerBound, fine.Cost)
		}
		for _, eps := range []float64{0.5, 1, 2, 4} {
			n, _, err := GridSize(x, c, eps)
			if err != nil {
				t.Fatal(err)
			}
			if n > 4000 {
				continue
			}
			ap, err := Approximate(x, c, Mixed, n, true)
			if err != nil {
				t.Fatal(err)
			}
			if ap.Cost > (1+eps)*fine.LowerBound {
				t.Errorf("%s ε=%v n=%d: cost %v exceeds (1+ε)×%v", name, eps, n, ap.Cost, fine.LowerBound)
			}
			// Every grid's lower bound is below every plan's cost.
			if ap.LowerBound > fine.Cost*(1+1e-12) {
				t.Errorf("%s ε=%v: lower bound %v above the fine plan's cost %v", name, eps, ap.LowerBound, fine.Cost)
			}
		}
	}
}

// On a grid of n = m·τ points, the periodic strategy with τ chunks uses grid
// milestones only, so DYN-PROG-COUNT (and ALL-CKPT or NO-CKPT, in their
// classes) can never cost more on X (Lemma 3).
func TestDynProgCountBeatsPeriodicOnTheSameGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for name, x := range continuousLaws(t) {
		a, b := x.Support()
		for range 5 {
			c := randomCosts(rng)
			c.C, c.R = c.C*(b-a)/10, c.R*(b-a)/10
			tau := 1 + rng.IntN(40)
			n := tau * (1 + rng.IntN(30))
			for _, ckpt := range []bool{true, false} {
				per, err := ExpectedCost(Periodic(a, b, tau, ckpt), x, c)
				if err != nil {
					t.Fatal(err)
				}
				classes := []Class{Mixed, NoCkpt}
				if ckpt {
					classes = []Class{Mixed, AllCkpt}
				}
				for _, cl := range classes {
					ap, err := Approximate(x, c, cl, n, true)
					if err != nil {
						t.Fatal(err)
					}
					if ap.Cost > per*(1+1e-9) {
						t.Errorf("%s %v n=%d: DP %v > periodic(τ=%d, ckpt=%v) %v", name, cl, n, ap.Cost, tau, ckpt, per)
					}
					if ap.LowerBound > per*(1+1e-9) {
						t.Errorf("%s: lower bound %v above a feasible strategy's cost %v", name, ap.LowerBound, per)
					}
				}
			}
		}
	}
}

func TestGridSize(t *testing.T) {
	// Exponential(1) cut at Q(1−1e−7) = 16.118 h, C = R = 0.1 h, ε = 0.1:
	// min(max(0, 0.1·E[X]/3), 0.1, 0.1) = 0.0333 → c0 = 3·16.118/0.0333.
	x := bounded(t, distribution.Exponential{Rate: 1})
	_, b := x.Support()
	n, c0, err := GridSize(x, ReservationOnly(0.1, 0.1), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	want := 3 * b / (0.1 * x.Mean() / 3)
	if math.Abs(c0-want) > 1e-9*want || n != int(math.Ceil(want/0.1)) {
		t.Errorf("c0 = %v, n = %d; want %v, %v", c0, n, want, math.Ceil(want/0.1))
	}
	// γ > 0 bounds c0 by 3(b − a)(α+β)/γ even when checkpoints are free.
	if _, c0, err := GridSize(x, Costs{Alpha: 1, Gamma: 2}, 1); err != nil || math.Abs(c0-3*b/2) > 1e-9 {
		t.Errorf("c0 = %v, %v; want %v", c0, err, 3*b/2)
	}
	if _, _, err := GridSize(x, ReservationOnly(0, 0), 1); err == nil {
		t.Error("free checkpoints with γ = 0 accepted")
	}
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, _, err := GridSize(x, ReservationOnly(1, 1), eps); err == nil {
			t.Errorf("ε = %v accepted", eps)
		}
	}
	if _, _, err := GridSize(distribution.Exponential{Rate: 1}, ReservationOnly(1, 1), 1); err == nil {
		t.Error("unbounded law accepted")
	}
}

func TestExpectedCostRejectsUncoveredStrategies(t *testing.T) {
	x := distribution.Uniform{A: 1, B: 20}
	_, err := ExpectedCost(Strategy{{Milestone: 10}}, x, ReservationOnly(1, 1))
	if !errors.Is(err, ErrNotCovered) {
		t.Fatalf("err = %v, want ErrNotCovered", err)
	}
}

func TestPlanNeverLosesToItsBaselines(t *testing.T) {
	for name, x := range continuousLaws(t) {
		res, err := Plan(x, Options{Costs: ReservationOnly(0.1, 0.1), Epsilon: 1, Baselines: true, LowerBound: true, MaxTau: 200})
		if err != nil {
			t.Fatal(err)
		}
		if res.LowerBound > res.ExpectedCost || res.Omniscient > res.LowerBound*(1+1e-12) {
			t.Errorf("%s: omniscient %v ≤ lower bound %v ≤ cost %v violated", name, res.Omniscient, res.LowerBound, res.ExpectedCost)
		}
		for _, bl := range res.Baselines {
			if bl.ExpectedCost < res.LowerBound*(1-1e-12) {
				t.Errorf("%s: baseline %s costs %v, below the certified lower bound %v", name, bl.Name, bl.ExpectedCost, res.LowerBound)
			}
		}
		total := 0.0
		for _, r := range res.Reservations {
			total += r.Length
		}
		if res.Reservations[0].ProbNeeded != 1 || res.Strategy.Last() < res.Hi*(1-1e-12) {
			t.Errorf("%s: plan does not start certain or does not reach the top of the support", name)
		}
	}
}

func TestLawTruncation(t *testing.T) {
	x, cut, err := Law(distribution.Normal{Mu: 10, Sigma: 1}, 1e-7)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := x.Support()
	if lo < 0 || math.IsInf(hi, 0) || math.Abs(cut-2e-7) > 1e-12 {
		t.Fatalf("support [%v, %v], cut %v", lo, hi, cut)
	}
	if _, _, err := Law(distribution.Normal{Mu: 1, Sigma: 1}, 1e-7); err == nil {
		t.Error("a law with P(X<0) = 0.16 was accepted")
	}
	if y, cut, err := Law(distribution.Uniform{A: 1, B: 2}, 1e-7); err != nil || cut != 0 || y != (distribution.Uniform{A: 1, B: 2}) {
		t.Errorf("bounded law changed: %v %v %v", y, cut, err)
	}
	if _, cut, _ := Law(distribution.Exponential{Rate: 2}, 1e-5); math.Abs(cut-1e-5) > 1e-12 {
		t.Errorf("exponential cut %v, want 1e-5", cut)
	}
}
