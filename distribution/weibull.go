package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Weibull is the Weibull law of Table 1 with shape κ (K) and scale λ
// (Lambda):
//
//	f(t) = (κ/λ)(t/λ)^{κ−1} e^{−(t/λ)^κ},  t ≥ 0.
//
// The paper instantiates it with λ = 1 h and κ = 0.5. For κ < 1 the density
// is infinite at 0.
type Weibull struct {
	// K is the shape κ. Valid range is (0, +∞); κ = 1 is the exponential.
	K float64
	// Lambda is the scale λ in time units. Valid range is (0, +∞).
	Lambda float64
}

// Validate reports whether the parameters are in range.
func (w Weibull) Validate() error {
	if err := checkPositive("weibull", "k", w.K); err != nil {
		return err
	}
	return checkPositive("weibull", "lambda", w.Lambda)
}

func (w Weibull) gonum() distuv.Weibull { return distuv.Weibull{K: w.K, Lambda: w.Lambda} }

// PDF is the density; 0 for x < 0, and +Inf at 0 when κ < 1.
func (w Weibull) PDF(x float64) float64 {
	if x < 0 {
		return 0
	}
	return math.Exp(w.LogPDF(x))
}

// LogPDF is log f(x); −Inf for x < 0.
func (w Weibull) LogPDF(x float64) float64 {
	if x < 0 {
		return math.Inf(-1)
	}
	if x == 0 {
		switch {
		case w.K < 1:
			return math.Inf(1)
		case w.K == 1:
			return -math.Log(w.Lambda)
		}
		return math.Inf(-1)
	}
	return w.gonum().LogProb(x)
}

// CDF is 1 − e^{−(x/λ)^κ}, computed as −expm1.
func (w Weibull) CDF(x float64) float64 { return w.gonum().CDF(x) }

// Survival is e^{−(x/λ)^κ}.
func (w Weibull) Survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return math.Exp(-math.Pow(x/w.Lambda, w.K))
}

// Quantile is λ(−log1p(−p))^{1/κ}; Quantile(1) = +Inf. NaN when p is not
// in [0, 1].
func (w Weibull) Quantile(p float64) float64 {
	if badProb(p) {
		return math.NaN()
	}
	return w.Lambda * math.Pow(-math.Log1p(-p), 1/w.K)
}

// InvSurvival is λ(−log q)^{1/κ}, the x with Survival(x) = q. NaN when q is
// not in [0, 1].
func (w Weibull) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return w.Lambda * math.Pow(-math.Log(q), 1/w.K)
}

// Mean is λΓ(1 + 1/κ).
func (w Weibull) Mean() float64 { return w.Lambda * math.Gamma(1+1/w.K) }

// Rand is λE^{1/κ} for an Exp(1) draw E of r.
func (w Weibull) Rand(r *rand.Rand) float64 {
	return w.Lambda * math.Pow(r.ExpFloat64(), 1/w.K)
}

// Support is [0, +Inf).
func (w Weibull) Support() (lo, hi float64) { return 0, math.Inf(1) }

// String is "weibull:k=κ,lambda=λ".
func (w Weibull) String() string {
	return "weibull:k=" + formatFloat(w.K) + ",lambda=" + formatFloat(w.Lambda)
}

// conditionalMean is E[X | lo < X ≤ hi]
// = λΓ(s)·[P(s, u_hi) − P(s, u_lo)] / [e^{−u_lo} − e^{−u_hi}]
// with s = 1 + 1/κ and u = (x/λ)^κ, both differences taken from the tail
// the interval lies in.
func (w Weibull) conditionalMean(lo, hi float64) float64 {
	lo = math.Max(lo, 0)
	ulo := math.Pow(lo/w.Lambda, w.K)
	uhi := math.Pow(hi/w.Lambda, w.K)
	s := 1 + 1/w.K
	return w.Lambda * math.Gamma(s) * gammaInterval(s, ulo, uhi) / gammaInterval(1, ulo, uhi)
}
