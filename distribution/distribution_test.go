package distribution

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// familyCases are the Table 1 instantiations (in hours) plus shapes that
// stress other regimes: densities infinite at 0, skewed betas, α = 1 for
// the bounded Pareto, far-tail truncated normals.
func familyCases() []struct {
	name string
	d    Distribution
} {
	return []struct {
		name string
		d    Distribution
	}{
		{"exponential", Exponential{Rate: 1}},
		{"weibull", Weibull{K: 0.5, Lambda: 1}},
		{"weibull-k2.5", Weibull{K: 2.5, Lambda: 3}},
		{"gamma", Gamma{Alpha: 2, Beta: 2}},
		{"gamma-a0.5", Gamma{Alpha: 0.5, Beta: 3}},
		{"lognormal", LogNormal{Mu: 3, Sigma: 0.5}},
		{"pareto", Pareto{Xm: 1.5, Alpha: 3}},
		{"truncnormal", TruncatedNormal{Mu: 8, Sigma: math.Sqrt2, A: 1, B: 20}},
		{"truncnormal-tail", TruncatedNormal{Mu: 0, Sigma: 1, A: 10, B: 12}},
		{"truncnormal-lowtail", TruncatedNormal{Mu: 30, Sigma: 2, A: 1, B: 5}},
		{"truncnormal-narrow", TruncatedNormal{Mu: 100, Sigma: 10, A: 99, B: 102}},
		{"uniform", Uniform{A: 1, B: 20}},
		{"beta", Beta{Alpha: 2, Beta: 2, A: 0, B: 1}},
		{"beta-skew", Beta{Alpha: 0.7, Beta: 3, A: 2, B: 5}},
		{"boundedpareto", BoundedPareto{L: 1, H: 20, Alpha: 2.1}},
		{"boundedpareto-a1", BoundedPareto{L: 1, H: 20, Alpha: 1}},
		{"normal", Normal{Mu: 7511, Sigma: 865}},
	}
}

// integrate is ∫_a^b f by 20-point Gauss–Legendre on 200 panels, geometric
// when [a, b] spans decades. It is the independent oracle for CDFs and
// means; it never calls the code under test except through f.
func integrate(f func(float64) float64, a, b float64) float64 {
	const panels = 200
	if !(b > a) {
		return 0
	}
	geometric := a > 0 && b/a > 10
	var sum float64
	for k := range panels {
		var x0, x1 float64
		if geometric {
			r := math.Log(b / a)
			x0, x1 = a*math.Exp(r*float64(k)/panels), a*math.Exp(r*float64(k+1)/panels)
		} else {
			x0, x1 = a+(b-a)*float64(k)/panels, a+(b-a)*float64(k+1)/panels
		}
		if k == panels-1 {
			x1 = b
		}
		sum += quad.Fixed(f, x0, x1, 20, quad.Legendre{}, 0)
	}
	return sum
}

// integrateFromEnd is ∫_a^b f with the substitution x = a + (b−a)u⁴, which
// makes integrable end singularities such as x^{−1/2} at a smooth.
func integrateFromEnd(f func(float64) float64, a, b float64) float64 {
	w := b - a
	return integrate(func(u float64) float64 {
		return f(a+w*u*u*u*u) * 4 * w * u * u * u
	}, 0, 1)
}

// lowerEnd returns a point below which the law has negligible mass: the
// support's lower end, or μ − 40σ for the normal.
func lowerEnd(d Distribution) float64 {
	lo, _ := d.Support()
	if math.IsInf(lo, -1) {
		n := d.(Normal)
		return n.Mu - 40*n.Sigma
	}
	return lo
}

var checkProbs = []float64{1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-6}

func TestFamiliesValidate(t *testing.T) {
	for _, c := range familyCases() {
		if err := validate(c.d); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestCDFIsIntegralOfPDF checks F(x) against ∫ f from the lower end of the
// support (with a u⁴ substitution near the end, where some densities are
// infinite), and S(x) against ∫ f from x to the upper end.
func TestCDFIsIntegralOfPDF(t *testing.T) {
	for _, c := range familyCases() {
		d := c.d
		lo := lowerEnd(d)
		x1 := d.Quantile(0.001)
		head := integrateFromEnd(d.PDF, lo, x1)
		if e := relErr(d.CDF(x1), head); e > 1e-8 {
			t.Errorf("%s: CDF(%v) = %v, ∫pdf = %v (rel err %.2g)", c.name, x1, d.CDF(x1), head, e)
		}
		for _, p := range checkProbs[1:] {
			x := d.Quantile(p)
			want := head + integrate(d.PDF, x1, x)
			if x < x1 {
				want = integrateFromEnd(d.PDF, lo, x)
			}
			if e := math.Abs(d.CDF(x) - want); e > 1e-9*math.Max(want, 1e-3) {
				t.Errorf("%s: CDF(%v) = %.15g, ∫pdf = %.15g", c.name, x, d.CDF(x), want)
			}
		}
		_, hi := d.Support()
		if !math.IsInf(hi, 1) {
			x := d.Quantile(0.999)
			want := integrateFromEnd(func(y float64) float64 { return d.PDF(hi - (y - x)) }, x, hi)
			if e := relErr(d.Survival(x), want); e > 1e-8 {
				t.Errorf("%s: Survival(%v) = %v, ∫pdf = %v (rel err %.2g)", c.name, x, d.Survival(x), want, e)
			}
		}
	}
}

func TestQuantileInvertsCDF(t *testing.T) {
	for _, c := range familyCases() {
		d := c.d
		for _, p := range checkProbs {
			x := d.Quantile(p)
			lo, hi := d.Support()
			if !(x >= lo && x <= hi) {
				t.Errorf("%s: Quantile(%v) = %v outside [%v, %v]", c.name, p, x, lo, hi)
				continue
			}
			if got := d.CDF(x); math.Abs(got-p) > 1e-10*math.Max(p, 1e-3) && relErr(got, p) > 1e-9 {
				t.Errorf("%s: CDF(Quantile(%v)) = %v", c.name, p, got)
			}
			if got := d.Quantile(d.CDF(x)); relErr(got, x) > 1e-8 && math.Abs(got-x) > 1e-12 {
				t.Errorf("%s: Quantile(CDF(%v)) = %v", c.name, x, got)
			}
			q := 1 - p
			xs := invSurvival(d, q)
			if relErr(xs, x) > 1e-8 && math.Abs(xs-x) > 1e-12 {
				t.Errorf("%s: InvSurvival(%v) = %v, Quantile(%v) = %v", c.name, q, xs, p, x)
			}
		}
		// Far upper tail through InvSurvival: Survival(InvSurvival(q)) = q.
		for _, q := range []float64{1e-7, 1e-12} {
			x := invSurvival(d, q)
			if _, hi := d.Support(); !math.IsInf(hi, 1) {
				continue
			}
			if got := d.Survival(x); relErr(got, q) > 1e-6 {
				t.Errorf("%s: Survival(InvSurvival(%v)) = %v", c.name, q, got)
			}
		}
		for _, p := range []float64{-0.1, 1.1, math.NaN()} {
			if !math.IsNaN(d.Quantile(p)) {
				t.Errorf("%s: Quantile(%v) = %v, want NaN", c.name, p, d.Quantile(p))
			}
		}
	}
}

func TestCDFPlusSurvivalIsOne(t *testing.T) {
	for _, c := range familyCases() {
		d := c.d
		lo, hi := d.Support()
		xs := []float64{lo - 1, hi + 1}
		for _, p := range checkProbs {
			xs = append(xs, d.Quantile(p))
		}
		for _, x := range xs {
			if s := d.CDF(x) + d.Survival(x); math.Abs(s-1) > 1e-14 {
				t.Errorf("%s: CDF+Survival at %v = %v", c.name, x, s)
			}
		}
	}
}

// TestMeanIsIntegral compares Mean with ∫ x f(x) dx (the upper tail cut
// where the survival is 10⁻¹⁴).
func TestMeanIsIntegral(t *testing.T) {
	for _, c := range familyCases() {
		d := c.d
		lo := lowerEnd(d)
		_, hi := d.Support()
		xf := func(x float64) float64 { return x * d.PDF(x) }
		mid := d.Quantile(0.5)
		want := integrateFromEnd(xf, lo, mid)
		if math.IsInf(hi, 1) {
			want += integrate(xf, mid, invSurvival(d, 1e-14))
		} else {
			want += integrateFromEnd(func(y float64) float64 { return xf(hi - (y - mid)) }, mid, hi)
		}
		if e := relErr(d.Mean(), want); e > 1e-7 {
			t.Errorf("%s: Mean = %v, ∫x f = %v (rel err %.2g)", c.name, d.Mean(), want, e)
		}
	}
}

// TestSampleMean draws 200 000 values and requires the sample mean within
// five standard errors of Mean, every draw inside the support, and the
// Kolmogorov–Smirnov distance to the CDF below 1.95/√n (the 0.1% critical
// value), so that Rand and CDF describe the same law.
func TestSampleMean(t *testing.T) {
	const n = 200000
	for i, c := range familyCases() {
		d := c.d
		r := rand.New(rand.NewPCG(uint64(i), 42))
		lo, hi := d.Support()
		var sum, sumSq float64
		xs := make([]float64, n)
		for i := range xs {
			x := d.Rand(r)
			xs[i] = x
			if !(x >= lo && x <= hi) {
				t.Fatalf("%s: draw %v outside [%v, %v]", c.name, x, lo, hi)
			}
			sum += x
			sumSq += x * x
		}
		m := sum / n
		se := math.Sqrt((sumSq/n - m*m) / n)
		if math.Abs(m-d.Mean()) > 5*se {
			t.Errorf("%s: sample mean %v, Mean %v, 5 SE = %v", c.name, m, d.Mean(), 5*se)
		}
		slices.Sort(xs)
		if ks := KSStatistic(d, xs); ks > 1.95/math.Sqrt(n) {
			t.Errorf("%s: KS distance of draws to CDF %v", c.name, ks)
		}
	}
}

func TestRandIsReproducible(t *testing.T) {
	for _, c := range familyCases() {
		a := rand.New(rand.NewPCG(7, 9))
		b := rand.New(rand.NewPCG(7, 9))
		for range 5 {
			if x, y := c.d.Rand(a), c.d.Rand(b); x != y {
				t.Errorf("%s: same seed gave %v and %v", c.name, x, y)
			}
		}
	}
}

func TestLogPDFMatchesPDF(t *testing.T) {
	for _, c := range familyCases() {
		lp := c.d.(logPDFer)
		for _, p := range checkProbs {
			x := c.d.Quantile(p)
			if got, want := lp.LogPDF(x), math.Log(c.d.PDF(x)); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: LogPDF(%v) = %v, log PDF = %v", c.name, x, got, want)
			}
		}
		lo, _ := c.d.Support()
		if c.d.PDF(lo-1) != 0 || !math.IsInf(lp.LogPDF(lo-1), -1) {
			t.Errorf("%s: density below the support is %v", c.name, c.d.PDF(lo-1))
		}
	}
}

func TestValidateRejects(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	bad := []struct {
		d    validator
		want string // the message must name the offending value
	}{
		{Exponential{Rate: -1}, "rate must be > 0 and finite, got -1"},
		{Exponential{Rate: inf}, "got +Inf"},
		{Weibull{K: -1, Lambda: 1}, "weibull: k must be > 0 and finite, got -1"},
		{Weibull{K: 1, Lambda: 0}, "lambda must be > 0 and finite, got 0"},
		{Gamma{Alpha: nan, Beta: 1}, "alpha must be > 0 and finite, got NaN"},
		{Gamma{Alpha: 1, Beta: -2}, "beta must be > 0 and finite, got -2"},
		{LogNormal{Mu: inf, Sigma: 1}, "mu must be finite, got +Inf"},
		{LogNormal{Mu: 0, Sigma: 0}, "sigma must be > 0 and finite, got 0"},
		{Pareto{Xm: 0, Alpha: 1}, "xm must be > 0"},
		{TruncatedNormal{Mu: 0, Sigma: 1, A: 2, B: 1}, "need a < b, got a=2, b=1"},
		{TruncatedNormal{Mu: 0, Sigma: -1, A: 0, B: 1}, "sigma must be > 0 and finite, got -1"},
		{Uniform{A: 1, B: 1}, "uniform: need a < b, got a=1, b=1"},
		{Beta{Alpha: 2, Beta: 2}, "beta: need a < b, got a=0, b=0"},
		{Beta{Alpha: 0, Beta: 2, A: 0, B: 1}, "alpha must be > 0 and finite, got 0"},
		{BoundedPareto{L: 2, H: 1, Alpha: 1}, "need l < h, got l=2, h=1"},
		{BoundedPareto{L: 1, H: 2, Alpha: -3}, "alpha must be > 0 and finite, got -3"},
		{Normal{Mu: 0, Sigma: nan}, "sigma must be > 0 and finite, got NaN"},
	}
	for _, c := range bad {
		err := c.d.Validate()
		if err == nil {
			t.Errorf("%#v: Validate accepted", c.d)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v: error %q does not contain %q", c.d, err, c.want)
		}
	}
}
