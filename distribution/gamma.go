package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Gamma is the gamma law of Table 1 with shape α and rate β:
//
//	f(t) = β^α t^{α−1} e^{−βt} / Γ(α),  t ≥ 0.
//
// The paper instantiates it with α = 2 and β = 2 h⁻¹. Beta is a rate (per
// time unit), not a scale.
type Gamma struct {
	// Alpha is the shape α. Valid range is (0, +∞).
	Alpha float64
	// Beta is the rate β per time unit; the mean is α/β.
	// Valid range is (0, +∞).
	Beta float64
}

// Validate reports whether the parameters are in range.
func (g Gamma) Validate() error {
	if err := checkPositive("gamma", "alpha", g.Alpha); err != nil {
		return err
	}
	return checkPositive("gamma", "beta", g.Beta)
}

func (g Gamma) gonum(r *rand.Rand) distuv.Gamma {
	d := distuv.Gamma{Alpha: g.Alpha, Beta: g.Beta}
	if r != nil {
		d.Src = r
	}
	return d
}

// PDF is the density; 0 for x < 0, +Inf at 0 when α < 1.
func (g Gamma) PDF(x float64) float64 {
	if x < 0 {
		return 0
	}
	return math.Exp(g.LogPDF(x))
}

// LogPDF is α log β − log Γ(α) + (α−1) log x − βx; −Inf for x < 0.
func (g Gamma) LogPDF(x float64) float64 {
	if x < 0 {
		return math.Inf(-1)
	}
	if x == 0 {
		switch {
		case g.Alpha < 1:
			return math.Inf(1)
		case g.Alpha == 1:
			return math.Log(g.Beta)
		}
		return math.Inf(-1)
	}
	return g.gonum(nil).LogProb(x)
}

// CDF is the regularised lower incomplete gamma P(α, βx).
func (g Gamma) CDF(x float64) float64 { return g.gonum(nil).CDF(x) }

// Survival is the regularised upper incomplete gamma Q(α, βx).
func (g Gamma) Survival(x float64) float64 { return g.gonum(nil).Survival(x) }

// Quantile inverts P(α, βx) = p; Quantile(1) = +Inf. NaN when p is not in
// [0, 1]. gonum's inversion is checked against the CDF and, where it is off
// by more than 10⁻¹⁰ relative (it returns 0 or a wrong value in the lower
// tail of shapes α < 1), replaced by a safeguarded Newton iteration on
// log P in log x started from the small-x asymptote x^α/Γ(α+1). A quantile
// below the smallest float64 is returned as 0.
func (g Gamma) Quantile(p float64) float64 {
	switch {
	case badProb(p):
		return math.NaN()
	case p == 0:
		return 0
	case p == 1:
		return math.Inf(1)
	case p > 0.5:
		return g.InvSurvival(1 - p)
	}
	z := mathext.GammaIncRegInv(g.Alpha, p)
	if !(z > 0) || math.IsInf(z, 0) || relErr(mathext.GammaIncReg(g.Alpha, z), p) > 1e-10 {
		z = gammaSolve(g.Alpha, p, false, z)
	}
	return z / g.Beta
}

// InvSurvival inverts Q(α, βx) = q, keeping the digits of far upper
// quantiles, with the same check and fallback as Quantile. NaN when q is
// not in [0, 1].
func (g Gamma) InvSurvival(q float64) float64 {
	switch {
	case badProb(q):
		return math.NaN()
	case q == 0:
		return math.Inf(1)
	case q == 1:
		return 0
	case q > 0.5:
		return g.Quantile(1 - q)
	}
	z := mathext.GammaIncRegCompInv(g.Alpha, q)
	if !(z > 0) || math.IsInf(z, 0) || relErr(mathext.GammaIncRegComp(g.Alpha, z), q) > 1e-10 {
		z = gammaSolve(g.Alpha, q, true, z)
	}
	return z / g.Beta
}

// gammaSolve returns z with P(a, z) = target (Q(a, z) = target when upper)
// by Newton steps on u = log z for the increasing function log P(a, e^u)
// (−log Q), with the bracket widened around the first guess until it
// holds the root.
func gammaSolve(a, target float64, upper bool, guess float64) float64 {
	lga, _ := math.Lgamma(a)
	f := func(u float64) float64 {
		if upper {
			return -math.Log(mathext.GammaIncRegComp(a, math.Exp(u)))
		}
		return math.Log(mathext.GammaIncReg(a, math.Exp(u)))
	}
	df := func(u float64) float64 {
		z := math.Exp(u)
		xf := math.Exp(a*u - z - lga) // z·density(z)
		if upper {
			return xf / mathext.GammaIncRegComp(a, z)
		}
		return xf / mathext.GammaIncReg(a, z)
	}
	t := math.Log(target)
	if upper {
		t = -t
	}
	u0 := math.Log(guess)
	if math.IsNaN(u0) || math.IsInf(u0, 0) {
		lga1, _ := math.Lgamma(a + 1)
		u0 = (math.Log(target) + lga1) / a // P(a, z) ≈ z^a/Γ(a+1) for small z
		if upper {
			u0 = math.Log(a + 1)
		}
	}
	lo, hi := u0-1, u0+1
	for step := 2.0; f(lo) > t && step < 1e4; step *= 2 {
		lo = u0 - step
	}
	for step := 2.0; f(hi) < t && step < 1e4; step *= 2 {
		hi = u0 + step
	}
	return math.Exp(solveIncreasing(f, df, t, lo, hi, u0))
}

// Mean is α/β.
func (g Gamma) Mean() float64 { return g.Alpha / g.Beta }

// Rand draws with gonum's Marsaglia–Tsang (α ≥ 0.2) or Liu–Martin–Syring
// (α < 0.2) generator on r.
func (g Gamma) Rand(r *rand.Rand) float64 { return g.gonum(r).Rand() }

// Support is [0, +Inf).
func (g Gamma) Support() (lo, hi float64) { return 0, math.Inf(1) }

// String is "gamma:alpha=α,beta=β" (β the rate).
func (g Gamma) String() string {
	return "gamma:alpha=" + formatFloat(g.Alpha) + ",beta=" + formatFloat(g.Beta)
}

// conditionalMean is E[X | lo < X ≤ hi]
// = (α/β)·[P(α+1, βhi) − P(α+1, βlo)] / [P(α, βhi) − P(α, βlo)].
func (g Gamma) conditionalMean(lo, hi float64) float64 {
	lo = math.Max(lo, 0)
	return g.Alpha / g.Beta * gammaInterval(g.Alpha+1, g.Beta*lo, g.Beta*hi) /
		gammaInterval(g.Alpha, g.Beta*lo, g.Beta*hi)
}
