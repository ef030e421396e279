package reservation

import (
	"context"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// sharedVsFull solves the Eq. (9) grid of x with n points in the class,
// then the lower bound both ways: read off the plan's dynamic program
// (sharedLowerBound) and by the full dynamic program on the lower grid (the
// oracle). It also returns the cost that approximate reports.
func sharedVsFull(t interface {
	Helper()
	Fatalf(string, ...any)
	Fatal(...any)
}, x distribution.Distribution, c Costs, class Class, n int) (shared, full float64) {
	t.Helper()
	y, err := distribution.Discretize(x, n)
	if err != nil {
		t.Fatal(err)
	}
	a, b := x.Support()
	lower := lowerGrid(y.Values, a, b, n)
	sol, _, err := solveLaw(context.Background(), y.Values, y.Probs, c, class, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	shared, ok := sharedLowerBound(sol, lower, y.Probs)
	if !ok {
		t.Fatalf("%v n=%d: the lower bound cannot be shared", x, n)
	}
	_, full, err = dynProgCount(context.Background(), lower, y.Probs, c, class, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return shared, full
}

// The lower bound read off the plan's dynamic program equals the full
// dynamic program's on the lower grid up to rounding: 10⁻¹² relative, on
// many laws, sizes and cost models with β = 0, in every class.
func TestSharedLowerBoundMatchesFullDP(t *testing.T) {
	laws := continuousLaws(t)
	names := make([]string, 0, len(laws))
	for name := range laws {
		names = append(names, name)
	}
	worst := 0.0
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "law")
		x := laws[name]
		if rapid.Bool().Draw(t, "shift") {
			// A support far from 0: the differences v_j − v_{i_c} then
			// lose the most digits.
			s := rapid.SampledFrom([]float64{0, 1, 1e3, 1e6}).Draw(t, "offset")
			x = distribution.Uniform{A: s, B: s + rapid.Float64Range(0.5, 50).Draw(t, "width")}
		}
		n := rapid.IntRange(1, 400).Draw(t, "n")
		class := rapid.SampledFrom([]Class{Mixed, AllCkpt, NoCkpt}).Draw(t, "class")
		c := Costs{Alpha: rapid.Float64Range(0.1, 3).Draw(t, "alpha"),
			C: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "C"),
			R: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "R")}
		if rapid.Bool().Draw(t, "gamma") {
			c.Gamma = rapid.Float64Range(0, 5).Draw(t, "gammaValue")
		}
		shared, full := sharedVsFull(t, x, c, class, n)
		d := 0.0 // both 0 when the lower law is the point 0
		if shared != full {
			d = math.Abs(shared-full) / math.Abs(full)
		}
		worst = max(worst, d)
		if !(d <= 1e-12) {
			t.Fatalf("%s %v n=%d: shared %v, full %v (%.3g relative)", name, class, n, shared, full, d)
		}
		// Scaled by its margin the shared bound is below the full one.
		a, b := x.Support()
		if adj := shared * (1 - shareMargin(a, b, n)); adj > full {
			t.Fatalf("%s %v n=%d: shared %v less its margin is %v, above the full %v", name, class, n, shared, adj, full)
		}
	})
	t.Logf("largest relative difference %.3g", worst)
}

// The default `ckpt reserve` grid (the paper's neuroscience LogNormal,
// C = R = 600 s, n = 16 653): the shared lower bound is the full dynamic
// program's up to rounding, and approximate reports it (below the cost).
func TestSharedLowerBoundDefaultGrid(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two dynamic programs of n = 16 653")
	}
	d, err := distribution.Parse("lognormal:mean=21.4h,sd=19.7h")
	if err != nil {
		t.Fatal(err)
	}
	x := bounded(t, d)
	c := Costs{Alpha: 1, C: 600, R: 600}
	n, _, err := GridSize(x, c, 1)
	if err != nil {
		t.Fatal(err)
	}
	n = min(n, DefaultMaxN)
	if n != 16653 {
		t.Fatalf("default grid has %d points, want 16 653", n)
	}
	shared, full := sharedVsFull(t, x, c, Mixed, n)
	if d := math.Abs(shared-full) / full; !(d <= 1e-12) {
		t.Fatalf("shared %v, full %v (%.3g relative)", shared, full, d)
	}
	ap, err := Approximate(x, c, Mixed, n, true)
	if err != nil {
		t.Fatal(err)
	}
	a, b := x.Support()
	if ap.LowerBound != math.Min(shared*(1-shareMargin(a, b, n)), ap.Cost) {
		t.Errorf("approximate reports %v, shared %v (cost %v)", ap.LowerBound, shared, ap.Cost)
	}
	t.Logf("shared %.17g, full %.17g", shared, full)
}

// With β > 0, or a support so far from 0 that the rounding margin would
// loosen the bound, or in the O(n) classes, the lower bound is not shared:
// approximate gives the full dynamic program's value, bit for bit.
func TestLowerBoundNotSharedIsTheFullDP(t *testing.T) {
	for _, tc := range []struct {
		name  string
		x     distribution.Distribution
		c     Costs
		class Class
	}{
		{"beta", distribution.TruncatedNormal{Mu: 8, Sigma: math.Sqrt2, A: 1, B: 20}, Costs{Alpha: 1, Beta: 0.5, Gamma: 0.2, C: 0.3, R: 0.2}, Mixed},
		{"far from 0", distribution.Uniform{A: 1e6, B: 1e6 + 1}, Costs{Alpha: 1, Gamma: 0.2, C: 0.3, R: 0.2}, Mixed},
		{"all-ckpt", distribution.Uniform{A: 1, B: 20}, Costs{Alpha: 1, Gamma: 0.2, C: 0.3, R: 0.2}, AllCkpt},
		{"no-ckpt", distribution.Uniform{A: 1, B: 20}, Costs{Alpha: 1, Gamma: 0.2, C: 0.3, R: 0.2}, NoCkpt},
	} {
		const n = 200
		a, b := tc.x.Support()
		if canShareLowerBound(tc.c, tc.class, a, b, n) {
			t.Fatalf("%s: must not share", tc.name)
		}
		y, err := distribution.Discretize(tc.x, n)
		if err != nil {
			t.Fatal(err)
		}
		_, full, err := DynProgCount(lowerGrid(y.Values, a, b, n), y.Probs, tc.c, tc.class)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := Approximate(tc.x, tc.c, tc.class, n, true)
		if err != nil {
			t.Fatal(err)
		}
		if ap.LowerBound != math.Min(full, ap.Cost) {
			t.Errorf("%s: lower bound %v, full dynamic program %v", tc.name, ap.LowerBound, full)
		}
	}
}
