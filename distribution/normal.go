package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// Normal is the normal (Gaussian) law of mean μ and standard deviation σ:
//
//	f(t) = exp(−(t−μ)²/(2σ²)) / (σ√(2π)).
//
// It is not in Table 1 but fits walltimes that cluster far from zero. Its
// support is the whole line; Bound cuts it at zero.
type Normal struct {
	// Mu is the mean μ in time units. Valid range is (−∞, +∞).
	Mu float64
	// Sigma is the standard deviation σ in time units.
	// Valid range is (0, +∞).
	Sigma float64
}

// Validate reports whether the parameters are in range.
func (n Normal) Validate() error {
	if err := checkFinite("normal", "mu", n.Mu); err != nil {
		return err
	}
	return checkPositive("normal", "sigma", n.Sigma)
}

// PDF is the density.
func (n Normal) PDF(x float64) float64 { return normPDF((x-n.Mu)/n.Sigma) / n.Sigma }

// LogPDF is −(x−μ)²/(2σ²) − log σ − log √(2π).
func (n Normal) LogPDF(x float64) float64 {
	z := (x - n.Mu) / n.Sigma
	return -0.5*z*z - math.Log(n.Sigma) - logSqrt2Pi
}

// CDF is Φ((x−μ)/σ), via Erfc so the lower tail keeps its digits.
func (n Normal) CDF(x float64) float64 { return normCDF((x - n.Mu) / n.Sigma) }

// Survival is Q((x−μ)/σ), via Erfc so the upper tail keeps its digits.
func (n Normal) Survival(x float64) float64 { return normSurvival((x - n.Mu) / n.Sigma) }

// Quantile is μ + σΦ⁻¹(p); ∓Inf at 0 and 1, NaN when p is not in [0, 1].
func (n Normal) Quantile(p float64) float64 {
	if badProb(p) {
		return math.NaN()
	}
	return n.Mu + n.Sigma*mathext.NormalQuantile(p)
}

// InvSurvival is μ − σΦ⁻¹(q), the x with Survival(x) = q. NaN when q is not
// in [0, 1].
func (n Normal) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return n.Mu - n.Sigma*mathext.NormalQuantile(q)
}

// Mean is μ.
func (n Normal) Mean() float64 { return n.Mu }

// Rand is μ + σZ for a standard normal draw Z of r.
func (n Normal) Rand(r *rand.Rand) float64 { return n.Mu + n.Sigma*r.NormFloat64() }

// Support is (−Inf, +Inf).
func (n Normal) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// String is "normal:mu=μ,sigma=σ".
func (n Normal) String() string {
	return "normal:mu=" + formatFloat(n.Mu) + ",sigma=" + formatFloat(n.Sigma)
}

// conditionalMean is E[X | lo < X ≤ hi], the mean of the normal truncated
// to [lo, hi] (see TruncatedNormal.Mean).
func (n Normal) conditionalMean(lo, hi float64) float64 {
	return n.Mu + n.Sigma*stdTruncMean((lo-n.Mu)/n.Sigma, (hi-n.Mu)/n.Sigma)
}
