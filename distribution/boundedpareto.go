package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BoundedPareto is the Pareto law of shape α restricted to [L, H]:
//
//	f(t) = α L^α t^{−α−1} / (1 − (L/H)^α),  L ≤ t ≤ H.
//
// The paper instantiates L = 1 h, H = 20 h, α = 2.1. (Table 1 prints the
// normaliser as 1 − (t/H)^α; the density only integrates to one with
// 1 − (L/H)^α, which this type uses.)
//
// With r = L/H and c = 1 − r^α = −expm1(α log r), the closed forms are
//
//	F(x) = (1 − (L/x)^α)/c,   S(x) = (L/x)^α (1 − (x/H)^α)/c,
//	Q(p) = L (1 − pc)^{−1/α},
//	E[X] = αL/(α−1) · (1 − r^{α−1})/c  (α ≠ 1),   L log(H/L)/(1 − r)  (α = 1),
//
// each 1 − e^u evaluated as −expm1(u) so that nothing cancels near the
// ends of the support or near α = 1.
type BoundedPareto struct {
	// L is the lower end of the support in time units.
	// Valid range is (0, H).
	L float64
	// H is the upper end of the support in time units.
	// Valid range is (L, +∞).
	H float64
	// Alpha is the shape α. Valid range is (0, +∞).
	Alpha float64
}

// Validate reports whether the parameters are in range.
func (b BoundedPareto) Validate() error {
	if err := checkPositive("boundedpareto", "l", b.L); err != nil {
		return err
	}
	if err := checkInterval("boundedpareto", "l", "h", b.L, b.H); err != nil {
		return err
	}
	if err := checkPositive("boundedpareto", "alpha", b.Alpha); err != nil {
		return err
	}
	if !(b.norm() > 0) {
		return fmt.Errorf("boundedpareto: 1-(l/h)^alpha rounds to 0 for l=%v, h=%v, alpha=%v", b.L, b.H, b.Alpha)
	}
	return nil
}

// norm is c = 1 − (L/H)^α.
func (b BoundedPareto) norm() float64 { return -math.Expm1(b.Alpha * logRatio(b.L, b.H)) }

// PDF is α(L/x)^α/(x·c) on [L, H] and 0 elsewhere.
func (b BoundedPareto) PDF(x float64) float64 {
	if x < b.L || x > b.H {
		return 0
	}
	return b.Alpha / x * math.Exp(b.Alpha*logRatio(b.L, x)) / b.norm()
}

// LogPDF is log α + α log(L/x) − log x − log c; −Inf outside [L, H].
func (b BoundedPareto) LogPDF(x float64) float64 {
	if x < b.L || x > b.H {
		return math.Inf(-1)
	}
	return math.Log(b.Alpha) + b.Alpha*logRatio(b.L, x) - math.Log(x) - math.Log(b.norm())
}

// CDF is (1 − (L/x)^α)/c.
func (b BoundedPareto) CDF(x float64) float64 {
	switch {
	case x <= b.L:
		return 0
	case x >= b.H:
		return 1
	}
	return math.Min(-math.Expm1(b.Alpha*logRatio(b.L, x))/b.norm(), 1)
}

// Survival is (L/x)^α(1 − (x/H)^α)/c.
func (b BoundedPareto) Survival(x float64) float64 {
	switch {
	case x <= b.L:
		return 1
	case x >= b.H:
		return 0
	}
	return math.Min(math.Exp(b.Alpha*logRatio(b.L, x))*-math.Expm1(b.Alpha*logRatio(x, b.H))/b.norm(), 1)
}

// Quantile is L·(1 − pc)^{−1/α} = L·exp(−log1p(−pc)/α); NaN when p is not
// in [0, 1].
func (b BoundedPareto) Quantile(p float64) float64 {
	switch {
	case badProb(p):
		return math.NaN()
	case p == 1:
		return b.H
	case p > 0.5:
		return b.InvSurvival(1 - p)
	}
	x := b.L * math.Exp(-math.Log1p(-p*b.norm())/b.Alpha)
	return math.Min(math.Max(x, b.L), b.H)
}

// InvSurvival is L·(r^α + qc)^{−1/α}, the x with Survival(x) = q, accurate
// for tiny q. NaN when q is not in [0, 1].
func (b BoundedPareto) InvSurvival(q float64) float64 {
	switch {
	case badProb(q):
		return math.NaN()
	case q == 0:
		return b.H
	case q > 0.5:
		return b.Quantile(1 - q)
	}
	ra := math.Exp(b.Alpha * logRatio(b.L, b.H))
	x := b.L * math.Exp(-math.Log(ra+q*b.norm())/b.Alpha)
	return math.Min(math.Max(x, b.L), b.H)
}

// Mean is αL·g/c with g = (1 − r^{α−1})/(α−1) = −expm1((α−1) log r)/(α−1),
// and g = −log r = log(H/L) at α = 1.
func (b BoundedPareto) Mean() float64 {
	logr := logRatio(b.L, b.H)
	t := b.Alpha - 1
	g := -logr
	if t != 0 {
		g = -math.Expm1(t*logr) / t
	}
	m := b.Alpha * b.L * g / b.norm()
	return math.Min(math.Max(m, b.L), b.H)
}

// Rand is Quantile(U) for a uniform draw U of r.
func (b BoundedPareto) Rand(r *rand.Rand) float64 { return b.Quantile(r.Float64()) }

// Support is [L, H].
func (b BoundedPareto) Support() (lo, hi float64) { return b.L, b.H }

// String is "boundedpareto:l=L,h=H,alpha=α".
func (b BoundedPareto) String() string {
	return "boundedpareto:l=" + formatFloat(b.L) + ",h=" + formatFloat(b.H) + ",alpha=" + formatFloat(b.Alpha)
}

// conditionalMean is the mean of BoundedPareto(max(L, lo), min(H, hi), α).
func (b BoundedPareto) conditionalMean(lo, hi float64) float64 {
	return BoundedPareto{L: math.Max(lo, b.L), H: math.Min(hi, b.H), Alpha: b.Alpha}.Mean()
}

// logRatio is log(a/b) for positive a and b, through log1p((a−b)/b) when
// a/b is within a factor 2 of 1, where a−b is exact and log(a/b) would
// lose the digits of the rounded quotient.
func logRatio(a, b float64) float64 {
	if a > b/2 && a < 2*b {
		return math.Log1p((a - b) / b)
	}
	return math.Log(a / b)
}
