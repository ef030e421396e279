package optimize

// Ratio is φ−1 = (√5−1)/2, the fraction of the bracket that a
// golden-section step keeps: the float64 nearest to it, equal to
// (math.Sqrt(5)−1)/2 computed in float64.
const Ratio = 0.6180339887498949

// Ties says which part of the bracket a step keeps when the two interior
// values are equal.
type Ties int

const (
	// TiesLeft keeps the left part [Lo, X2] on a tie.
	TiesLeft Ties = iota
	// TiesRight keeps the right part [X1, Hi] on a tie.
	TiesRight
)

// Golden is a golden-section search: at most Steps narrowing steps, and
// none once Hi − Lo ≤ Tol. With Tol 0 the search stops only when the
// bracket has collapsed to one point (further steps would evaluate that
// point again); a NaN width (both bounds infinite) does not stop it.
//
// The search starts from X1 = Hi − Ratio·(Hi−Lo) and X2 = Lo + Ratio·(Hi−Lo),
// evaluated in that order. A step keeps [Lo, X2] (the new X2 is the old X1
// and the new X1 = Hi − Ratio·(Hi−Lo) is evaluated) or [X1, Hi] (the new X1
// is the old X2 and the new X2 = Lo + Ratio·(Hi−Lo) is evaluated).
// Minimize keeps [Lo, X2] when F1 < F2, Maximize when F1 > F2; on F1 = F2
// the part named by Ties. When F1 or F2 is NaN neither side is better:
// Minimize keeps [X1, Hi], Maximize [Lo, X2].
type Golden struct {
	// Steps is the largest number of narrowing steps; valid range [0, ∞).
	Steps int
	// Tol is the bracket width below which no step is taken; valid range
	// [0, ∞).
	Tol float64
	// Ties is the part kept when the interior values are equal.
	Ties Ties
}

// Bracket is where a golden-section search stopped: the bracket [Lo, Hi],
// its interior points X1 ≤ X2 and their values F1 = f(X1), F2 = f(X2).
// For a function unimodal on the initial bracket its extremum lies in
// [Lo, Hi].
type Bracket struct {
	Lo, Hi, X1, X2, F1, F2 float64
	// Evaluations is how many times the function was called (2 + steps).
	Evaluations int
}

// Minimize searches a minimum of f on [lo, hi] (see Golden for the rule).
// F1 and F2 of the result hold the least value found: every value
// evaluated and dropped was no smaller than one that was kept.
func (g Golden) Minimize(f func(float64) float64, lo, hi float64) Bracket {
	return g.search(f, lo, hi, func(f1, f2 float64) bool {
		return f1 < f2 || (f1 == f2 && g.Ties == TiesLeft)
	})
}

// Maximize searches a maximum of f on [lo, hi] (see Golden for the rule).
// F1 and F2 of the result hold the largest value found.
func (g Golden) Maximize(f func(float64) float64, lo, hi float64) Bracket {
	return g.search(f, lo, hi, func(f1, f2 float64) bool {
		return !(f1 < f2 || (f1 == f2 && g.Ties == TiesRight))
	})
}

// search runs the steps; keepLeft decides a step from F1, F2.
func (g Golden) search(f func(float64) float64, lo, hi float64, keepLeft func(f1, f2 float64) bool) Bracket {
	b := Bracket{Lo: lo, Hi: hi}
	b.X1, b.X2 = hi-Ratio*(hi-lo), lo+Ratio*(hi-lo)
	b.F1 = f(b.X1)
	b.F2 = f(b.X2)
	b.Evaluations = 2
	for i := 0; i < g.Steps && !(b.Hi-b.Lo <= g.Tol); i++ {
		if keepLeft(b.F1, b.F2) {
			b.Hi, b.X2, b.F2 = b.X2, b.X1, b.F1
			b.X1 = b.Hi - Ratio*(b.Hi-b.Lo)
			b.F1 = f(b.X1)
		} else {
			b.Lo, b.X1, b.F1 = b.X1, b.X2, b.F2
			b.X2 = b.Lo + Ratio*(b.Hi-b.Lo)
			b.F2 = f(b.X2)
		}
		b.Evaluations++
	}
	return b
}
