package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Discrete is a finite law: P(X = Values[i]) = Probs[i]. It is the input of
// the optimal dynamic programme of Theorem 2 and the output of Discretize
// (Eq. (9)) and Empirical.
//
// Build it with NewDiscrete, which validates, renormalises and precomputes
// the cumulative sums, and do not modify the slices afterwards. The last
// value always has positive mass (the paper assumes f_n ≠ 0); interior and
// leading values may have zero mass.
type Discrete struct {
	// Values are the support points, strictly increasing and finite.
	Values []float64
	// Probs are the masses, each ≥ 0; their compensated sum is 1.
	Probs []float64

	cum []float64 // cum[i] = P(X ≤ Values[i]); cum[len−1] = 1
	sf  []float64 // sf[i] = P(X ≥ Values[i]) by suffix sums; sf[len] = 0
}

// probSumTol is how far from 1 the masses given to NewDiscrete may sum.
const probSumTol = 1e-9

// NewDiscrete returns the law with P(X = values[i]) = probs[i]. values must
// be finite and strictly increasing, probs finite and ≥ 0 with a sum within
// 10⁻⁹ of 1; the masses are then renormalised to sum to 1 and trailing
// zero-mass points are dropped. The slices are copied.
func NewDiscrete(values, probs []float64) (*Discrete, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("discrete: no values")
	}
	if len(values) != len(probs) {
		return nil, fmt.Errorf("discrete: %d values but %d probabilities", len(values), len(probs))
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("discrete: value %d must be finite, got %v", i, v)
		}
		if i > 0 && !(v > values[i-1]) {
			return nil, fmt.Errorf("discrete: values must be strictly increasing, got value %d = %v after %v", i, v, values[i-1])
		}
	}
	for i, p := range probs {
		if !(p >= 0) || math.IsInf(p, 1) {
			return nil, fmt.Errorf("discrete: probability %d must be finite and >= 0, got %v", i, p)
		}
	}
	if s := compensatedSum(probs); math.Abs(s-1) > probSumTol {
		return nil, fmt.Errorf("discrete: probabilities must sum to 1 (within %g), got %v", probSumTol, s)
	}
	return newDiscrete(append([]float64(nil), values...), append([]float64(nil), probs...))
}

// Validate reports whether d is a law NewDiscrete could have built: non-nil,
// values finite and strictly increasing, masses ≥ 0 summing to 1 within
// 10⁻⁹, the last one positive.
func (d *Discrete) Validate() error {
	if d == nil {
		return fmt.Errorf("discrete: nil distribution")
	}
	if len(d.Values) == 0 || len(d.Values) != len(d.Probs) {
		return fmt.Errorf("discrete: %d values but %d probabilities", len(d.Values), len(d.Probs))
	}
	if _, err := NewDiscrete(d.Values, d.Probs); err != nil {
		return err
	}
	if p := d.Probs[len(d.Probs)-1]; !(p > 0) {
		return fmt.Errorf("discrete: last value %v has mass %v, want > 0", d.Values[len(d.Values)-1], p)
	}
	return nil
}

// newDiscrete takes ownership of values (valid, increasing) and probs
// (non-negative, positive sum), renormalises, trims and builds the tables.
func newDiscrete(values, probs []float64) (*Discrete, error) {
	n := len(probs)
	for n > 0 && probs[n-1] == 0 {
		n--
	}
	if n == 0 {
		return nil, fmt.Errorf("discrete: all probabilities are zero")
	}
	values, probs = values[:n:n], probs[:n:n]
	if err := normalize(probs); err != nil {
		return nil, err
	}
	d := &Discrete{Values: values, Probs: probs}
	d.cum, d.sf = d.buildTables()
	return d, nil
}

// compensatedSum is Neumaier's compensated sum of xs.
func compensatedSum(xs []float64) float64 {
	var s, c float64
	for _, x := range xs {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	return s + c
}

// normalize divides p by its sum and then moves the last rounding residue
// onto the largest mass, so that the compensated sum is exactly 1 and
// normalising again changes nothing (Parse(d.String()) gives back the same
// masses).
func normalize(p []float64) error {
	s := compensatedSum(p)
	if !(s > 0) || math.IsInf(s, 1) {
		return fmt.Errorf("discrete: probabilities sum to %v, cannot normalise", s)
	}
	if s == 1 {
		return nil
	}
	imax := 0
	for i := range p {
		p[i] /= s
		if p[i] > p[imax] {
			imax = i
		}
	}
	for range 4 {
		s = compensatedSum(p)
		if s == 1 {
			break
		}
		p[imax] = math.Max(p[imax]+(1-s), 0)
	}
	return nil
}

// buildTables returns the cumulative and suffix sums.
func (d *Discrete) buildTables() (cum, sf []float64) {
	n := len(d.Probs)
	cum = make([]float64, n)
	sf = make([]float64, n+1)
	var acc float64
	for i, p := range d.Probs {
		acc += p
		cum[i] = math.Min(acc, 1)
	}
	cum[n-1] = 1
	acc = 0
	for i := n - 1; i >= 0; i-- {
		acc += d.Probs[i]
		sf[i] = math.Min(acc, 1)
	}
	sf[0] = 1
	return cum, sf
}

// tables returns the precomputed sums, computing them for a hand-built value.
func (d *Discrete) tables() (cum, sf []float64) {
	if d.cum == nil || len(d.cum) != len(d.Probs) {
		return d.buildTables()
	}
	return d.cum, d.sf
}

// Len is the number of support points.
func (d *Discrete) Len() int { return len(d.Values) }

// upTo is the number of values ≤ x.
func (d *Discrete) upTo(x float64) int {
	return sort.Search(len(d.Values), func(i int) bool { return d.Values[i] > x })
}

// PDF is the mass at x: Probs[i] when x = Values[i], 0 elsewhere.
func (d *Discrete) PDF(x float64) float64 {
	i := sort.SearchFloat64s(d.Values, x)
	if i < len(d.Values) && d.Values[i] == x {
		return d.Probs[i]
	}
	return 0
}

// CDF is P(X ≤ x) found by binary search, O(log n): the prefix sum while
// it is at most ½, and 1 − the suffix sum beyond, so that CDF and Survival
// agree and masses near 1 keep their last bits.
func (d *Discrete) CDF(x float64) float64 {
	cum, sf := d.tables()
	k := d.upTo(x)
	switch {
	case k == 0:
		return 0
	case cum[k-1] <= 0.5:
		return cum[k-1]
	}
	return 1 - sf[k]
}

// Survival is P(X > x), an exact suffix sum (not 1 − CDF): O(log n).
func (d *Discrete) Survival(x float64) float64 {
	_, sf := d.tables()
	return sf[d.upTo(x)]
}

// Quantile is the smallest value v with CDF(v) ≥ p, by binary search on the
// same prefix or suffix sums CDF uses, so Quantile(CDF(v)) = v for every v
// of positive mass; Quantile(0) is the first value with positive mass. NaN
// when p is not in [0, 1].
func (d *Discrete) Quantile(p float64) float64 {
	switch {
	case badProb(p):
		return math.NaN()
	case p == 0:
		lo, _ := d.Support()
		return lo
	}
	cum, sf := d.tables()
	n := len(d.Values)
	var i int
	if p <= 0.5 {
		i = sort.SearchFloat64s(cum, p)
	} else {
		i = sort.Search(n, func(i int) bool { return 1-sf[i+1] >= p })
	}
	return d.Values[min(i, n-1)]
}

// InvSurvival is the smallest value v with Survival(v) ≤ q, computed from
// the suffix sums; InvSurvival(1) is the first value with positive mass.
// NaN when q is not in [0, 1].
func (d *Discrete) InvSurvival(q float64) float64 {
	switch {
	case badProb(q):
		return math.NaN()
	case q == 1:
		lo, _ := d.Support()
		return lo
	}
	_, sf := d.tables()
	n := len(d.Values)
	i := sort.Search(n, func(i int) bool { return sf[i+1] <= q })
	return d.Values[min(i, n-1)]
}

// Mean is Σ v_i f_i, summed with compensation.
func (d *Discrete) Mean() float64 {
	terms := make([]float64, len(d.Values))
	for i, v := range d.Values {
		terms[i] = v * d.Probs[i]
	}
	return compensatedSum(terms)
}

// Rand returns the first value whose cumulative mass exceeds a uniform draw
// of r, found by binary search: O(log n). Zero-mass values are never drawn.
func (d *Discrete) Rand(r *rand.Rand) float64 {
	cum, _ := d.tables()
	u := r.Float64()
	i := sort.Search(len(cum), func(i int) bool { return cum[i] > u })
	return d.Values[min(i, len(d.Values)-1)]
}

// Support is [first value with positive mass, last value].
func (d *Discrete) Support() (lo, hi float64) {
	n := len(d.Values)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for i, p := range d.Probs {
		if p > 0 {
			return d.Values[i], d.Values[n-1]
		}
	}
	return d.Values[0], d.Values[n-1]
}

// String is "discrete:v1@p1,v2@p2,…" with shortest round-trip numbers.
func (d *Discrete) String() string {
	var b strings.Builder
	b.WriteString("discrete:")
	for i, v := range d.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatFloat(v))
		b.WriteByte('@')
		b.WriteString(formatFloat(d.Probs[i]))
	}
	return b.String()
}

// conditionalMean is E[X | lo < X ≤ hi].
func (d *Discrete) conditionalMean(lo, hi float64) float64 {
	var num, den float64
	for i, v := range d.Values {
		if v > lo && v <= hi {
			num += v * d.Probs[i]
			den += d.Probs[i]
		}
	}
	return num / den
}

// restrict is the law of X given lo ≤ X ≤ hi (bounds included).
func (d *Discrete) restrict(lo, hi float64) (*Discrete, error) {
	var vs, ps []float64
	for i, v := range d.Values {
		if v >= lo && v <= hi && (len(vs) > 0 || d.Probs[i] > 0) {
			vs = append(vs, v)
			ps = append(ps, d.Probs[i])
		}
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("truncate: no probability mass in [%v, %v]", lo, hi)
	}
	return newDiscrete(vs, ps)
}
