package reservation

import (
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

func TestParseStrategySlurmClock(t *testing.T) {
	s, err := ParseStrategy("01:30:00:ckpt, 1-00:00:00 ,30:00:00:no")
	if err != nil {
		t.Fatal(err)
	}
	want := Strategy{{5400, true}, {86400, false}, {108000, false}}
	if len(s) != 3 || s[0] != want[0] || s[1] != want[1] || s[2] != want[2] {
		t.Fatalf("got %v", s)
	}
	for _, bad := range []string{"20:", "01:00:00:maybe", "01:00:99"} {
		if _, err := ParseStrategy(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseEpsilons(t *testing.T) {
	got, err := ParseEpsilons(" 0.5,1, 2e-3")
	if err != nil || len(got) != 3 || got[0] != 0.5 || got[1] != 1 || got[2] != 2e-3 {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,", "1,1", "0", "-1", "NaN", "Inf", "1e999", "x"} {
		if _, err := ParseEpsilons(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseEpsilons: an accepted list has one finite, positive, distinct
// value per comma-separated item.
func FuzzParseEpsilons(f *testing.F) {
	for _, seed := range []string{"1", "0.1,1", "1,1", ",", "1e-300,1e300", "NaN", " 2 , 3 "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		eps, err := ParseEpsilons(in)
		if err != nil {
			return
		}
		if len(eps) != strings.Count(in, ",")+1 {
			t.Fatalf("%q: %d values", in, len(eps))
		}
		for _, e := range eps {
			if !(e > 0) || math.IsInf(e, 0) {
				t.Fatalf("%q gave %v", in, e)
			}
		}
	})
}

// FuzzLawThroughPlan: a law spec that parses either is refused by Plan or
// gives a finite plan whose cost is at least the omniscient cost and at
// least its certified lower bound.
func FuzzLawThroughPlan(f *testing.F) {
	for _, seed := range []string{"lognormal:mean=21.4h,sd=19.7h", "weibull:k=0.5,lambda=1h", "exponential:rate=1e-3",
		"pareto:xm=1h,alpha=0.9", "uniform:a=0,b=20h", "discrete:20@0.66,40@0.26,80@0.08", "normal:mu=1h,sigma=10m",
		"gamma:alpha=0.01,beta=1e-9", "beta:alpha=2,beta=3", "truncnormal:mu=0,sigma=1,a=0,b=1e-300"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := distribution.Parse(spec)
		if err != nil {
			return
		}
		o := Options{Costs: Costs{Alpha: 1, Beta: 0.5, Gamma: 10, C: 60, R: 60}, N: 64, MaxTau: 16, Baselines: true, LowerBound: true}
		res, err := Plan(d, o)
		if err != nil {
			return
		}
		if len(res.Reservations) == 0 {
			t.Fatalf("%s: empty plan", spec)
		}
		for _, v := range []float64{res.ExpectedCost, res.Omniscient} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: cost %v", spec, v)
			}
		}
		tol := 1e-9 * math.Abs(res.ExpectedCost)
		if res.ExpectedCost < res.Omniscient-tol {
			t.Fatalf("%s: cost %v below the omniscient %v", spec, res.ExpectedCost, res.Omniscient)
		}
		if !math.IsNaN(res.LowerBound) && res.LowerBound > res.ExpectedCost+tol {
			t.Fatalf("%s: lower bound %v above the cost %v", spec, res.LowerBound, res.ExpectedCost)
		}
		for _, r := range res.Reservations {
			if math.IsNaN(r.Length) || math.IsInf(r.Length, 0) || r.Length < 0 || r.ProbNeeded < 0 || r.ProbNeeded > 1 {
				t.Fatalf("%s: reservation %+v", spec, r)
			}
		}
	})
}
