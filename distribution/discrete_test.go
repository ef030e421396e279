package distribution

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestNewDiscreteErrors(t *testing.T) {
	cases := []struct {
		v, p []float64
		want string
	}{
		{nil, nil, "no values"},
		{[]float64{1, 2}, []float64{1}, "2 values but 1 probabilities"},
		{[]float64{1, math.NaN()}, []float64{0.5, 0.5}, "value 1 must be finite, got NaN"},
		{[]float64{1, math.Inf(1)}, []float64{0.5, 0.5}, "value 1 must be finite, got +Inf"},
		{[]float64{2, 1}, []float64{0.5, 0.5}, "strictly increasing, got value 1 = 1 after 2"},
		{[]float64{1, 1}, []float64{0.5, 0.5}, "got value 1 = 1 after 1"},
		{[]float64{1, 2}, []float64{-0.5, 1.5}, "probability 0 must be finite and >= 0, got -0.5"},
		{[]float64{1, 2}, []float64{0.5, math.NaN()}, "probability 1 must be finite and >= 0, got NaN"},
		{[]float64{1, 2}, []float64{0.5, 0.6}, "must sum to 1 (within 1e-09), got 1.1"},
		{[]float64{1, 2}, []float64{0, 0}, "must sum to 1"},
	}
	for _, c := range cases {
		_, err := NewDiscrete(c.v, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDiscrete(%v, %v) error %v, want %q", c.v, c.p, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error %q", err)
		}
	}
}

func TestDiscreteExact(t *testing.T) {
	d, err := NewDiscrete([]float64{1, 2, 3, 4}, []float64{0.1, 0.2, 0.3, 0.4})
	if err != nil {
		t.Fatal(err)
	}
	eq := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-15 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	eq("PDF(3)", d.PDF(3), 0.3)
	eq("PDF(3.5)", d.PDF(3.5), 0)
	eq("CDF(0)", d.CDF(0), 0)
	eq("CDF(2)", d.CDF(2), 0.3)
	eq("CDF(2.5)", d.CDF(2.5), 0.3)
	eq("CDF(4)", d.CDF(4), 1)
	eq("Survival(2.5)", d.Survival(2.5), 0.7)
	eq("Survival(4)", d.Survival(4), 0)
	eq("Survival(0)", d.Survival(0), 1)
	eq("Mean", d.Mean(), 3)
	eq("Quantile(0)", d.Quantile(0), 1)
	eq("Quantile(0.1)", d.Quantile(0.1), 1)
	eq("Quantile(0.1000001)", d.Quantile(0.1000001), 2)
	eq("Quantile(0.6)", d.Quantile(0.6), 3)
	eq("Quantile(1)", d.Quantile(1), 4)
	eq("InvSurvival(0.4)", d.InvSurvival(0.4), 3)
	eq("InvSurvival(0)", d.InvSurvival(0), 4)
	if !math.IsNaN(d.Quantile(2)) {
		t.Error("Quantile(2) not NaN")
	}
	if lo, hi := d.Support(); lo != 1 || hi != 4 {
		t.Errorf("Support [%v, %v]", lo, hi)
	}
}

// TestDiscreteSurvivalTail: suffix sums keep a mass far below the rounding
// of 1 − CDF.
func TestDiscreteSurvivalTail(t *testing.T) {
	d, err := NewDiscrete([]float64{1, 2, 3}, []float64{1 - 1e-12, 1e-12 - 1e-30, 1e-30})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Survival(2); relErr(got, 1e-30) > 1e-14 {
		t.Errorf("Survival(2) = %v, want 1e-30", got)
	}
	if got := d.Survival(1); relErr(got, 1e-12) > 1e-14 {
		t.Errorf("Survival(1) = %v, want 1e-12", got)
	}
}

func TestDiscreteTrimAndRenormalise(t *testing.T) {
	d, err := NewDiscrete([]float64{1, 2, 3, 4, 5}, []float64{0, 0.3, 0, 0.7 + 5e-10, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Values, []float64{1, 2, 3, 4}) {
		t.Errorf("Values %v, want trailing zero trimmed", d.Values)
	}
	if d.Probs[len(d.Probs)-1] <= 0 {
		t.Error("last mass is zero")
	}
	if s := compensatedSum(d.Probs); s != 1 {
		t.Errorf("masses sum to %v", s)
	}
	if lo, _ := d.Support(); lo != 2 {
		t.Errorf("Support lo = %v, want the first value with mass", lo)
	}
	if d.Quantile(0) != 2 {
		t.Errorf("Quantile(0) = %v", d.Quantile(0))
	}
}

// TestDiscreteRand: frequencies of 200 000 draws within 5 standard errors,
// zero-mass points never drawn.
func TestDiscreteRand(t *testing.T) {
	d, _ := NewDiscrete([]float64{1, 2, 3, 4}, []float64{0.1, 0, 0.5, 0.4})
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	count := map[float64]float64{}
	for range n {
		count[d.Rand(r)]++
	}
	for i, v := range d.Values {
		p := d.Probs[i]
		if p == 0 && count[v] > 0 {
			t.Errorf("zero-mass value %v drawn %v times", v, count[v])
		}
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(count[v]/n-p) > 5*se+1e-12 {
			t.Errorf("value %v: frequency %v, want %v", v, count[v]/n, p)
		}
	}
}

func TestDiscreteValidate(t *testing.T) {
	var nilD *Discrete
	if _, err := Discretize(nilD, 3); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("typed nil accepted: %v", err)
	}
	bad := &Discrete{Values: []float64{1, 2}, Probs: []float64{1, 0}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "last value 2 has mass 0") {
		t.Errorf("zero last mass: %v", err)
	}
	if _, err := Truncate(&Discrete{Values: []float64{2, 1}, Probs: []float64{0.5, 0.5}}, 0, 3); err == nil {
		t.Error("unsorted hand-built law accepted")
	}
	var nilT *Truncated
	if _, err := Bound(nilT, 0.1); err == nil {
		t.Error("nil *Truncated accepted")
	}
}

// TestDiscreteHandBuilt: a literal without NewDiscrete's tables still works.
func TestDiscreteHandBuilt(t *testing.T) {
	d := &Discrete{Values: []float64{1, 2}, Probs: []float64{0.25, 0.75}}
	if d.CDF(1) != 0.25 || d.Survival(1) != 0.75 || d.Quantile(0.5) != 2 || d.Mean() != 1.75 {
		t.Errorf("hand-built: %v %v %v %v", d.CDF(1), d.Survival(1), d.Quantile(0.5), d.Mean())
	}
}

// TestDiscreteProperties: for random finite laws, normalisation is exact
// and idempotent, the last value has mass, CDF + Survival = 1, Quantile is
// the generalised inverse of CDF, and the spec round-trips exactly.
func TestDiscreteProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		raw := rapid.SliceOfN(rapid.Float64Range(0, 1e6), n, n).Draw(t, "values")
		slices.Sort(raw)
		values := slices.Compact(raw)
		w := rapid.SliceOfN(rapid.Float64Range(0, 10), len(values), len(values)).Draw(t, "weights")
		s := compensatedSum(w)
		if s == 0 {
			return
		}
		probs := make([]float64, len(w))
		for i := range w {
			probs[i] = w[i] / s
		}
		d, err := NewDiscrete(values, probs)
		if err != nil {
			t.Fatalf("NewDiscrete: %v", err)
		}
		if compensatedSum(d.Probs) != 1 {
			t.Fatalf("masses sum to %v", compensatedSum(d.Probs))
		}
		if d.Probs[d.Len()-1] <= 0 {
			t.Fatalf("last mass %v", d.Probs[d.Len()-1])
		}
		again, err := NewDiscrete(d.Values, d.Probs)
		if err != nil || !slices.Equal(again.Probs, d.Probs) {
			t.Fatalf("renormalising again changed %v to %v (%v)", d.Probs, again.Probs, err)
		}
		back, err := Parse(d.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", d.String(), err)
		}
		bd := back.(*Discrete)
		if !slices.Equal(bd.Values, d.Values) || !slices.Equal(bd.Probs, d.Probs) {
			t.Fatalf("round trip %v -> %v", d, bd)
		}
		prev := 0.0
		for _, v := range d.Values {
			c := d.CDF(v)
			if c < prev || math.Abs(c+d.Survival(v)-1) > 1e-14 {
				t.Fatalf("at %v: CDF %v (prev %v), Survival %v", v, c, prev, d.Survival(v))
			}
			// Quantile is the generalised inverse of the (float64) CDF: the
			// first value whose CDF reaches c.
			if q := d.Quantile(c); c > 0 && (q > v || d.CDF(q) < c || (c > prev && q != v)) {
				t.Fatalf("Quantile(CDF(%v) = %v) = %v", v, c, q)
			}
			prev = c
		}
	})
}
