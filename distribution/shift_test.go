package distribution

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"pgregory.net/rapid"
)

// integratePanels is ∫_lo^hi f by 20-point Gauss–Legendre on 200 equal panels:
// an oracle independent of the CDFs, quantiles and closed-form means.
func integratePanels(f func(float64) float64, lo, hi float64) float64 {
	const panels = 200
	h := (hi - lo) / panels
	var s float64
	for i := range panels {
		a := lo + float64(i)*h
		s += quad.Fixed(f, a, a+h, 20, quad.Legendre{}, 0)
	}
	return s
}

// TestPlacementByHand: exponential:rate=0.667,loc=1,a=0,b=9 is 1 + Exp(0.667)
// conditioned on [1, 9] (a = 0 lies below the shifted support), whose CDF
// is (1 − e^{−0.667(x−1)}) / (1 − e^{−0.667·8}) and whose mean is
// 1 + 1/0.667 − 8 e^{−0.667·8}/(1 − e^{−0.667·8}).
func TestPlacementByHand(t *testing.T) {
	d, err := Parse("exponential:rate=0.667,loc=1,a=0,b=9")
	if err != nil {
		t.Fatal(err)
	}
	const r = 0.667
	m := 1 - math.Exp(-r*8)
	for _, x := range []float64{0, 1, 1.5, 3, 8.99, 9, 12} {
		want := math.Min(math.Max((1-math.Exp(-r*(x-1)))/m, 0), 1)
		if got := d.CDF(x); math.Abs(got-want) > 1e-15 {
			t.Errorf("CDF(%v) = %v, want %v", x, got, want)
		}
	}
	wantMean := 1 + 1/r - 8*math.Exp(-r*8)/m
	if got := d.Mean(); math.Abs(got-wantMean) > 1e-13 {
		t.Errorf("Mean = %v, want %v", got, wantMean)
	}
	if lo, hi := d.Support(); lo != 1 || hi != 9 {
		t.Errorf("Support = [%v, %v], want [1, 9]", lo, hi)
	}
	// Table 3's Qball law: Gamma(k = 1.18, θ = 34) placed on [146 s, 407 s].
	q, err := Parse("gamma:alpha=1.18,beta=0.029411764705882353,loc=146,b=407")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := q.Support(); lo != 146 || hi != 407 {
		t.Errorf("Qball support = [%v, %v], want [146, 407]", lo, hi)
	}
}

// TestPlacementAgainstIntegration: for random families, locations and
// bounds, the CDF, Quantile and Mean of the shifted-truncated law agree
// with numeric integration of the parent's density f(x − loc) over [a, b].
func TestPlacementAgainstIntegration(t *testing.T) {
	gens := []func(t *rapid.T) string{
		func(t *rapid.T) string {
			return fmt.Sprintf("exponential:rate=%v", math.Exp(rapid.Float64Range(-3, 1).Draw(t, "rate")))
		},
		func(t *rapid.T) string {
			return fmt.Sprintf("weibull:k=%v,lambda=%v", rapid.Float64Range(1, 4).Draw(t, "k"), rapid.Float64Range(0.5, 20).Draw(t, "lambda"))
		},
		func(t *rapid.T) string {
			return fmt.Sprintf("gamma:alpha=%v,beta=%v", rapid.Float64Range(1, 6).Draw(t, "alpha"), rapid.Float64Range(0.1, 3).Draw(t, "beta"))
		},
		func(t *rapid.T) string {
			return fmt.Sprintf("lognormal:mu=%v,sigma=%v", rapid.Float64Range(-1, 2).Draw(t, "mu"), rapid.Float64Range(0.2, 1.2).Draw(t, "sigma"))
		},
		func(t *rapid.T) string {
			return fmt.Sprintf("pareto:xm=%v,alpha=%v", rapid.Float64Range(0.5, 5).Draw(t, "xm"), rapid.Float64Range(1, 4).Draw(t, "alpha"))
		},
	}
	rapid.Check(t, func(t *rapid.T) {
		baseSpec := gens[rapid.IntRange(0, len(gens)-1).Draw(t, "family")](t)
		base, err := Parse(baseSpec)
		if err != nil {
			t.Fatal(err)
		}
		loc := rapid.Float64Range(-50, 50).Draw(t, "loc")
		a := loc + base.Quantile(rapid.Float64Range(0.01, 0.8).Draw(t, "pa"))
		b := loc + base.Quantile(rapid.Float64Range(0.85, 0.99).Draw(t, "pb"))
		spec := fmt.Sprintf("%s,loc=%v,a=%v,b=%v", baseSpec, loc, a, b)
		d, err := Parse(spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", spec, err)
		}
		f := func(x float64) float64 { return base.PDF(x - loc) }
		mass := integratePanels(f, a, b)
		for _, u := range []float64{0.1, 0.37, 0.5, 0.81, 0.99} {
			x := a + u*(b-a)
			if want, got := integratePanels(f, a, x)/mass, d.CDF(x); math.Abs(got-want) > 1e-8 {
				t.Fatalf("%s: CDF(%v) = %v, integration gives %v", spec, x, got, want)
			}
			q := d.Quantile(u)
			if got := integratePanels(f, a, q) / mass; math.Abs(got-u) > 1e-8 {
				t.Fatalf("%s: Quantile(%v) = %v whose integrated CDF is %v", spec, u, q, got)
			}
		}
		wantMean := integratePanels(func(x float64) float64 { return x * f(x) }, a, b) / mass
		if got := d.Mean(); math.Abs(got-wantMean) > 1e-8*math.Max(1, math.Abs(wantMean)) {
			t.Fatalf("%s: Mean = %v, integration gives %v", spec, got, wantMean)
		}
		back, err := Parse(d.String())
		if err != nil || back.String() != d.String() {
			t.Fatalf("round trip %q -> %v, %v", d.String(), back, err)
		}
	})
}

// TestPlacementKeepsOldSpecs: a spec without placement keys parses to the
// very same value as before, and loc=0 without bounds is the parent itself.
func TestPlacementKeepsOldSpecs(t *testing.T) {
	for _, s := range []string{"exponential:rate=1", "weibull:k=0.5,lambda=1h", "discrete:1@0.5,2@0.5"} {
		d, _ := Parse(s)
		z, err := Parse(s + ",loc=0")
		if err != nil || z.String() != d.String() {
			t.Errorf("%s,loc=0 -> %v, %v; want %v", s, z, err, d)
		}
	}
	if d, _ := Parse("uniform:a=1,b=2,loc=3"); d == nil {
		t.Fatal("uniform with loc refused")
	} else if lo, hi := d.Support(); lo != 4 || hi != 5 {
		t.Errorf("uniform:a=1,b=2,loc=3 support [%v, %v], want [4, 5]", lo, hi)
	}
	d, err := Parse("discrete:1@0.5,2@0.5,loc=10,b=11.5")
	if err != nil || d.Mean() != 11 {
		t.Errorf("shifted truncated discrete: %v, %v (want mean 11)", d, err)
	}
	for _, bad := range []string{
		"exponential:rate=1,a=5",             // unbounded above
		"exponential:rate=1,loc=1,loc=2",     // duplicate
		"exponential:rate=1,loc=inf",         // non-finite
		"exponential:rate=1,loc=1,a=20,b=10", // empty interval
		"discrete:1@1,foo=2",                 // unknown key
		"weibull:k=1,lambda=1,a=-5,b=-1",     // outside the support
	} {
		if _, err := Parse(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want a one-line error", bad, err)
		}
	}
}
