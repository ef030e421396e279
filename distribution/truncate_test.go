package distribution

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// opaque hides everything but the Distribution interface, forcing Truncate
// onto its generic paths (numeric mean, Quantile(1−q) for the upper tail).
type opaque struct{ Distribution }

// TestTruncateAgainstIntegrals: for every family truncated to
// [Q(0.2), Q(0.9)], the mass, CDF and mean equal numeric integrals of the
// parent's density.
func TestTruncateAgainstIntegrals(t *testing.T) {
	for _, c := range familyCases() {
		d := c.d
		lo, hi := d.Quantile(0.2), d.Quantile(0.9)
		tr, err := Truncate(d, lo, hi)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mass := integrate(d.PDF, lo, hi)
		if e := relErr(tr.Mass(), mass); e > 1e-10 {
			t.Errorf("%s: Mass = %v, ∫pdf = %v", c.name, tr.Mass(), mass)
		}
		mean := integrate(func(x float64) float64 { return x * d.PDF(x) }, lo, hi) / mass
		if e := relErr(tr.Mean(), mean); e > 1e-10 {
			t.Errorf("%s: Mean = %.15g, ∫x f/m = %.15g", c.name, tr.Mean(), mean)
		}
		for _, f := range []float64{0.1, 0.5, 0.95} {
			x := lo + f*(hi-lo)
			want := integrate(d.PDF, lo, x) / mass
			if math.Abs(tr.CDF(x)-want) > 1e-10 || math.Abs(tr.CDF(x)+tr.Survival(x)-1) > 1e-14 {
				t.Errorf("%s: CDF(%v) = %v, want %v (Survival %v)", c.name, x, tr.CDF(x), want, tr.Survival(x))
			}
			if got := tr.Quantile(tr.CDF(x)); relErr(got, x) > 1e-9 {
				t.Errorf("%s: Quantile(CDF(%v)) = %v", c.name, x, got)
			}
		}
		if l, h := tr.Support(); l != lo || h != hi {
			t.Errorf("%s: Support = [%v, %v], want [%v, %v]", c.name, l, h, lo, hi)
		}
	}
}

// TestTruncateNumericMean compares the generic quadrature mean with the
// closed forms, on the paper's bounded laws (Bound at ν = 10⁻⁷).
func TestTruncateNumericMean(t *testing.T) {
	for _, c := range familyCases() {
		b, err := Bound(c.d, DefaultTailMass)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := b.Support()
		closed, err := Truncate(c.d, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		numeric, err := Truncate(opaque{c.d}, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(numeric.Mean(), closed.Mean()); e > 1e-12 {
			t.Errorf("%s: numeric mean %.15g, closed form %.15g (rel %.2g)", c.name, numeric.Mean(), closed.Mean(), e)
		}
	}
}

func TestTruncateTails(t *testing.T) {
	// Exponential(1) on [30, 31]: by memorylessness, X − 30 is Exp(1) on
	// [0, 1]; m = e^{−30}(1 − e^{−1}).
	tr, err := Truncate(Exponential{Rate: 1}, 30, 31)
	if err != nil {
		t.Fatal(err)
	}
	c := -math.Expm1(-1)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mass", tr.Mass(), math.Exp(-30) * c},
		{"CDF(30.5)", tr.CDF(30.5), -math.Expm1(-0.5) / c},
		{"mean", tr.Mean(), 30 + 1 - 1/math.Expm1(1)},
		{"median", tr.Quantile(0.5), 30 - math.Log1p(-0.5*c)},
		{"Quantile(1e-12)", tr.Quantile(1e-12), 30 - math.Log1p(-1e-12*c)},
	}
	// Gamma(2, 1) on [50, 51]: S(x) = e^{−x}(1 + x).
	g, err := Truncate(Gamma{Alpha: 2, Beta: 1}, 50, 51)
	if err != nil {
		t.Fatal(err)
	}
	gm := math.Exp(-50)*51 - math.Exp(-51)*52
	// E[X; 50 < X ≤ 51] = ∫ x² e^{−x} = [−(x² + 2x + 2)e^{−x}].
	gmean := (math.Exp(-50)*(2500+100+2) - math.Exp(-51)*(2601+102+2)) / gm
	checks = append(checks, []struct {
		name      string
		got, want float64
	}{
		{"gamma mass", g.Mass(), gm},
		{"gamma CDF(50.5)", g.CDF(50.5), (51*math.Exp(-50) - 51.5*math.Exp(-50.5)) / gm},
		{"gamma mean", g.Mean(), gmean},
	}...)
	// LogNormal(0, 1) on [e⁸, e⁹]: mass Q(8) − Q(9), from mpmath (gonum's
	// Normal.Survival is 1 − erf and has lost two digits there).
	ln, err := Truncate(LogNormal{Mu: 0, Sigma: 1}, math.Exp(8), math.Exp(9))
	if err != nil {
		t.Fatal(err)
	}
	checks = append(checks, struct {
		name      string
		got, want float64
	}{"lognormal mass", ln.Mass(), 6.219831985865830282868259670512219675230737236999e-16})
	// Normal(0, 1) on [−12, −10] is the TruncatedNormal reference above.
	nt, err := Truncate(Normal{Mu: 0, Sigma: 1}, -12, -10)
	if err != nil {
		t.Fatal(err)
	}
	checks = append(checks, []struct {
		name      string
		got, want float64
	}{
		{"normal mean", nt.Mean(), -10.09809323349993672},
		{"normal CDF(-11.875)", nt.CDF(-11.875), 8.1434916513240376675e-10},
		{"normal Quantile(0.3)", nt.Quantile(0.3), -10.118538515603847732},
	}...)
	// A narrow bin at the top is a difference of nearly equal survivals:
	// S(30.999) − S(31) loses log10(1/0.001) ≈ 3 digits, so 10⁻¹¹ there.
	if got, want := tr.Survival(30.999), -math.Expm1(-0.001)*math.Exp(-0.999)/c; relErr(got, want) > 1e-11 {
		t.Errorf("Survival(30.999) = %.17g, want %.17g", got, want)
	}
	for _, c := range checks {
		if e := relErr(c.got, c.want); e > 1e-12 {
			t.Errorf("%s = %.17g, want %.17g (rel %.2g)", c.name, c.got, c.want, e)
		}
	}
}

func TestTruncateErrors(t *testing.T) {
	cases := []struct {
		d      Distribution
		lo, hi float64
		want   string
	}{
		{Exponential{Rate: 1}, 2, 1, "need lo <= hi, got lo=2, hi=1"},
		{Exponential{Rate: 1}, math.NaN(), 1, "lo=NaN"},
		{Exponential{Rate: 1}, 1, math.Inf(1), "unbounded"},
		{Uniform{A: 0, B: 1}, 2, 3, "does not meet the support"},
		{Exponential{Rate: 1}, 800, 900, "no representable probability"},
		{Weibull{K: -1, Lambda: 1}, 0, 1, "k must be > 0 and finite, got -1"},
		{nil, 0, 1, "nil distribution"},
	}
	for _, c := range cases {
		_, err := Truncate(c.d, c.lo, c.hi)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Truncate(%v, %v, %v) error %v, want %q", c.d, c.lo, c.hi, err, c.want)
		}
	}
}

func TestTruncateNestedAndDiscrete(t *testing.T) {
	d := Exponential{Rate: 0.5}
	outer, _ := Truncate(d, 1, 10)
	inner, err := Truncate(outer, 2, 20)
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := Truncate(d, 2, 10)
	if lo, hi := inner.Support(); lo != 2 || hi != 10 {
		t.Errorf("nested support [%v, %v]", lo, hi)
	}
	if relErr(inner.Mean(), direct.Mean()) > 1e-15 || relErr(inner.CDF(5), direct.CDF(5)) > 1e-15 {
		t.Errorf("nested %v/%v, direct %v/%v", inner.Mean(), inner.CDF(5), direct.Mean(), direct.CDF(5))
	}
	if want := direct.Mass() / outer.Mass(); relErr(inner.Mass(), want) > 1e-14 {
		t.Errorf("nested Mass %v, want %v", inner.Mass(), want)
	}

	disc, _ := NewDiscrete([]float64{1, 2, 3, 4}, []float64{0.1, 0.2, 0.3, 0.4})
	tr, err := Truncate(disc, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if relErr(tr.Mass(), 0.5) > 1e-15 || relErr(tr.Mean(), (2*0.2+3*0.3)/0.5) > 1e-15 {
		t.Errorf("discrete truncation: mass %v mean %v", tr.Mass(), tr.Mean())
	}
	if relErr(tr.PDF(2), 0.4) > 1e-15 || tr.CDF(2.5) != tr.PDF(2) || tr.Survival(2) != tr.PDF(3) {
		t.Errorf("discrete truncation: PDF(2)=%v CDF(2.5)=%v S(2)=%v", tr.PDF(2), tr.CDF(2.5), tr.Survival(2))
	}
	if tr.Quantile(0.3) != 2 || tr.Quantile(0.5) != 3 {
		t.Errorf("discrete truncation quantiles %v %v", tr.Quantile(0.3), tr.Quantile(0.5))
	}
}

func TestBound(t *testing.T) {
	for _, c := range familyCases() {
		b, err := Bound(c.d, DefaultTailMass)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lo, hi := c.d.Support()
		if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
			if b != c.d {
				t.Errorf("%s: bounded law changed to %v", c.name, b)
			}
			continue
		}
		tr := b.(*Truncated)
		blo, bhi := tr.Support()
		if math.IsInf(hi, 1) {
			// b = Q(1 − ν): the parent's survival there is ν.
			if e := relErr(c.d.Survival(bhi), DefaultTailMass); e > 1e-9 {
				t.Errorf("%s: Survival(%v) = %v, want ν", c.name, bhi, c.d.Survival(bhi))
			}
		}
		if math.IsInf(lo, -1) {
			if want := math.Max(c.d.Quantile(DefaultTailMass), 0); blo != want {
				t.Errorf("%s: lower cut %v, want %v", c.name, blo, want)
			}
		} else if blo != lo {
			t.Errorf("%s: lower end moved from %v to %v", c.name, lo, blo)
		}
		if e := math.Abs(tr.Mass() - (1 - DefaultTailMass)); e > 2.1*DefaultTailMass {
			t.Errorf("%s: Mass %v", c.name, tr.Mass())
		}
	}
	n, err := Bound(Normal{Mu: 1, Sigma: 1}, DefaultTailMass)
	if err != nil {
		t.Fatal(err)
	}
	if lo, _ := n.Support(); lo != 0 {
		t.Errorf("normal(1,1) bounded below at %v, want 0", lo)
	}
	for _, nu := range []float64{0, 1, -1, math.NaN()} {
		if _, err := Bound(Exponential{Rate: 1}, nu); err == nil || !strings.Contains(err.Error(), "nu must be in (0, 1)") {
			t.Errorf("Bound(nu=%v) error %v", nu, err)
		}
	}
	if _, err := Bound(Normal{Mu: -100, Sigma: 1}, DefaultTailMass); err == nil {
		t.Error("Bound of a law entirely below 0 accepted")
	}
}

// TestTruncatedSampleMean: 200 000 draws of a truncated law (rejection and
// inversion paths) average to its mean within five standard errors.
func TestTruncatedSampleMean(t *testing.T) {
	laws := []Distribution{}
	for _, lh := range [][3]float64{{0.5, 0, 3}, {1, 2, 5}} { // mass ≥ ½ and < ½
		tr, err := Truncate(Gamma{Alpha: 2, Beta: lh[0]}, lh[1], lh[2])
		if err != nil {
			t.Fatal(err)
		}
		laws = append(laws, tr)
	}
	for i, d := range laws {
		r := rand.New(rand.NewPCG(uint64(i), 3))
		const n = 200000
		var s, s2 float64
		lo, hi := d.Support()
		for range n {
			x := d.Rand(r)
			if x < lo || x > hi {
				t.Fatalf("%v: draw %v outside support", d, x)
			}
			s += x
			s2 += x * x
		}
		m := s / n
		se := math.Sqrt((s2/n - m*m) / n)
		if math.Abs(m-d.Mean()) > 5*se {
			t.Errorf("%v: sample mean %v, Mean %v, 5 SE %v", d, m, d.Mean(), 5*se)
		}
	}
}
