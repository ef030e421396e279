package distribution

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

func draw(d Distribution, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Rand(r)
	}
	return xs
}

// naiveLogLik is Σ log f(x_i) through gonum's distuv densities (and, for
// the truncated normal, gonum's Normal and the textbook normaliser): an
// oracle independent of this package's LogPDF.
func naiveLogLik(d Distribution, xs []float64) float64 {
	var lp func(float64) float64
	switch d := d.(type) {
	case Normal:
		lp = distuv.Normal{Mu: d.Mu, Sigma: d.Sigma}.LogProb
	case LogNormal:
		lp = distuv.LogNormal{Mu: d.Mu, Sigma: d.Sigma}.LogProb
	case Gamma:
		lp = distuv.Gamma{Alpha: d.Alpha, Beta: d.Beta}.LogProb
	case Weibull:
		lp = distuv.Weibull{K: d.K, Lambda: d.Lambda}.LogProb
	case Exponential:
		lp = distuv.Exponential{Rate: d.Rate}.LogProb
	case Pareto:
		lp = distuv.Pareto{Xm: d.Xm, Alpha: d.Alpha}.LogProb
	case TruncatedNormal:
		n := distuv.Normal{Mu: d.Mu, Sigma: d.Sigma}
		logZ := math.Log(n.CDF(d.B) - n.CDF(d.A))
		lp = func(x float64) float64 { return n.LogProb(x) - logZ }
	}
	var s float64
	for _, x := range xs {
		s += lp(x)
	}
	return s
}

// perturbations returns d with each parameter moved by ±rel.
func perturbations(d Distribution, rel float64) []Distribution {
	var out []Distribution
	for _, f := range []float64{1 + rel, 1 - rel} {
		switch d := d.(type) {
		case Normal:
			out = append(out, Normal{d.Mu * f, d.Sigma}, Normal{d.Mu, d.Sigma * f})
		case LogNormal:
			out = append(out, LogNormal{d.Mu * f, d.Sigma}, LogNormal{d.Mu, d.Sigma * f})
		case Gamma:
			out = append(out, Gamma{d.Alpha * f, d.Beta}, Gamma{d.Alpha, d.Beta * f})
		case Weibull:
			out = append(out, Weibull{d.K * f, d.Lambda}, Weibull{d.K, d.Lambda * f})
		case Exponential:
			out = append(out, Exponential{d.Rate * f})
		case TruncatedNormal:
			out = append(out, TruncatedNormal{d.Mu + (f-1)*d.Sigma, d.Sigma, d.A, d.B}, TruncatedNormal{d.Mu, d.Sigma * f, d.A, d.B})
		}
	}
	return out
}

// TestFitRecovers draws 100 000 values from known laws and requires every
// fitted parameter within 5 asymptotic standard errors (from the Fisher
// information), and the fit to be a local maximum of the independently
// computed likelihood.
func TestFitRecovers(t *testing.T) {
	const n = 100000
	rn := math.Sqrt(n)
	cases := []struct {
		family string
		truth  Distribution
		check  func(got Distribution) []string
	}{
		{"normal", Normal{Mu: 7500, Sigma: 800}, func(g Distribution) []string {
			d := g.(Normal)
			return within(d.Mu, 7500, 800/rn, "mu", within(d.Sigma, 800, 800/math.Sqrt(2*n), "sigma", nil))
		}},
		{"lognormal", LogNormal{Mu: 8.9, Sigma: 0.3}, func(g Distribution) []string {
			d := g.(LogNormal)
			return within(d.Mu, 8.9, 0.3/rn, "mu", within(d.Sigma, 0.3, 0.3/math.Sqrt(2*n), "sigma", nil))
		}},
		{"exponential", Exponential{Rate: 1.0 / 3600}, func(g Distribution) []string {
			d := g.(Exponential)
			return within(d.Rate, 1.0/3600, 1.0/3600/rn, "rate", nil)
		}},
		{"gamma", Gamma{Alpha: 2, Beta: 2.0 / 3600}, func(g Distribution) []string {
			d := g.(Gamma)
			// Var(α̂) ≈ α/(n(αψ₁(α) − 1)).
			seA := math.Sqrt(2 / (n * (2*trigamma(2) - 1)))
			return within(d.Alpha, 2, seA, "alpha", within(d.Beta*3600, 2, 2*seA, "beta*3600", nil))
		}},
		{"gamma-tight", Gamma{Alpha: 5000, Beta: 5000.0 / 7500}, func(g Distribution) []string {
			d := g.(Gamma)
			return within(d.Alpha, 5000, 5000*math.Sqrt(2.0/n), "alpha", nil)
		}},
		{"weibull", Weibull{K: 0.5, Lambda: 3600}, func(g Distribution) []string {
			d := g.(Weibull)
			// Var(k̂) ≈ 0.608k²/n, Var(λ̂) ≈ 1.109λ²/(k²n).
			return within(d.K, 0.5, 0.5*math.Sqrt(0.608/n), "k", within(d.Lambda, 3600, 3600*math.Sqrt(1.109/n)/0.5, "lambda", nil))
		}},
		{"weibull-large", Weibull{K: 9, Lambda: 1e7}, func(g Distribution) []string {
			d := g.(Weibull)
			return within(d.K, 9, 9*math.Sqrt(0.608/n), "k", within(d.Lambda, 1e7, 1e7*math.Sqrt(1.109/n)/9, "lambda", nil))
		}},
		{"truncnormal", TruncatedNormal{Mu: 2, Sigma: 1, A: 2.5, B: 5}, func(g Distribution) []string {
			d := g.(TruncatedNormal)
			// Strong truncation makes (μ, σ) poorly determined: 5% here.
			return within(d.Mu, 2, 0.1, "mu", within(d.Sigma, 1, 0.05, "sigma",
				within(d.A, 2.5, 1e-3, "a", within(d.B, 5, 1e-3, "b", nil))))
		}},
	}
	for i, c := range cases {
		xs := draw(c.truth, n, uint64(i))
		fam, _, _ := strings.Cut(c.family, "-")
		got, err := Fit(fam, xs)
		if err != nil {
			t.Fatalf("%s: %v", c.family, err)
		}
		for _, msg := range c.check(got) {
			t.Errorf("%s: %s (fit %v)", c.family, msg, got)
		}
		ll := naiveLogLik(got, xs)
		for _, p := range perturbations(got, 1e-4) {
			if l := naiveLogLik(p, xs); l > ll+1e-9*math.Abs(ll) {
				t.Errorf("%s: %v has log-likelihood %v > fit's %v", c.family, p, l, ll)
			}
		}
		if e := relErr(LogLikelihood(got, xs), ll); e > 1e-10 {
			t.Errorf("%s: LogLikelihood %v, naive %v", c.family, LogLikelihood(got, xs), ll)
		}
	}
}

func within(got, want, se float64, name string, acc []string) []string {
	if math.Abs(got-want) > 5*se {
		acc = append(acc, name+" = "+formatFloat(got)+", want "+formatFloat(want)+" ± 5×"+formatFloat(se))
	}
	return acc
}

// TestFitGammaScoreEquation: the gamma MLE solves log α − ψ(α) = s
// (checked with gonum's digamma) and β = α/x̄.
func TestFitGammaScoreEquation(t *testing.T) {
	xs := []float64{1, 2, 2.5, 4, 7, 11}
	g, err := Fit("gamma", xs)
	if err != nil {
		t.Fatal(err)
	}
	d := g.(Gamma)
	var m, ml float64
	for _, x := range xs {
		m += x / 6
		ml += math.Log(x) / 6
	}
	if r := math.Log(d.Alpha) - mathext.Digamma(d.Alpha) - (math.Log(m) - ml); math.Abs(r) > 1e-13 {
		t.Errorf("score residual %v at α = %v", r, d.Alpha)
	}
	if relErr(d.Beta, d.Alpha/m) > 1e-14 {
		t.Errorf("β = %v, want α/mean = %v", d.Beta, d.Alpha/m)
	}
}

// TestFitTruncNormalFlatData: uniform data push σ up; the fit must stay a
// valid law at least as likely as the uniform on [min, max].
func TestFitTruncNormalFlatData(t *testing.T) {
	xs := draw(Uniform{A: 10, B: 20}, 5000, 9)
	g, err := Fit("truncnormal", xs)
	if err != nil {
		t.Fatal(err)
	}
	d := g.(TruncatedNormal)
	lo, hi := d.A, d.B
	uniform := -float64(len(xs)) * math.Log(hi-lo)
	if ll := LogLikelihood(d, xs); ll < uniform-1e-6*math.Abs(uniform) {
		t.Errorf("fit %v: log-likelihood %v below the uniform's %v", d, ll, uniform)
	}
}

func TestFitErrors(t *testing.T) {
	cases := []struct {
		family string
		xs     []float64
		want   string
	}{
		{"normal", []float64{1}, "need at least 2 samples, got 1"},
		{"normal", nil, "need at least 2 samples, got 0"},
		{"gamma", []float64{3, 3, 3}, "all 3 samples equal 3"},
		{"weibull", []float64{1, math.NaN()}, "sample 1 is not finite: NaN"},
		{"exponential", []float64{1, -2}, "sample 1 is negative: -2"},
		{"lognormal", []float64{1, 2, 3, 0}, "sample 3 is 0; the family needs values > 0"},
		{"gamma", []float64{0, 1, 2}, "sample 0 is 0"},
		{"weibull", []float64{1, 0}, "sample 1 is 0"},
		{"cauchy", []float64{1, 2}, `unknown family "cauchy"`},
	}
	for _, c := range cases {
		_, err := Fit(c.family, c.xs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit(%s, %v) error %v, want %q", c.family, c.xs, err, c.want)
		}
	}
}

// The Pareto MLE has a closed form; on a large seeded sample it recovers
// the generating parameters within a few asymptotic standard errors
// (α̂ has standard error α/√N; x̂_m is within O(1/N) above x_m).
func TestFitParetoRecoversParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	want := Pareto{Xm: 1.5, Alpha: 3}
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = want.Rand(rng)
	}
	d, err := Fit("pareto", xs)
	if err != nil {
		t.Fatal(err)
	}
	got := d.(Pareto)
	if math.Abs(got.Alpha-want.Alpha) > 5*want.Alpha/math.Sqrt(float64(len(xs))) || got.Xm < want.Xm || got.Xm > want.Xm*(1+1e-3) {
		t.Fatalf("fit %+v, want about %+v", got, want)
	}
	if _, err := Fit("pareto", []float64{0, 1, 2}); err == nil {
		t.Error("zero sample accepted")
	}
}
