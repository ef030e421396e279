package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// LogNormal is the law of X = e^Y with Y normal of mean μ and standard
// deviation σ (Table 1's LogNormal(ν, κ) with ν = μ, κ = σ):
//
//	f(t) = exp(−(ln t − μ)²/(2σ²)) / (tσ√(2π)),  t > 0.
//
// μ and σ are in log-time units: with times in hours the paper's ν = 3,
// κ = 0.5 has mean e^{3.125} ≈ 22.8 h. LogNormalFromMeanSD builds one from
// the mean and standard deviation of X instead.
type LogNormal struct {
	// Mu is μ = E[ln X]. Valid range is (−∞, +∞).
	Mu float64
	// Sigma is σ, the standard deviation of ln X. Valid range is (0, +∞).
	Sigma float64
}

// LogNormalFromMeanSD returns the LogNormal with E[X] = mean and
// sd(X) = sd: σ² = log1p((sd/mean)²), μ = log(mean) − σ²/2. Both must be
// positive and finite.
func LogNormalFromMeanSD(mean, sd float64) (LogNormal, error) {
	if err := checkPositive("lognormal", "mean", mean); err != nil {
		return LogNormal{}, err
	}
	if err := checkPositive("lognormal", "sd", sd); err != nil {
		return LogNormal{}, err
	}
	cv := sd / mean
	s2 := math.Log1p(cv * cv)
	l := LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2)}
	if err := l.Validate(); err != nil {
		return LogNormal{}, fmt.Errorf("lognormal: mean=%v, sd=%v give no valid law: %v", mean, sd, err)
	}
	return l, nil
}

// Validate reports whether the parameters are in range.
func (l LogNormal) Validate() error {
	if err := checkFinite("lognormal", "mu", l.Mu); err != nil {
		return err
	}
	return checkPositive("lognormal", "sigma", l.Sigma)
}

func (l LogNormal) z(x float64) float64 { return (math.Log(x) - l.Mu) / l.Sigma }

// PDF is the density; 0 for x ≤ 0.
func (l LogNormal) PDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Exp(l.LogPDF(x))
}

// LogPDF is log f(x); −Inf for x ≤ 0.
func (l LogNormal) LogPDF(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	z := l.z(x)
	return -0.5*z*z - math.Log(x) - math.Log(l.Sigma) - logSqrt2Pi
}

// CDF is Φ((ln x − μ)/σ), via Erfc so the lower tail keeps its digits.
func (l LogNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return normCDF(l.z(x))
}

// Survival is Q((ln x − μ)/σ), via Erfc so the upper tail keeps its digits
// (gonum's 1−erf form loses them past about 10⁻¹⁶).
func (l LogNormal) Survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return normSurvival(l.z(x))
}

// Quantile is exp(μ + σΦ⁻¹(p)); Quantile(0) = 0 and Quantile(1) = +Inf.
// NaN when p is not in [0, 1].
func (l LogNormal) Quantile(p float64) float64 {
	if badProb(p) {
		return math.NaN()
	}
	return math.Exp(l.Mu + l.Sigma*mathext.NormalQuantile(p))
}

// InvSurvival is exp(μ − σΦ⁻¹(q)), the x with Survival(x) = q. NaN when q
// is not in [0, 1].
func (l LogNormal) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return math.Exp(l.Mu - l.Sigma*mathext.NormalQuantile(q))
}

// Mean is e^{μ+σ²/2}.
func (l LogNormal) Mean() float64 { return math.Exp(l.Mu + l.Sigma*l.Sigma/2) }

// Rand is exp(μ + σZ) for a standard normal draw Z of r.
func (l LogNormal) Rand(r *rand.Rand) float64 {
	return math.Exp(l.Mu + l.Sigma*r.NormFloat64())
}

// Support is [0, +Inf) (the density vanishes at 0).
func (l LogNormal) Support() (lo, hi float64) { return 0, math.Inf(1) }

// String is "lognormal:mu=μ,sigma=σ".
func (l LogNormal) String() string {
	return "lognormal:mu=" + formatFloat(l.Mu) + ",sigma=" + formatFloat(l.Sigma)
}

// conditionalMean is E[X | lo < X ≤ hi]
// = e^{μ+σ²/2}·[Φ(z_hi−σ) − Φ(z_lo−σ)] / [Φ(z_hi) − Φ(z_lo)], the ratio
// taken in log space from the tail each interval lies in.
func (l LogNormal) conditionalMean(lo, hi float64) float64 {
	zlo := math.Inf(-1)
	if lo > 0 {
		zlo = l.z(lo)
	}
	zhi := l.z(hi)
	s := l.Sigma
	return math.Exp(l.Mu + s*s/2 + logNormalInterval(zlo-s, zhi-s) - logNormalInterval(zlo, zhi))
}
