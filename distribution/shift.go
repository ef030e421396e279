package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Shifted is a law D moved by a location Loc: X = Loc + Y with Y ~ D, so
//
//	f(x) = f_D(x − Loc),  F(x) = F_D(x − Loc),  Q(p) = Loc + Q_D(p),
//	E[X] = Loc + E[Y],    support [lo_D + Loc, hi_D + Loc].
//
// This is scipy's `loc` parameter, which the SCALA'19 code and the walltime
// laws of Table 3 of the reservation paper use (a Gamma of mean 40 s placed
// on [146 s, 407 s]). Build it with Shift, which flattens shifts of shifts,
// of truncated laws and of discrete laws.
type Shifted struct {
	// D is the law before the shift; it is neither a *Shifted, a
	// *Truncated nor a *Discrete when built by Shift.
	D Distribution
	// Loc is the location added to every draw, finite, in seconds.
	Loc float64
}

// Shift returns d moved by loc (X + loc for X ~ d). A zero loc returns d
// itself. Shifting a *Shifted adds the locations; shifting a *Truncated
// truncates the shifted parent to the shifted bounds; shifting a *Discrete
// moves its values. The result has the same law as X + loc in every case;
// floating-point rounding of the moved values aside.
func Shift(d Distribution, loc float64) (Distribution, error) {
	if err := validate(d); err != nil {
		return nil, err
	}
	if err := checkFinite("shift", "loc", loc); err != nil {
		return nil, err
	}
	if loc == 0 {
		return d, nil
	}
	switch v := d.(type) {
	case *Shifted:
		return Shift(v.D, v.Loc+loc)
	case *Truncated:
		inner, err := Shift(v.d, loc)
		if err != nil {
			return nil, err
		}
		return Truncate(inner, v.lo+loc, v.hi+loc)
	case *Discrete:
		vals := make([]float64, len(v.Values))
		for i, x := range v.Values {
			vals[i] = x + loc
		}
		return NewDiscrete(vals, v.Probs)
	}
	return &Shifted{D: d, Loc: loc}, nil
}

// Validate checks the parent law and that Loc is finite.
func (s *Shifted) Validate() error {
	if s == nil {
		return fmt.Errorf("shift: nil shifted distribution")
	}
	if err := validate(s.D); err != nil {
		return err
	}
	return checkFinite("shift", "loc", s.Loc)
}

// PDF is f_D(x − Loc).
func (s *Shifted) PDF(x float64) float64 { return s.D.PDF(x - s.Loc) }

// LogPDF is log f_D(x − Loc).
func (s *Shifted) LogPDF(x float64) float64 {
	if l, ok := s.D.(logPDFer); ok {
		return l.LogPDF(x - s.Loc)
	}
	return math.Log(s.D.PDF(x - s.Loc))
}

// CDF is F_D(x − Loc).
func (s *Shifted) CDF(x float64) float64 { return s.D.CDF(x - s.Loc) }

// Survival is S_D(x − Loc).
func (s *Shifted) Survival(x float64) float64 { return s.D.Survival(x - s.Loc) }

// Quantile is Loc + Q_D(p); NaN when p is not in [0, 1].
func (s *Shifted) Quantile(p float64) float64 { return s.Loc + s.D.Quantile(p) }

// InvSurvival is Loc + the parent's inverse survival at q.
func (s *Shifted) InvSurvival(q float64) float64 { return s.Loc + invSurvival(s.D, q) }

// Mean is Loc + E[Y].
func (s *Shifted) Mean() float64 { return s.Loc + s.D.Mean() }

// Rand is Loc plus one draw of the parent from r.
func (s *Shifted) Rand(r *rand.Rand) float64 { return s.Loc + s.D.Rand(r) }

// Support is the parent's support moved by Loc.
func (s *Shifted) Support() (lo, hi float64) {
	lo, hi = s.D.Support()
	return lo + s.Loc, hi + s.Loc
}

// String is the parent's spec with ",loc=LOC" appended.
func (s *Shifted) String() string { return s.D.String() + ",loc=" + formatFloat(s.Loc) }

// conditionalMean is Loc + E[Y | lo − Loc < Y ≤ hi − Loc] when the parent
// has a closed form, NaN otherwise (Truncate then integrates).
func (s *Shifted) conditionalMean(lo, hi float64) float64 {
	if cm, ok := s.D.(conditionalMeaner); ok {
		return s.Loc + cm.conditionalMean(lo-s.Loc, hi-s.Loc)
	}
	return math.NaN()
}
