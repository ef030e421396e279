package distribution

import (
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// boundedCases are the family cases made bounded as in Section 4.2.
func boundedCases(t *testing.T) []struct {
	name string
	d    Distribution
} {
	var out []struct {
		name string
		d    Distribution
	}
	for _, c := range familyCases() {
		b, err := Bound(c.d, DefaultTailMass)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out = append(out, struct {
			name string
			d    Distribution
		}{c.name, b})
	}
	return out
}

// TestDiscretizeMasses checks Eq. (9) bin by bin against numeric integrals
// of the density, and the grid itself.
func TestDiscretizeMasses(t *testing.T) {
	const n = 1000
	for _, c := range boundedCases(t) {
		y, err := Discretize(c.d, n)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a, b := c.d.Support()
		h := (b - a) / n
		if y.Values[y.Len()-1] > b || (y.Len() == n && y.Values[n-1] != b) {
			t.Errorf("%s: last value %v, b = %v", c.name, y.Values[y.Len()-1], b)
		}
		if s := compensatedSum(y.Probs); s != 1 {
			t.Errorf("%s: masses sum to %v", c.name, s)
		}
		if y.Probs[y.Len()-1] <= 0 {
			t.Errorf("%s: last mass is zero", c.name)
		}
		for _, i := range []int{1, 2, n / 3, n / 2, y.Len() - 1, y.Len()} {
			v := y.Values[i-1]
			if relErr(v, a+float64(i)*h) > 1e-15 {
				t.Errorf("%s: v_%d = %v, want %v", c.name, i, v, a+float64(i)*h)
			}
			lo := a + float64(i-1)*h
			want := integrateFromEnd(c.d.PDF, lo, v)
			if e := relErr(y.Probs[i-1], want); e > 1e-8 && math.Abs(y.Probs[i-1]-want) > 1e-15 {
				t.Errorf("%s: f_%d = %.15g, ∫pdf = %.15g (rel %.2g)", c.name, i, y.Probs[i-1], want, e)
			}
		}
	}
}

// TestDiscretizeMeanBracket: Y_n rounds X up to the grid, so
// E[X] ≤ E[Y_n] ≤ E[X] + (b−a)/n.
func TestDiscretizeMeanBracket(t *testing.T) {
	for _, c := range boundedCases(t) {
		for _, n := range []int{1, 7, 50, 1000} {
			y, err := Discretize(c.d, n)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			a, b := c.d.Support()
			m, my := c.d.Mean(), y.Mean()
			slack := 1e-12 * math.Max(math.Abs(a), math.Abs(b))
			if my < m-slack || my > m+(b-a)/float64(n)+slack {
				t.Errorf("%s n=%d: E[Y] = %v not in [%v, %v]", c.name, n, my, m, m+(b-a)/float64(n))
			}
		}
	}
}

// TestDiscretizeTail: the top bins of the bounded exponential are
// e^{−λv}(1 − e^{−λh})/m, which 1 − CDF differences would lose.
func TestDiscretizeTail(t *testing.T) {
	const n = 20000
	b, _ := Bound(Exponential{Rate: 1}, DefaultTailMass)
	y, err := Discretize(b, n)
	if err != nil {
		t.Fatal(err)
	}
	_, hi := b.Support()
	h := hi / n
	m := -math.Expm1(-hi)
	for _, i := range []int{n, n - 1, n - 100, n / 2, 1} {
		want := math.Exp(-float64(i-1)*h) * -math.Expm1(-h) / m
		if e := relErr(y.Probs[i-1], want); e > 1e-10 {
			t.Errorf("f_%d = %.17g, want %.17g (rel %.2g)", i, y.Probs[i-1], want, e)
		}
	}
}

// TestDiscretizeTrimsZeroTail: bins whose mass underflows at the top are
// dropped so that the last value has positive mass.
func TestDiscretizeTrimsZeroTail(t *testing.T) {
	y, err := Discretize(TruncatedNormal{Mu: 0, Sigma: 1, A: 0, B: 60}, 6)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() >= 6 || y.Probs[y.Len()-1] <= 0 {
		t.Errorf("values %v, probs %v: trailing zero masses not trimmed", y.Values, y.Probs)
	}
}

// TestDiscretizeDiscrete: an atom at the lower end lands in the first bin.
func TestDiscretizeDiscrete(t *testing.T) {
	d, _ := NewDiscrete([]float64{1, 1.5, 2}, []float64{0.25, 0.25, 0.5})
	y, err := Discretize(d, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := map[float64]float64{1.25: 0.25, 1.5: 0.25, 1.75: 0, 2: 0.5}
	for i, v := range y.Values {
		if y.Probs[i] != want[v] {
			t.Errorf("mass at %v = %v, want %v", v, y.Probs[i], want[v])
		}
	}
}

func TestDiscretizeErrors(t *testing.T) {
	cases := []struct {
		d    Distribution
		n    int
		want string
	}{
		{Exponential{Rate: 1}, 10, "unbounded; truncate it first"},
		{Uniform{A: 0, B: 1}, 0, "n must be >= 1, got 0"},
		{Uniform{A: 1, B: 1 + 1e-15}, 100, "too fine"},
		{Uniform{A: 1, B: 0}, 10, "need a < b"},
	}
	for _, c := range cases {
		_, err := Discretize(c.d, c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Discretize(%v, %d) error %v, want %q", c.d, c.n, err, c.want)
		}
	}
}

// TestDiscretizeFast: n = 20 000 is O(n) CDF/Survival evaluations.
func TestDiscretizeFast(t *testing.T) {
	for _, c := range boundedCases(t) {
		start := time.Now()
		if _, err := Discretize(c.d, 20000); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("%s: Discretize(20000) took %v", c.name, el)
		}
	}
}

// TestDiscretizeProperties: for random bounded Weibull and gamma laws and
// grid sizes, the masses sum to exactly 1, the last is positive, the grid
// is strictly increasing and ends at b, and E[X] ≤ E[Y_n] ≤ E[X] + h.
func TestDiscretizeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shape := math.Exp(rapid.Float64Range(-1.5, 2.5).Draw(t, "shape"))
		scale := math.Exp(rapid.Float64Range(-5, 12).Draw(t, "scale"))
		var d Distribution = Weibull{K: shape, Lambda: scale}
		if rapid.Bool().Draw(t, "gamma") {
			d = Gamma{Alpha: shape, Beta: 1 / scale}
		}
		nu := math.Exp(rapid.Float64Range(-30, -2).Draw(t, "lognu"))
		b, err := Bound(d, nu)
		if err != nil {
			t.Fatalf("Bound(%v, %v): %v", d, nu, err)
		}
		n := rapid.IntRange(1, 3000).Draw(t, "n")
		y, err := Discretize(b, n)
		if err != nil {
			t.Fatalf("Discretize(%v, %d): %v", b, n, err)
		}
		lo, hi := b.Support()
		if s := compensatedSum(y.Probs); s != 1 || y.Probs[y.Len()-1] <= 0 {
			t.Fatalf("sum %v, last mass %v", s, y.Probs[y.Len()-1])
		}
		for i := 1; i < y.Len(); i++ {
			if !(y.Values[i] > y.Values[i-1]) {
				t.Fatalf("values not increasing at %d", i)
			}
		}
		if y.Len() == n && y.Values[n-1] != hi {
			t.Fatalf("last value %v, b %v", y.Values[n-1], hi)
		}
		h := (hi - lo) / float64(n)
		m, my := b.Mean(), y.Mean()
		if my < m*(1-1e-12) || my > (m+h)*(1+1e-12) {
			t.Fatalf("E[Y] = %v not in [%v, %v]", my, m, m+h)
		}
	})
}

func BenchmarkDiscretize20000(b *testing.B) {
	d, _ := Bound(Gamma{Alpha: 2, Beta: 2}, DefaultTailMass)
	for b.Loop() {
		if _, err := Discretize(d, 20000); err != nil {
			b.Fatal(err)
		}
	}
}
