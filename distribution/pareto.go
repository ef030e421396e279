package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Pareto is the (type I) Pareto law of Table 1 with scale x_m (the paper's
// ν) and shape α:
//
//	f(t) = α x_m^α / t^{α+1},  t ≥ x_m.
//
// The paper instantiates ν = 1.5 h, α = 3. The mean is infinite for α ≤ 1.
type Pareto struct {
	// Xm is the scale x_m, the lower end of the support, in time units.
	// Valid range is (0, +∞).
	Xm float64
	// Alpha is the shape α. Valid range is (0, +∞).
	Alpha float64
}

// Validate reports whether the parameters are in range.
func (p Pareto) Validate() error {
	if err := checkPositive("pareto", "xm", p.Xm); err != nil {
		return err
	}
	return checkPositive("pareto", "alpha", p.Alpha)
}

func (p Pareto) gonum() distuv.Pareto { return distuv.Pareto{Xm: p.Xm, Alpha: p.Alpha} }

// PDF is αx_m^α/x^{α+1} for x ≥ x_m, 0 below.
func (p Pareto) PDF(x float64) float64 {
	if x < p.Xm {
		return 0
	}
	return math.Exp(p.LogPDF(x))
}

// LogPDF is log α + α log x_m − (α+1) log x; −Inf below x_m.
func (p Pareto) LogPDF(x float64) float64 { return p.gonum().LogProb(x) }

// CDF is 1 − (x_m/x)^α, computed as −expm1(α log(x_m/x)) with the log
// taken through log1p near x_m.
func (p Pareto) CDF(x float64) float64 {
	if x <= p.Xm {
		return 0
	}
	return -math.Expm1(p.Alpha * logRatio(p.Xm, x))
}

// Survival is (x_m/x)^α.
func (p Pareto) Survival(x float64) float64 { return p.gonum().Survival(x) }

// Quantile is x_m·exp(−log1p(−p)/α); Quantile(1) = +Inf, NaN when prob is
// not in [0, 1].
func (p Pareto) Quantile(prob float64) float64 {
	if badProb(prob) {
		return math.NaN()
	}
	return p.Xm * math.Exp(-math.Log1p(-prob)/p.Alpha)
}

// InvSurvival is x_m·q^{−1/α}, the x with Survival(x) = q. NaN when q is
// not in [0, 1].
func (p Pareto) InvSurvival(q float64) float64 {
	if badProb(q) {
		return math.NaN()
	}
	return p.Xm * math.Exp(-math.Log(q)/p.Alpha)
}

// Mean is αx_m/(α−1), and +Inf when α ≤ 1.
func (p Pareto) Mean() float64 { return p.gonum().Mean() }

// Rand is x_m·e^{E/α} for an Exp(1) draw E of r.
func (p Pareto) Rand(r *rand.Rand) float64 { return p.Xm * math.Exp(r.ExpFloat64()/p.Alpha) }

// Support is [x_m, +Inf).
func (p Pareto) Support() (lo, hi float64) { return p.Xm, math.Inf(1) }

// String is "pareto:xm=x_m,alpha=α".
func (p Pareto) String() string {
	return "pareto:xm=" + formatFloat(p.Xm) + ",alpha=" + formatFloat(p.Alpha)
}

// conditionalMean is E[X | lo < X ≤ hi]: a Pareto restricted to [lo, hi] is
// the BoundedPareto(lo, hi, α); for hi = +Inf it is the Pareto of scale lo.
func (p Pareto) conditionalMean(lo, hi float64) float64 {
	lo = math.Max(lo, p.Xm)
	if math.IsInf(hi, 1) {
		return Pareto{Xm: lo, Alpha: p.Alpha}.Mean()
	}
	return BoundedPareto{L: lo, H: hi, Alpha: p.Alpha}.Mean()
}
