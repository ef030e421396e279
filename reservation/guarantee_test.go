package reservation

import (
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// paperC0 is line 2 of Algorithm 1 written out again from the paper, as an
// oracle independent of GridSize:
// c0 = 3(b − a)·min(1/min(max(a, εE[X]/3), R, C), (α + β)/γ).
func paperC0(a, b, mean float64, c Costs, eps float64) float64 {
	m := math.Min(math.Min(math.Max(a, eps*mean/3), c.R), c.C)
	first, second := math.Inf(1), math.Inf(1)
	if m > 0 {
		first = 1 / m
	}
	if c.Gamma > 0 {
		second = (c.Alpha + c.Beta) / c.Gamma
	}
	return 3 * (b - a) * math.Min(first, second)
}

// pointsFor is line 3 of Algorithm 1, n = ⌈c0/ε⌉, with the oracle c0.
func pointsFor(x distribution.Distribution, c Costs, eps float64) float64 {
	a, b := x.Support()
	return math.Ceil(paperC0(a, b, x.Mean(), c, eps) / eps)
}

// guaranteeCases are bounded laws (hours) and cost models where each branch
// of c0 binds for some ε: εE[X]/3, R or C, a > 0, and γ.
func guaranteeCases(t *testing.T) []struct {
	name string
	x    distribution.Distribution
	c    Costs
} {
	return []struct {
		name string
		x    distribution.Distribution
		c    Costs
	}{
		{"uniform", distribution.Uniform{A: 0, B: 20}, ReservationOnly(1, 1)},
		{"uniform-a", distribution.Uniform{A: 1, B: 20}, ReservationOnly(0.1, 0.5)},
		{"exponential", bounded(t, distribution.Exponential{Rate: 1}), ReservationOnly(0.1, 0.1)},
		{"lognormal-gamma", bounded(t, distribution.LogNormal{Mu: 1, Sigma: 0.5}), Costs{Alpha: 1, Beta: 0.5, Gamma: 2, C: 0.01, R: 0.02}},
		{"boundedpareto", distribution.BoundedPareto{L: 1, H: 20, Alpha: 2.1}, Costs{Alpha: 1, Gamma: 0.001, C: 0.3, R: 0.3}},
	}
}

// Guarantee(n) is the smallest ε for which Algorithm 1 asks for at most n
// points: n suffices at ε, and a slightly smaller ε needs more than n.
func TestGuaranteeIsTheSmallestEpsilonForNPoints(t *testing.T) {
	for _, tc := range guaranteeCases(t) {
		for _, n := range []int{1, 2, 7, 60, 500, 2000, 20000, 1 << 30} {
			eps, c0, err := Guarantee(tc.x, tc.c, n)
			if err != nil {
				t.Fatalf("%s n=%d: %v", tc.name, n, err)
			}
			a, b := tc.x.Support()
			if want := paperC0(a, b, tc.x.Mean(), tc.c, eps); math.Abs(c0-want) > 1e-12*want {
				t.Errorf("%s n=%d: c0 %v, want c0(ε=%v) = %v", tc.name, n, c0, eps, want)
			}
			if got := pointsFor(tc.x, tc.c, eps); got > float64(n) {
				t.Errorf("%s n=%d: ε=%v needs %v points", tc.name, n, eps, got)
			}
			if got := pointsFor(tc.x, tc.c, eps*(1-1e-9)); got <= float64(n) {
				t.Errorf("%s n=%d: ε=%v is not the smallest: %v also needs only %v points", tc.name, n, eps, eps*(1-1e-9), got)
			}
			if g, _, err := GridSize(tc.x, tc.c, eps); err != nil || g > n {
				t.Errorf("%s n=%d: GridSize(ε=%v) = %d, %v", tc.name, n, eps, g, err)
			}
		}
	}
	if _, _, err := Guarantee(distribution.Uniform{A: 0, B: 1}, ReservationOnly(0, 1), 100); err == nil {
		t.Error("C = 0 and γ = 0 gave a finite guarantee")
	}
	if _, _, err := Guarantee(distribution.Uniform{A: 0, B: 1}, ReservationOnly(1, 1), 0); err == nil {
		t.Error("n = 0 accepted")
	}
}

// Plan reports the guarantee its grid achieves: at most the requested ε
// when the grid is the requested one or finer (the DefaultMinN floor), more
// when MaxN caps it, and for an explicit N the smallest ε that N points
// satisfy. The old report, c0(ε requested)/n, claimed ε = 0.03 for the
// uniform law below with C = R = 1 h on its 2000-point floor, where
// Algorithm 1 needs 20 000 points for that ε.
func TestPlanReportsTheAchievedGuarantee(t *testing.T) {
	for _, tc := range guaranteeCases(t) {
		for _, eps := range []float64{0.1, 0.5, 1, 2} {
			for _, maxN := range []int{5000, 300} {
				res, err := Plan(tc.x, Options{Costs: tc.c, Epsilon: eps, MaxN: maxN, MaxTau: 10})
				if err != nil {
					t.Fatal(err)
				}
				if need := pointsFor(tc.x, tc.c, res.Epsilon); need > float64(res.N) {
					t.Errorf("%s ε=%v: reports ε'=%v on %d points, which needs %v", tc.name, eps, res.Epsilon, res.N, need)
				}
				if pointsFor(tc.x, tc.c, res.Epsilon*(1-1e-9)) <= float64(res.N) {
					t.Errorf("%s ε=%v: ε'=%v on %d points is not the tightest", tc.name, eps, res.Epsilon, res.N)
				}
				if !res.Capped && res.Epsilon > eps {
					t.Errorf("%s ε=%v: uncapped grid of %d points reports ε'=%v > ε", tc.name, eps, res.N, res.Epsilon)
				}
				if res.Capped != (pointsFor(tc.x, tc.c, eps) > float64(res.N)) {
					t.Errorf("%s ε=%v: capped = %v on %d points where ε needs %v", tc.name, eps, res.Capped, res.N, pointsFor(tc.x, tc.c, eps))
				}
				if res.Capped && !(res.Epsilon > eps) {
					t.Errorf("%s ε=%v: capped grid of %d points reports ε'=%v <= ε", tc.name, eps, res.N, res.Epsilon)
				}
			}
		}
		for _, n := range []int{3, 40, 250} {
			res, err := Plan(tc.x, Options{Costs: tc.c, N: n, MaxTau: 10})
			if err != nil {
				t.Fatal(err)
			}
			if res.N != n || pointsFor(tc.x, tc.c, res.Epsilon) > float64(n) || pointsFor(tc.x, tc.c, res.Epsilon*(1-1e-9)) <= float64(n) {
				t.Errorf("%s N=%d: grid %d, ε'=%v", tc.name, n, res.N, res.Epsilon)
			}
		}
	}
	res, err := Plan(distribution.Uniform{A: 0, B: 20}, Options{Costs: ReservationOnly(1, 1), Epsilon: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != DefaultMinN || res.Epsilon <= 0.03 || res.Epsilon > 1 {
		t.Errorf("uniform floor: %d points, ε' = %v (want in (0.03, 1])", res.N, res.Epsilon)
	}
}

// The reported guarantee holds: the plan on a coarse grid costs at most
// GuaranteeFactor(ε') times the optimum, bounded below by the certified
// lower bound of a much finer grid.
func TestReportedGuaranteeHoldsAgainstAFineLowerBound(t *testing.T) {
	for _, tc := range guaranteeCases(t) {
		fine, err := Approximate(tc.x, tc.c, Mixed, 4000, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 10, 50, 200} {
			res, err := Plan(tc.x, Options{Costs: tc.c, N: n, MaxTau: 10})
			if err != nil {
				t.Fatal(err)
			}
			if f := GuaranteeFactor(res.Epsilon); res.ExpectedCost > f*fine.LowerBound {
				t.Errorf("%s n=%d: cost %v > %v × lower bound %v", tc.name, n, res.ExpectedCost, f, fine.LowerBound)
			}
		}
	}
}

func TestGuaranteeFactor(t *testing.T) {
	for eps, want := range map[float64]float64{0.5: 1.5, 1: 2, 3: 4, 6: 9, 30: 121} {
		if got := GuaranteeFactor(eps); math.Abs(got-want) > 1e-12 {
			t.Errorf("GuaranteeFactor(%v) = %v, want %v", eps, got, want)
		}
	}
}

// Laws that reach beyond MaxWalltime once truncated, or only 0, are
// refused with an error naming them; the formatters never see them.
func TestLawRefusesHugeAndNullSupports(t *testing.T) {
	for _, tc := range []struct {
		d    distribution.Distribution
		nu   float64
		want string
	}{
		{distribution.Exponential{Rate: 1e-300}, 1e-7, "1.61e+301"},
		{distribution.Pareto{Xm: 3600, Alpha: 0.8}, 1e-7, "2.02e+12"},
		{distribution.Uniform{A: 0, B: 2e10}, 1e-7, "2e+10"},
		{distribution.LogNormal{Mu: 8, Sigma: 3}, 1e-7, "1.77e+10"},
	} {
		_, _, err := Law(tc.d, tc.nu)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "1e+10") {
			t.Errorf("%v: err = %v, want one naming %s and the limit", tc.d, err, tc.want)
		}
		if _, err := Plan(tc.d, Options{Costs: ReservationOnly(600, 600), Epsilon: 1}); err == nil {
			t.Errorf("%v: Plan accepted it", tc.d)
		}
	}
	// The same Pareto cut at Q(1 − 10⁻⁴) = 3.6·10⁸ s is plannable.
	if _, _, err := Law(distribution.Pareto{Xm: 3600, Alpha: 0.8}, 1e-4); err != nil {
		t.Error(err)
	}
	d, _ := distribution.NewDiscrete([]float64{0}, []float64{1})
	if _, _, err := Law(d, 1e-7); err == nil || !strings.Contains(err.Error(), "0") {
		t.Errorf("point mass at 0: err = %v", err)
	}
}

func TestPlanRefusesOverflowingCostsAndHugeGrids(t *testing.T) {
	x := distribution.Uniform{A: 0, B: 1e6}
	if _, err := Plan(x, Options{Costs: Costs{Alpha: 1e308, C: 1, R: 1}, N: 50}); err == nil || !strings.Contains(err.Error(), "1e+308") {
		t.Errorf("alpha = 1e308: err = %v", err)
	}
	if _, err := Evaluate(x, Strategy{{Milestone: 1e6}}, Options{Costs: Costs{Alpha: 1, Beta: 1e308, C: 1, R: 1}}); err == nil {
		t.Error("Evaluate with beta = 1e308 accepted")
	}
	// The omniscient cost 1.7e302 × 5e5 is finite, the plan's own cost
	// 1.7e302 × (1e6 + C) is not.
	if _, err := Evaluate(x, Strategy{{Milestone: 1e6, Checkpoint: true}}, Options{Costs: Costs{Alpha: 1.7e302, C: 1e5, R: 1}}); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("alpha = 1.7e302: err = %v", err)
	}
	if _, err := Plan(x, Options{Costs: ReservationOnly(1, 1), N: MaxGridPoints + 1}); err == nil {
		t.Error("N above MaxGridPoints accepted")
	}
}

// The omniscient cost bounds every strategy from below, so the certified
// bound is never weaker than it (a coarse capped grid's own bound can be).
func TestLowerBoundIsAtLeastOmniscient(t *testing.T) {
	x := bounded(t, distribution.Pareto{Xm: 60, Alpha: 0.9})
	res, err := Plan(x, Options{Costs: ReservationOnly(600, 600), N: 300, LowerBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.LowerBound < res.Omniscient || res.LowerBound > res.ExpectedCost {
		t.Errorf("lower bound %v, omniscient %v, cost %v", res.LowerBound, res.Omniscient, res.ExpectedCost)
	}
}
