package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Uniform is the uniform law on [A, B] of Table 1, density 1/(B−A) (the
// paper instantiates a = 1 h, b = 20 h).
type Uniform struct {
	// A is the lower bound in time units. Valid range is (−∞, B).
	A float64
	// B is the upper bound in time units. Valid range is (A, +∞).
	B float64
}

// Validate reports whether the parameters are in range.
func (u Uniform) Validate() error {
	return checkInterval("uniform", "a", "b", u.A, u.B)
}

func (u Uniform) gonum() distuv.Uniform { return distuv.Uniform{Min: u.A, Max: u.B} }

// PDF is 1/(B−A) on [A, B] and 0 elsewhere.
func (u Uniform) PDF(x float64) float64 { return u.gonum().Prob(x) }

// LogPDF is −log(B−A) on [A, B] and −Inf elsewhere.
func (u Uniform) LogPDF(x float64) float64 { return u.gonum().LogProb(x) }

// CDF is (x−A)/(B−A) clamped to [0, 1].
func (u Uniform) CDF(x float64) float64 { return u.gonum().CDF(x) }

// Survival is (B−x)/(B−A) clamped to [0, 1].
func (u Uniform) Survival(x float64) float64 { return u.gonum().Survival(x) }

// Quantile is A + p(B−A); NaN when p is not in [0, 1].
func (u Uniform) Quantile(p float64) float64 {
	if badProb(p) {
		return math.NaN()
	}
	return u.A + p*(u.B-u.A)
}

// InvSurvival is B − q(B−A); NaN when q is not in [0, 1].
func (u Uniform) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return u.B - q*(u.B-u.A)
}

// Mean is (A+B)/2.
func (u Uniform) Mean() float64 { return u.A + (u.B-u.A)/2 }

// Rand is A + U(B−A) for a uniform draw U of r.
func (u Uniform) Rand(r *rand.Rand) float64 { return u.A + r.Float64()*(u.B-u.A) }

// Support is [A, B].
func (u Uniform) Support() (lo, hi float64) { return u.A, u.B }

// String is "uniform:a=A,b=B".
func (u Uniform) String() string {
	return "uniform:a=" + formatFloat(u.A) + ",b=" + formatFloat(u.B)
}

// conditionalMean is the midpoint of [max(A, lo), min(B, hi)].
func (u Uniform) conditionalMean(lo, hi float64) float64 {
	lo, hi = math.Max(lo, u.A), math.Min(hi, u.B)
	return lo + (hi-lo)/2
}
