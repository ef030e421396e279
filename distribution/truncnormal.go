package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// TruncatedNormal is the normal law of mean μ and standard deviation σ
// restricted to [A, B] and renormalised (Table 1's Truncated Normal
// (ν, κ², a, b) with ν = μ, κ = σ; the paper instantiates ν = 8 h,
// κ² = 2 h², a = 1 h, b = 20 h):
//
//	f(t) = φ((t−μ)/σ) / (σ·[Φ(β) − Φ(α)]),  A ≤ t ≤ B,
//
// with α = (A−μ)/σ, β = (B−μ)/σ. (Table 1 prints the normaliser as
// ½[1 − erf(α/√2)] = 1 − Φ(α), which omits the mass above B; this type uses
// the exact Φ(β) − Φ(α).)
//
// Everything is computed in the tail the interval lies in: when
// 0 ≤ α < β the mass is φ(α)·D(α, β) with D built from the Mills ratio
// (erfcx), and intervals below the mean are reflected. The CDF, survival,
// quantiles and mean therefore stay accurate even when both bounds are far
// in one tail (μ = 0, σ = 1, A = 10, B = 12 has mass 7.6·10⁻²⁴; A = 1000
// works too).
type TruncatedNormal struct {
	// Mu is the mean μ of the parent normal, in time units.
	// Valid range is (−∞, +∞).
	Mu float64
	// Sigma is the standard deviation σ of the parent normal, in time units.
	// Valid range is (0, +∞).
	Sigma float64
	// A is the lower bound in time units. Valid range is (−∞, B).
	A float64
	// B is the upper bound in time units. Valid range is (A, +∞).
	B float64
}

// Validate reports whether the parameters are in range.
func (t TruncatedNormal) Validate() error {
	if err := checkFinite("truncnormal", "mu", t.Mu); err != nil {
		return err
	}
	if err := checkPositive("truncnormal", "sigma", t.Sigma); err != nil {
		return err
	}
	if err := checkInterval("truncnormal", "a", "b", t.A, t.B); err != nil {
		return err
	}
	alpha, beta := t.bounds()
	if !(alpha < beta) {
		return checkInterval("truncnormal", "(a-mu)/sigma", "(b-mu)/sigma", alpha, beta)
	}
	return nil
}

// bounds returns the standardised bounds α and β.
func (t TruncatedNormal) bounds() (alpha, beta float64) {
	return (t.A - t.Mu) / t.Sigma, (t.B - t.Mu) / t.Sigma
}

func (t TruncatedNormal) std(x float64) float64 { return (x - t.Mu) / t.Sigma }

// PDF is the density, 0 outside [A, B].
func (t TruncatedNormal) PDF(x float64) float64 {
	if x < t.A || x > t.B {
		return 0
	}
	a, b := t.bounds()
	return stdTruncPDF(a, b, t.std(x)) / t.Sigma
}

// LogPDF is log f(x), −Inf outside [A, B]; finite however far [A, B] lies in
// the tail.
func (t TruncatedNormal) LogPDF(x float64) float64 {
	if x < t.A || x > t.B {
		return math.Inf(-1)
	}
	a, b := t.bounds()
	z := t.std(x)
	return -0.5*z*z - logSqrt2Pi - logNormalInterval(a, b) - math.Log(t.Sigma)
}

// CDF is [Φ(z) − Φ(α)] / [Φ(β) − Φ(α)] with z = (x−μ)/σ, clamped to [0, 1].
func (t TruncatedNormal) CDF(x float64) float64 {
	switch {
	case x <= t.A:
		return 0
	case x >= t.B:
		return 1
	}
	a, b := t.bounds()
	return stdTruncCDF(a, b, t.std(x))
}

// Survival is [Φ(β) − Φ(z)] / [Φ(β) − Φ(α)], computed directly.
func (t TruncatedNormal) Survival(x float64) float64 {
	switch {
	case x <= t.A:
		return 1
	case x >= t.B:
		return 0
	}
	a, b := t.bounds()
	return stdTruncCDF(-b, -a, -t.std(x))
}

// Quantile solves CDF(x) = p (p ≤ ½) or Survival(x) = 1−p (p > ½) by a
// safeguarded Newton iteration on [A, B]; Quantile(0) = A, Quantile(1) = B,
// NaN when p is not in [0, 1].
func (t TruncatedNormal) Quantile(p float64) float64 {
	switch {
	case badProb(p):
		return math.NaN()
	case p == 0:
		return t.A
	case p == 1:
		return t.B
	}
	a, b := t.bounds()
	return t.Mu + t.Sigma*stdTruncQuantile(a, b, p, 1-p)
}

// InvSurvival is the x with Survival(x) = q, keeping the digits of q.
func (t TruncatedNormal) InvSurvival(q float64) float64 {
	switch {
	case badProb(q):
		return math.NaN()
	case q == 0:
		return t.B
	case q == 1:
		return t.A
	}
	a, b := t.bounds()
	return t.Mu + t.Sigma*stdTruncQuantile(a, b, 1-q, q)
}

// Mean is μ + σ·[φ(α) − φ(β)] / [Φ(β) − Φ(α)], in the tail-stable form
// −expm1(−(β²−α²)/2)/D(α, β) when 0 ≤ α.
func (t TruncatedNormal) Mean() float64 {
	a, b := t.bounds()
	m := t.Mu + t.Sigma*stdTruncMean(a, b)
	return math.Min(math.Max(m, t.A), t.B)
}

// Rand draws by exact rejection, never by inverting the CDF:
//   - α < 0 < β with mass Φ(β) − Φ(α) ≥ ¼: normal draws of r until one
//     lands in [α, β];
//   - 0 ≤ α (and, reflected, β ≤ 0): Robert's (1995) proposal, an
//     exponential of rate λ = (α + √(α²+4))/2 truncated to [α, β], accepted
//     with probability exp(−(z−λ)²/2); at least 76% of proposals are
//     accepted however far in the tail;
//   - a narrow interval around the mean: uniform proposals on [α, β]
//     accepted with probability exp(−z²/2), at least 82%.
func (t TruncatedNormal) Rand(r *rand.Rand) float64 {
	a, b := t.bounds()
	var z float64
	switch {
	case a < 0 && b > 0 && normalInterval(a, b) >= 0.25:
		for z = r.NormFloat64(); z < a || z > b; z = r.NormFloat64() {
		}
	case a >= 0:
		z = stdTailRand(r, a, b)
	case b <= 0:
		z = -stdTailRand(r, -b, -a)
	default:
		for {
			z = a + (b-a)*r.Float64()
			if r.Float64() <= math.Exp(-0.5*z*z) {
				break
			}
		}
	}
	return math.Min(math.Max(t.Mu+t.Sigma*z, t.A), t.B)
}

// stdTailRand draws Z | a ≤ Z ≤ b for 0 ≤ a < b by Robert's exponential
// rejection sampler.
func stdTailRand(r *rand.Rand, a, b float64) float64 {
	lambda := 0.5 * (a + math.Sqrt(a*a+4))
	span := -math.Expm1(-lambda * (b - a)) // P(Exp(λ) ≤ b − a)
	for {
		z := a - math.Log1p(-r.Float64()*span)/lambda
		d := z - lambda
		if z <= b && r.Float64() <= math.Exp(-0.5*d*d) {
			return z
		}
	}
}

// Support is [A, B].
func (t TruncatedNormal) Support() (lo, hi float64) { return t.A, t.B }

// String is "truncnormal:mu=μ,sigma=σ,a=A,b=B".
func (t TruncatedNormal) String() string {
	return "truncnormal:mu=" + formatFloat(t.Mu) + ",sigma=" + formatFloat(t.Sigma) +
		",a=" + formatFloat(t.A) + ",b=" + formatFloat(t.B)
}

// conditionalMean is the mean of the normal truncated to
// [max(A, lo), min(B, hi)].
func (t TruncatedNormal) conditionalMean(lo, hi float64) float64 {
	lo, hi = math.Max(lo, t.A), math.Min(hi, t.B)
	return t.Mu + t.Sigma*stdTruncMean(t.std(lo), t.std(hi))
}

// stdTruncCDF is P(Z ≤ z | a < Z ≤ b) for a standard normal Z and
// a ≤ z ≤ b (a may be −Inf, b +Inf).
func stdTruncCDF(a, b, z float64) float64 {
	var c float64
	switch {
	case z <= a:
		return 0
	case z >= b:
		return 1
	case a >= 0: // φ(a)·D(a, z) / φ(a)·D(a, b)
		c = upperTailScaled(a, z) / upperTailScaled(a, b)
	case b <= 0: // P(−z ≤ Z' < −a)/P(−b ≤ Z' < −a), Z' = −Z, scaled by φ(b)
		c = upperTailScaled(-z, -a) / upperTailScaled(-b, -a) * math.Exp(-0.5*(z-b)*(z+b))
	default:
		c = normalInterval(a, z) / normalInterval(a, b)
	}
	return math.Min(math.Max(c, 0), 1)
}

// stdTruncPDF is the density of Z | a < Z ≤ b at a ≤ z ≤ b.
func stdTruncPDF(a, b, z float64) float64 {
	switch {
	case a >= 0:
		return math.Exp(-0.5*(z-a)*(z+a)) / upperTailScaled(a, b)
	case b <= 0:
		return math.Exp(-0.5*(z-b)*(z+b)) / upperTailScaled(-b, -a)
	}
	return normPDF(z) / normalInterval(a, b)
}

// stdTruncMean is E[Z | a < Z ≤ b] = [φ(a) − φ(b)]/[Φ(b) − Φ(a)].
func stdTruncMean(a, b float64) float64 {
	switch {
	case !(a < b):
		return a
	case a >= 0:
		if math.IsInf(b, 1) {
			return 1 / millsRatio(a)
		}
		return -math.Expm1(-0.5*(b-a)*(b+a)) / upperTailScaled(a, b)
	case b <= 0:
		return -stdTruncMean(-b, -a)
	}
	return (normPDF(a) - normPDF(b)) / normalInterval(a, b)
}

// stdTruncQuantile is the z in [a, b] with P(Z ≤ z | a < Z ≤ b) = p, given
// both p and q = 1−p so that neither end loses digits.
func stdTruncQuantile(a, b, p, q float64) float64 {
	var x0 float64
	switch {
	case a >= 1: // close to a + Exp(a) truncated at b
		x0 = a - math.Log1p(p*math.Expm1(-a*(b-a)))/a
	case b <= -1:
		x0 = b + math.Log1p(q*math.Expm1(b*(b-a)))/(-b)
	default:
		pa := normCDF(a)
		x0 = mathext.NormalQuantile(math.Min(pa+p*normalInterval(a, b), 1))
	}
	pdf := func(z float64) float64 { return stdTruncPDF(a, b, z) }
	var z float64
	if p <= 0.5 {
		z = solveIncreasing(func(z float64) float64 { return stdTruncCDF(a, b, z) }, pdf, p, a, b, x0)
	} else {
		z = solveIncreasing(func(z float64) float64 { return -stdTruncCDF(-b, -a, -z) }, pdf, -q, a, b, x0)
	}
	return math.Min(math.Max(z, a), b)
}
