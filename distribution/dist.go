package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DefaultTailMass is the upper-tail probability ν that Bound discards from a
// law with unbounded support: Section 4.2 of the paper truncates at
// b = Q(1−ν) with ν = 10⁻⁷.
const DefaultTailMass = 1e-7

// Distribution is a univariate probability law for a job's duration.
//
// Implementations are immutable values, safe for concurrent use; Rand takes
// the caller's stream so that every entity of a simulation can own one.
type Distribution interface {
	// PDF is the density at x (for a Discrete, the probability mass at x).
	PDF(x float64) float64
	// CDF is P(X ≤ x).
	CDF(x float64) float64
	// Survival is P(X > x), computed directly rather than as 1−CDF where
	// the family allows it, so that tail probabilities keep their digits.
	Survival(x float64) float64
	// Quantile is inf{x : CDF(x) ≥ p} for p in [0, 1].
	Quantile(p float64) float64
	// Mean is E[X].
	Mean() float64
	// Rand draws one value using r, which must not be nil; no other source
	// of randomness is used, so equal seeds give equal draws.
	Rand(r *rand.Rand) float64
	// Support is the closed interval outside which the density is zero;
	// hi is +Inf for unbounded families.
	Support() (lo, hi float64)
	// String is a spec string that Parse reads back to an equal law.
	String() string
}

// validator is implemented by every parametric family of this package.
type validator interface {
	Validate() error
}

// invSurvivaler is implemented by laws that invert their survival function
// directly, so that Q(1−q) keeps its digits for tiny q.
type invSurvivaler interface {
	InvSurvival(q float64) float64
}

// logPDFer is implemented by laws with a log-density that stays finite where
// the density underflows; fitting uses it for log-likelihoods.
type logPDFer interface {
	LogPDF(x float64) float64
}

// conditionalMeaner is implemented by laws with a closed form for
// E[X | lo < X ≤ hi]; Truncated uses it for its mean.
type conditionalMeaner interface {
	conditionalMean(lo, hi float64) float64
}

// validate calls d.Validate when d has one and rejects nil.
func validate(d Distribution) error {
	if d == nil {
		return fmt.Errorf("dist: nil distribution")
	}
	if v, ok := d.(validator); ok {
		return v.Validate()
	}
	return nil
}

// invSurvival returns x with Survival(x) = q, directly when d supports it.
func invSurvival(d Distribution, q float64) float64 {
	if s, ok := d.(invSurvivaler); ok {
		return s.InvSurvival(q)
	}
	return d.Quantile(1 - q)
}

// badProb reports whether p is not a probability.
func badProb(p float64) bool {
	return !(p >= 0 && p <= 1)
}

// checkPositive is the error for a parameter that must be in (0, +∞).
func checkPositive(family, key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%s: %s must be > 0 and finite, got %v", family, key, v)
	}
	return nil
}

// checkFinite is the error for a parameter that must be a finite number.
func checkFinite(family, key string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be finite, got %v", family, key, v)
	}
	return nil
}

// checkInterval is the error for bounds that must satisfy lo < hi, finite.
func checkInterval(family, loKey, hiKey string, lo, hi float64) error {
	if err := checkFinite(family, loKey, lo); err != nil {
		return err
	}
	if err := checkFinite(family, hiKey, hi); err != nil {
		return err
	}
	if !(lo < hi) {
		return fmt.Errorf("%s: need %s < %s, got %s=%v, %s=%v", family, loKey, hiKey, loKey, lo, hiKey, hi)
	}
	return nil
}
