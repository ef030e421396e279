package distribution

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseFamilies(t *testing.T) {
	cases := []struct {
		spec string
		want Distribution
	}{
		{"exponential:rate=0.001", Exponential{Rate: 0.001}},
		{"exponential:mean=2h", Exponential{Rate: 1.0 / 7200}},
		{"weibull:k=0.5,lambda=1h", Weibull{K: 0.5, Lambda: 3600}},
		{"gamma:alpha=2,beta=0.0005", Gamma{Alpha: 2, Beta: 0.0005}},
		{"lognormal:mu=3,sigma=0.5", LogNormal{Mu: 3, Sigma: 0.5}},
		{"pareto:xm=1.5h,alpha=3", Pareto{Xm: 5400, Alpha: 3}},
		{"truncnormal:mu=8h,sigma=90m,a=1h,b=20h", TruncatedNormal{Mu: 28800, Sigma: 5400, A: 3600, B: 72000}},
		{"uniform:a=1h,b=20h", Uniform{A: 3600, B: 72000}},
		{"beta:alpha=2,beta=2", Beta{Alpha: 2, Beta: 2, A: 0, B: 1}},
		{"beta:alpha=2,beta=3,a=1h,b=1d", Beta{Alpha: 2, Beta: 3, A: 3600, B: 86400}},
		{"boundedpareto:l=1h,h=20h,alpha=2.1", BoundedPareto{L: 3600, H: 72000, Alpha: 2.1}},
		{"normal:mu=21.4h,sigma=30m", Normal{Mu: 21.4 * 3600, Sigma: 1800}},
		{" Weibull : K = 2 , Lambda = 90m ", Weibull{K: 2, Lambda: 5400}},
		{"normal:mu=-5,sigma=1", Normal{Mu: -5, Sigma: 1}},
	}
	for _, c := range cases {
		got, err := Parse(c.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", c.spec, got, c.want)
		}
	}
	ln, err := Parse("lognormal:mean=21h,sd=20h")
	if err != nil {
		t.Fatal(err)
	}
	if relErr(ln.Mean(), 21*3600) > 1e-14 {
		t.Errorf("lognormal mean=21h: Mean %v", ln.Mean())
	}
	d, err := Parse("discrete:1h@0.25,2h@0.75")
	if err != nil {
		t.Fatal(err)
	}
	if dd := d.(*Discrete); !reflect.DeepEqual(dd.Values, []float64{3600, 7200}) || !reflect.DeepEqual(dd.Probs, []float64{0.25, 0.75}) {
		t.Errorf("discrete: %v", dd)
	}
	tr, err := Parse("truncated[0,80h]:lognormal:mean=21h,sd=20h")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := tr.Support(); lo != 0 || hi != 80*3600 {
		t.Errorf("truncated support [%v, %v]", lo, hi)
	}
	if got := Families(); len(got) != 11 || got[0] != "exponential" || got[10] != "discrete" {
		t.Errorf("Families() = %v", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "empty distribution spec"},
		{"weibull", `spec "weibull" has no ':'`},
		{"cauchy:x=1", `unknown family "cauchy"`},
		{"weibull:k=1,lambda=1,x=2", `weibull: unknown key "x"`},
		{"weibull:k=1", `weibull: missing key "lambda"`},
		{"weibull:k=1,k=2,lambda=1", `weibull: duplicate key "k"`},
		{"weibull:k=abc,lambda=1", `weibull: bad number for k: "abc"`},
		{"weibull:k=1,lambda=2x", `weibull: bad duration for lambda: "2x"`},
		{"weibull:k=NaN,lambda=1", `bad number for k: "NaN"`},
		{"weibull:k=-1,lambda=1", "weibull: k must be > 0 and finite, got -1"},
		{"weibull:", "weibull: no parameters"},
		{"weibull:k", `weibull: bad parameter "k" (want key=value)`},
		{"weibull:k=1,,lambda=1", `weibull: bad parameter ""`},
		{"gamma:alpha=2,beta=1h", `gamma: bad number for beta: "1h"`},
		{"exponential:rate=1,mean=2", `exponential: key "rate" cannot be combined with mean`},
		{"exponential:mean=-2", "exponential: mean must be > 0 and finite, got -2"},
		{"lognormal:mu=1,sd=2", `lognormal: missing key "mean"`},
		{"lognormal:mean=1h,sd=2h,mu=3", `key "mu" cannot be combined`},
		{"lognormal:mu=1,sigma=0", "lognormal: sigma must be > 0 and finite, got 0"},
		{"uniform:a=2h,b=1h", "uniform: need a < b, got a=7200, b=3600"},
		{"beta:alpha=1,beta=1,a=2", "beta: need a < b, got a=2, b=1"},
		{"discrete:", "discrete: no points"},
		{"discrete:1@0.5,2", `discrete: bad point "2"`},
		{"discrete:1@0.5,x@0.5", `bad duration for value: "x"`},
		{"discrete:1@0.5,2@y", `bad number for probability: "y"`},
		{"discrete:1@0.5,2@0.6", "must sum to 1"},
		{"discrete:2@0.5,1@0.5", "strictly increasing"},
		{"truncated[0,1h:exponential:rate=1", "bad truncation"},
		{"truncated[0]:exponential:rate=1", "bad truncation bounds"},
		{"truncated[0,zz]:exponential:rate=1", `bad duration for hi: "zz"`},
		{"truncated[1000,2000]:exponential:rate=1", "no representable probability"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		if err == nil {
			t.Errorf("Parse(%q) accepted", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) error %q, want %q", c.spec, err, c.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): multi-line error %q", c.spec, err)
		}
	}
}

// positive draws a positive finite float over many decades.
func positive(t *rapid.T, name string) float64 {
	return math.Exp(rapid.Float64Range(-20, 20).Draw(t, name))
}

// TestStringRoundTrip: for random valid parameters of every family,
// Parse(d.String()) is exactly d (shortest round-trip formatting), and the
// basic identities hold.
func TestStringRoundTrip(t *testing.T) {
	gens := map[string]func(t *rapid.T) Distribution{
		"exponential": func(t *rapid.T) Distribution { return Exponential{Rate: positive(t, "rate")} },
		"weibull": func(t *rapid.T) Distribution {
			return Weibull{K: math.Exp(rapid.Float64Range(-3, 3).Draw(t, "k")), Lambda: positive(t, "lambda")}
		},
		"gamma": func(t *rapid.T) Distribution {
			return Gamma{Alpha: math.Exp(rapid.Float64Range(-3, 6).Draw(t, "alpha")), Beta: positive(t, "beta")}
		},
		"lognormal": func(t *rapid.T) Distribution {
			return LogNormal{Mu: rapid.Float64Range(-20, 20).Draw(t, "mu"), Sigma: math.Exp(rapid.Float64Range(-5, 1).Draw(t, "sigma"))}
		},
		"pareto": func(t *rapid.T) Distribution {
			return Pareto{Xm: positive(t, "xm"), Alpha: math.Exp(rapid.Float64Range(-2, 3).Draw(t, "alpha"))}
		},
		"truncnormal": func(t *rapid.T) Distribution {
			mu := rapid.Float64Range(-1e5, 1e5).Draw(t, "mu")
			s := positive(t, "sigma")
			a := mu + s*rapid.Float64Range(-30, 30).Draw(t, "alpha")
			return TruncatedNormal{Mu: mu, Sigma: s, A: a, B: a + s*math.Exp(rapid.Float64Range(-3, 3).Draw(t, "width"))}
		},
		"uniform": func(t *rapid.T) Distribution {
			a := rapid.Float64Range(-1e6, 1e6).Draw(t, "a")
			return Uniform{A: a, B: a + positive(t, "width")}
		},
		"beta": func(t *rapid.T) Distribution {
			a := rapid.Float64Range(0, 1e6).Draw(t, "a")
			return Beta{Alpha: math.Exp(rapid.Float64Range(-2, 3).Draw(t, "alpha")), Beta: math.Exp(rapid.Float64Range(-2, 3).Draw(t, "beta")), A: a, B: a + positive(t, "width")}
		},
		"boundedpareto": func(t *rapid.T) Distribution {
			l := positive(t, "l")
			return BoundedPareto{L: l, H: l * math.Exp(rapid.Float64Range(0.01, 10).Draw(t, "logratio")), Alpha: math.Exp(rapid.Float64Range(-3, 3).Draw(t, "alpha"))}
		},
		"normal": func(t *rapid.T) Distribution {
			return Normal{Mu: rapid.Float64Range(-1e6, 1e6).Draw(t, "mu"), Sigma: positive(t, "sigma")}
		},
	}
	for name, gen := range gens {
		t.Run(name, rapid.MakeCheck(func(t *rapid.T) {
			d := gen(t)
			if err := validate(d); err != nil {
				t.Skip(err)
			}
			back, err := Parse(d.String())
			if err != nil {
				t.Fatalf("Parse(%q): %v", d.String(), err)
			}
			if !reflect.DeepEqual(back, d) {
				t.Fatalf("round trip %#v -> %#v", d, back)
			}
			for _, p := range []float64{0.001, 0.3, 0.5, 0.9, 0.999} {
				x := d.Quantile(p)
				if math.IsNaN(x) {
					t.Fatalf("Quantile(%v) is NaN", p)
				}
				c, s := d.CDF(x), d.Survival(x)
				if math.IsNaN(c) || math.IsNaN(s) || math.Abs(c+s-1) > 1e-13 {
					t.Fatalf("at Quantile(%v) = %v: CDF %v Survival %v", p, x, c, s)
				}
				// x is only known to its float64 spacing, which can be a
				// sizeable part of the law's width (σ = e⁻²⁰ at μ = 64).
				ulp := math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x)
				dens := math.Max(d.PDF(x), math.Max(d.PDF(x-ulp), d.PDF(x+ulp)))
				if tol := 1e-9 + 4*dens*ulp; math.Abs(c-p) > tol {
					t.Fatalf("CDF(Quantile(%v) = %v) = %v (tolerance %v)", p, x, c, tol)
				}
			}
			if m := d.Mean(); math.IsNaN(m) {
				t.Fatalf("Mean is NaN")
			}
		}))
	}
	t.Run("truncated", rapid.MakeCheck(func(t *rapid.T) {
		d := Weibull{K: math.Exp(rapid.Float64Range(-1, 2).Draw(t, "k")), Lambda: positive(t, "lambda")}
		lo := d.Quantile(rapid.Float64Range(0, 0.9).Draw(t, "plo"))
		hi := d.Quantile(rapid.Float64Range(0.91, 0.999999).Draw(t, "phi"))
		tr, err := Truncate(d, lo, hi)
		if err != nil {
			t.Skip(err)
		}
		back, err := Parse(tr.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", tr.String(), err)
		}
		if back.String() != tr.String() || back.Mean() != tr.Mean() {
			t.Fatalf("round trip %v -> %v", tr, back)
		}
	}))
}

// FuzzParse: Parse never panics; what it accepts has a non-empty support
// holding its quantiles and its mean, probabilities in [0, 1], and a spec
// (String) that reads back to the same law; a refusal is one line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"exponential:rate=1", "exponential:mean=2h", "weibull:k=0.5,lambda=1h",
		"gamma:alpha=2,beta=2", "lognormal:mu=3,sigma=0.5", "lognormal:mean=21h,sd=20h",
		"pareto:xm=1.5h,alpha=3", "truncnormal:mu=8h,sigma=1.4142h,a=1h,b=20h",
		"uniform:a=1h,b=20h", "beta:alpha=2,beta=2", "beta:alpha=2,beta=2,a=0,b=1h",
		"boundedpareto:l=1h,h=20h,alpha=2.1", "normal:mu=2h,sigma=30m",
		"discrete:1@0.5,2@0.5", "truncated[0,80h]:lognormal:mean=21h,sd=20h",
		"truncnormal:mu=0,sigma=1,a=10,b=12", "weibull:k=1e-300,lambda=1e300",
		"exponential:rate=0.667,loc=1,a=0,b=9", "gamma:alpha=1.18,beta=0.0294,loc=146,b=407",
		"uniform:a=1,b=2,loc=-3", "discrete:1@0.5,2@0.5,loc=1h,a=0", "weibull:k=2,lambda=1,loc=1e308",
		"", ":", "weibull:k=,lambda=", "truncated[", "discrete:@,@",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := Parse(spec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q: %q", spec, err)
			}
			return
		}
		lo, hi := d.Support()
		if !(lo <= hi) {
			t.Fatalf("%q: support [%v, %v]", spec, lo, hi)
		}
		for _, p := range []float64{0, 1e-9, 0.5, 1 - 1e-9, 1} {
			x := d.Quantile(p)
			if x < lo || x > hi {
				t.Fatalf("%q: Quantile(%v) = %v outside the support [%v, %v]", spec, p, x, lo, hi)
			}
			c, s := d.CDF(x), d.Survival(x)
			if !(c >= 0 && c <= 1 && s >= 0 && s <= 1) || (!math.IsInf(x, 0) && !(d.PDF(x) >= 0)) {
				t.Fatalf("%q at %v: CDF %v Survival %v PDF %v", spec, x, c, s, d.PDF(x))
			}
		}
		if m := d.Mean(); math.IsNaN(m) || (!math.IsInf(m, 0) && (m < lo || m > hi)) {
			t.Fatalf("%q: mean %v outside the support [%v, %v]", spec, m, lo, hi)
		}
		back, err := Parse(d.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok but its String %q fails: %v", spec, d.String(), err)
		}
		if back.String() != d.String() {
			t.Fatalf("String not stable: %q -> %q", d.String(), back.String())
		}
	})
}
