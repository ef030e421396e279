package distribution

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Beta is the beta law of Table 1 with shapes α and β, scaled from [0, 1]
// to [A, B]: X = A + (B−A)Y with
//
//	f_Y(y) = y^{α−1}(1−y)^{β−1} / B(α, β),  0 ≤ y ≤ 1.
//
// The paper instantiates α = β = 2 on [0, 1] (hours). Parse defaults A = 0
// and B = 1; a hand-built value must set them (the zero value is invalid).
type Beta struct {
	// Alpha is the shape α. Valid range is (0, +∞).
	Alpha float64
	// Beta is the shape β. Valid range is (0, +∞).
	Beta float64
	// A is the lower end of the support in time units.
	// Valid range is (−∞, B).
	A float64
	// B is the upper end of the support in time units.
	// Valid range is (A, +∞).
	B float64
}

// Validate reports whether the parameters are in range.
func (b Beta) Validate() error {
	if err := checkPositive("beta", "alpha", b.Alpha); err != nil {
		return err
	}
	if err := checkPositive("beta", "beta", b.Beta); err != nil {
		return err
	}
	if err := checkInterval("beta", "a", "b", b.A, b.B); err != nil {
		return err
	}
	if math.IsInf(b.B-b.A, 0) {
		return checkFinite("beta", "b-a", b.B-b.A)
	}
	return nil
}

// unit maps x to y = (x−A)/(B−A) and w = 1−y = (B−x)/(B−A), both computed
// without rounding 1−y.
func (b Beta) unit(x float64) (y, w float64) {
	width := b.B - b.A
	return (x - b.A) / width, (b.B - x) / width
}

// PDF is f_Y((x−A)/(B−A))/(B−A); 0 outside [A, B].
func (b Beta) PDF(x float64) float64 {
	if x < b.A || x > b.B {
		return 0
	}
	return math.Exp(b.LogPDF(x))
}

// LogPDF is log f(x); −Inf outside [A, B].
func (b Beta) LogPDF(x float64) float64 {
	if x < b.A || x > b.B {
		return math.Inf(-1)
	}
	y, w := b.unit(x)
	var ly, lw float64
	if b.Alpha != 1 {
		ly = (b.Alpha - 1) * math.Log(y)
	}
	if b.Beta != 1 {
		lw = (b.Beta - 1) * math.Log(w)
	}
	return ly + lw - mathext.Lbeta(b.Alpha, b.Beta) - math.Log(b.B-b.A)
}

// CDF is the regularised incomplete beta I_y(α, β), y = (x−A)/(B−A); past
// the median it is 1 − Survival.
func (b Beta) CDF(x float64) float64 {
	c, s := b.cdfSurvival(x)
	if c <= 0.5 {
		return c
	}
	return 1 - s
}

// Survival is I_{1−y}(β, α), with 1−y computed as (B−x)/(B−A) so the upper
// tail keeps its digits; below the median it is 1 − CDF.
func (b Beta) Survival(x float64) float64 {
	c, s := b.cdfSurvival(x)
	if c <= 0.5 {
		return 1 - c
	}
	return s
}

// cdfSurvival returns I_y(α, β) and, when that exceeds ½, I_{1−y}(β, α)
// (otherwise s is unused and returned as NaN).
func (b Beta) cdfSurvival(x float64) (c, s float64) {
	y, w := b.unit(x)
	c = regIncBeta(b.Alpha, b.Beta, y, w)
	if c <= 0.5 {
		return c, math.NaN()
	}
	return c, regIncBeta(b.Beta, b.Alpha, w, y)
}

// Quantile is A + (B−A)·I⁻¹_p(α, β); NaN when p is not in [0, 1].
func (b Beta) Quantile(p float64) float64 {
	switch {
	case badProb(p):
		return math.NaN()
	case p == 0:
		return b.A
	case p == 1:
		return b.B
	case p > 0.5:
		return b.InvSurvival(1 - p)
	}
	return math.Min(b.A+(b.B-b.A)*mathext.InvRegIncBeta(b.Alpha, b.Beta, p), b.B)
}

// InvSurvival is B − (B−A)·I⁻¹_q(β, α), the x with Survival(x) = q. NaN
// when q is not in [0, 1].
func (b Beta) InvSurvival(q float64) float64 {
	switch {
	case badProb(q):
		return math.NaN()
	case q == 0:
		return b.B
	case q == 1:
		return b.A
	case q > 0.5:
		return b.Quantile(1 - q)
	}
	return math.Max(b.B-(b.B-b.A)*mathext.InvRegIncBeta(b.Beta, b.Alpha, q), b.A)
}

// Mean is A + (B−A)α/(α+β).
func (b Beta) Mean() float64 { return b.A + (b.B-b.A)*b.Alpha/(b.Alpha+b.Beta) }

// Rand draws Y = G_α/(G_α+G_β) from two gamma draws of r and scales it.
func (b Beta) Rand(r *rand.Rand) float64 {
	y := distuv.Beta{Alpha: b.Alpha, Beta: b.Beta, Src: r}.Rand()
	return math.Min(math.Max(b.A+(b.B-b.A)*y, b.A), b.B)
}

// Support is [A, B].
func (b Beta) Support() (lo, hi float64) { return b.A, b.B }

// String is "beta:alpha=α,beta=β,a=A,b=B".
func (b Beta) String() string {
	return "beta:alpha=" + formatFloat(b.Alpha) + ",beta=" + formatFloat(b.Beta) +
		",a=" + formatFloat(b.A) + ",b=" + formatFloat(b.B)
}

// conditionalMean is E[X | lo < X ≤ hi]
// = A + (B−A)·α/(α+β)·ΔI(α+1, β)/ΔI(α, β), the incomplete-beta differences
// ΔI taken from the end the interval lies in.
func (b Beta) conditionalMean(lo, hi float64) float64 {
	lo, hi = math.Max(lo, b.A), math.Min(hi, b.B)
	y1, w1 := b.unit(lo)
	y2, w2 := b.unit(hi)
	ratio := betaInterval(b.Alpha+1, b.Beta, y1, w1, y2, w2) / betaInterval(b.Alpha, b.Beta, y1, w1, y2, w2)
	return b.A + (b.B-b.A)*b.Alpha/(b.Alpha+b.Beta)*ratio
}
