package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential is the exponential law of Table 1, with density
//
//	f(t) = λ e^{−λt},  t ≥ 0.
//
// The paper instantiates it with λ = 1 h⁻¹.
type Exponential struct {
	// Rate is λ, the inverse of the mean, per time unit.
	// Valid range is (0, +∞).
	Rate float64
}

// Validate reports whether the parameters are in range.
func (e Exponential) Validate() error {
	return checkPositive("exponential", "rate", e.Rate)
}

func (e Exponential) gonum() distuv.Exponential { return distuv.Exponential{Rate: e.Rate} }

// PDF is λe^{−λx} for x ≥ 0 and 0 below.
func (e Exponential) PDF(x float64) float64 {
	if x < 0 {
		return 0
	}
	return e.gonum().Prob(x)
}

// LogPDF is log λ − λx for x ≥ 0 and −Inf below.
func (e Exponential) LogPDF(x float64) float64 {
	return e.gonum().LogProb(x)
}

// CDF is 1 − e^{−λx}, computed as −expm1(−λx).
func (e Exponential) CDF(x float64) float64 { return e.gonum().CDF(x) }

// Survival is e^{−λx}.
func (e Exponential) Survival(x float64) float64 { return e.gonum().Survival(x) }

// Quantile is −log1p(−p)/λ; Quantile(1) = +Inf. It returns NaN when p is
// not in [0, 1].
func (e Exponential) Quantile(p float64) float64 {
	if badProb(p) {
		return math.NaN()
	}
	return -math.Log1p(-p) / e.Rate
}

// InvSurvival is the x with Survival(x) = q, −log(q)/λ, exact for tiny q.
// It returns NaN when q is not in [0, 1].
func (e Exponential) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return -math.Log(q) / e.Rate
}

// Mean is 1/λ.
func (e Exponential) Mean() float64 { return 1 / e.Rate }

// Rand is an Exp(1) draw of r divided by λ.
func (e Exponential) Rand(r *rand.Rand) float64 { return r.ExpFloat64() / e.Rate }

// Support is [0, +Inf).
func (e Exponential) Support() (lo, hi float64) { return 0, math.Inf(1) }

// String is "exponential:rate=λ".
func (e Exponential) String() string { return "exponential:rate=" + formatFloat(e.Rate) }

// conditionalMean is E[X | lo < X ≤ hi]. By memorylessness it is
// lo + 1/λ − Δ/expm1(λΔ) with Δ = hi − lo, and lo + 1/λ when hi = +Inf.
func (e Exponential) conditionalMean(lo, hi float64) float64 {
	lo = math.Max(lo, 0)
	if math.IsInf(hi, 1) {
		return lo + 1/e.Rate
	}
	delta := hi - lo
	if delta*e.Rate < 1e-8 {
		return lo + delta/2
	}
	return lo + 1/e.Rate - delta/math.Expm1(e.Rate*delta)
}
