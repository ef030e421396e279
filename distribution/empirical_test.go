package distribution

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEmpirical(t *testing.T) {
	d, err := Empirical([]float64{3, 1, 3, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Values, []float64{1, 2, 3}) {
		t.Errorf("Values %v", d.Values)
	}
	for i, want := range []float64{0.2, 0.2, 0.6} {
		if math.Abs(d.Probs[i]-want) > 1e-16 {
			t.Errorf("Probs[%d] = %v, want %v", i, d.Probs[i], want)
		}
	}
	if math.Abs(d.Mean()-12.0/5) > 1e-15 {
		t.Errorf("Mean %v", d.Mean())
	}
	back, err := Parse(d.String())
	if err != nil || back.String() != d.String() {
		t.Errorf("round trip %q -> %v, %v", d.String(), back, err)
	}
	one, err := Empirical([]float64{7})
	if err != nil || one.Len() != 1 || one.Mean() != 7 {
		t.Errorf("single sample: %v, %v", one, err)
	}
}

func TestEmpiricalErrors(t *testing.T) {
	cases := []struct {
		in   []float64
		want string
	}{
		{nil, "empirical: no samples"},
		{[]float64{1, 2, math.NaN()}, "sample 2 is not finite: NaN"},
		{[]float64{1, math.Inf(1)}, "sample 1 is not finite: +Inf"},
		{[]float64{1, -3, 2}, "sample 1 is negative: -3"},
	}
	for _, c := range cases {
		_, err := Empirical(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Empirical(%v) error %v, want %q", c.in, err, c.want)
		}
	}
}
