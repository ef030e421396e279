package interval

import (
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/units"
)

// Section 4.2.2 through Advise: without C the plan takes the cheaper
// storage's C and R (local: 0.632 s and 3.22 s); its Theorem 1 plan is
// then the integer x of the storage table, 18 intervals (x* =
// √(200·2/1.264) = 17.79; the cost C(x−1) + R·E(Y) + Te·E(Y)/2x, computed
// below by hand, is lower at 18 than at 17 and 19).
func TestAdviseTakesCostsFromStorage(t *testing.T) {
	stores := []Storage{{"local", 0.632, 3.22}, {"shared", 1.67, 1.45}}
	a, err := Advise(Task{Te: 200, C: math.NaN(), R: math.NaN(), EY: 2, MTBF: math.NaN()}, stores)
	if err != nil {
		t.Fatal(err)
	}
	if a.Storage == nil || a.Storage.Chosen().Name != "local" || a.Task.C != 0.632 || a.Task.R != 3.22 {
		t.Fatalf("advice %+v storage %+v", a.Task, a.Storage)
	}
	if a.Task.MTBF != 100 {
		t.Errorf("MTBF %v, want Te/E(Y) = 100 (Corollary 1)", a.Task.MTBF)
	}
	cost := func(x float64) float64 { return 0.632*(x-1) + 3.22*2 + 200*2/(2*x) }
	if cost(18) >= cost(17) || cost(18) >= cost(19) {
		t.Fatalf("oracle: 18 is not the integer optimum")
	}
	if m := a.Methods[2]; m.Name != MethodMNOF || m.Intervals != 18 || !near(m.ExpectedWallclock, 200+cost(18), 1e-12) {
		t.Errorf("mnof %+v, want 18 intervals and E(Tw) = %v", m, 200+cost(18))
	}
	// The paper's form at x*: 28.29 and 37.78.
	if p := a.Storage; math.Abs(p.Real[0].Cost-28.29) > 0.005 || math.Abs(p.Real[1].Cost-37.78) > 0.005 {
		t.Errorf("costs at x*: %v %v", p.Real[0].Cost, p.Real[1].Cost)
	}
}

// A given C keeps the plan on the caller's costs: R stays 0 when not
// given, even though a storage is chosen.
func TestAdviseGivenCostsWin(t *testing.T) {
	stores := []Storage{{"local", 0.632, 3.22}, {"shared", 1.67, 1.45}}
	a, err := Advise(Task{Te: 200, C: 1, R: math.NaN(), EY: 2, MTBF: math.NaN()}, stores)
	if err != nil || a.Task.C != 1 || a.Task.R != 0 || a.Storage.Chosen().Name != "local" {
		t.Fatalf("%+v %v", a.Task, err)
	}
	a, err = Advise(Task{Te: 18, C: 2, R: math.NaN(), EY: 2, MTBF: math.NaN()}, nil)
	if err != nil || a.Storage != nil || a.Task.R != 0 || a.Methods[2].Intervals != 3 {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range []Task{
		{Te: 18, C: math.NaN(), R: 0, EY: 2, MTBF: math.NaN()},         // no C and no storage
		{Te: 18, C: 2, R: 0, EY: math.NaN(), MTBF: math.NaN()},         // no failure model
		{Te: 0, C: math.NaN(), R: math.NaN(), EY: 2, MTBF: math.NaN()}, // Te = 0 with storages
		{Te: 18, C: math.NaN(), R: math.NaN(), EY: -1, MTBF: math.NaN()},
	} {
		if _, err := Advise(bad, stores[:1]); err == nil && !math.IsNaN(bad.C) {
			t.Errorf("%+v accepted", bad)
		}
		if _, err := Advise(bad, nil); err == nil {
			t.Errorf("%+v accepted without storages", bad)
		}
	}
}

// Property: the chosen storage is the cheapest at the integer x, and every
// cost is C(x−1) + R·E(Y) + Te·E(Y)/2x, finite.
func TestPlanStorageProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		te := rapid.Float64Range(1, 1e6).Draw(rt, "te")
		ey := rapid.Float64Range(0, 100).Draw(rt, "ey")
		n := rapid.IntRange(1, 4).Draw(rt, "n")
		var s []Storage
		for i := range n {
			s = append(s, Storage{Name: string(rune('a' + i)), C: rapid.Float64Range(1e-3, 1e3).Draw(rt, "c"), R: rapid.Float64Range(0, 1e3).Draw(rt, "r")})
		}
		p, err := PlanStorage(te, ey, s)
		if err != nil {
			rt.Fatal(err)
		}
		for i, c := range p.Costs {
			want := c.C*(c.X-1) + c.R*ey + te*ey/(2*c.X)
			// Overhead is E(Tw) − Te: rounding of the order of Te·ε.
			if !(c.X >= 1) || c.X != math.Trunc(c.X) || math.Abs(c.Cost-want) > 1e-12*(te+want) || math.IsInf(c.Cost, 0) {
				rt.Fatalf("storage %d: %+v, want cost %v", i, c, want)
			}
			if c.Cost < p.Costs[p.Best].Cost {
				rt.Fatalf("storage %d costs %v < chosen %v", i, c.Cost, p.Costs[p.Best].Cost)
			}
			// The real x* is never worse than the integer x (Eq. 3 is the
			// continuous optimum, clamped at 1).
			if p.Real[i].Cost > c.Cost*(1+1e-12) {
				rt.Fatalf("storage %d: cost at x* %v above integer %v", i, p.Real[i].Cost, c.Cost)
			}
		}
	})
}

func TestParseStorage(t *testing.T) {
	for in, want := range map[string][2]float64{
		"0.632,3.22":      {0.632, 3.22},
		" 1m , 00:01:30 ": {60, 90},
		"2,0":             {2, 0},
		"1.5h,-0":         {5400, 0},
	} {
		s, err := ParseStorage("x", in)
		if err != nil || s.C != want[0] || s.R != want[1] || s.Name != "x" || math.Signbit(s.R) {
			t.Errorf("ParseStorage(%q) = %+v, %v; want C,R = %v", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "1", "1,2,3", "0,1", "-1,1", "1,-1", "x,1", "1,NaN", "Inf,1", "1e400,1", ",1", "1,"} {
		if s, err := ParseStorage("x", bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseStorage(%q) = %+v, %v; want a one-line error", bad, s, err)
		}
	}
}

// FuzzParseStorage: every accepted pair is a finite C > 0 and R >= 0 that
// the duration grammar gives for each part; every refusal is one line.
func FuzzParseStorage(f *testing.F) {
	for _, s := range []string{"0.632,3.22", "1m,00:01:30", "1-00:00:00,2d", "1,2,3", "1e308y,1", ",", "0,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseStorage("x", in)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") && !strings.ContainsAny(in, "\n\r") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if !(s.C > 0) || math.IsInf(s.C, 0) || !(s.R >= 0) || math.IsInf(s.R, 0) {
			t.Fatalf("%q: C=%v R=%v", in, s.C, s.R)
		}
		cs, rs, _ := strings.Cut(in, ",")
		c, err1 := units.ParseSeconds(strings.TrimSpace(cs))
		r, err2 := units.ParseSeconds(strings.TrimSpace(rs))
		if err1 != nil || err2 != nil || c != s.C || r+0 != s.R {
			t.Fatalf("%q: %v,%v but the grammar gives %v (%v), %v (%v)", in, s.C, s.R, c, err1, r, err2)
		}
	})
}
