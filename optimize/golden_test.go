package optimize

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// The three searches this package replaced, as they were written in
// capacity (bestLambda), interval (Runs.BestFixed) and iosim
// (FractionBound's dual): the oracle of the bit-identity claim. Each
// returns the final bracket and interior values.

func refCapacity(f func(float64) float64, lo, hi float64) Bracket {
	const g = 0.6180339887498949
	x1, x2 := hi-g*(hi-lo), lo+g*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for range 10 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - g*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(hi-lo)
			f2 = f(x2)
		}
	}
	return Bracket{Lo: lo, Hi: hi, X1: x1, X2: x2, F1: f1, F2: f2}
}

func refInterval(f func(float64) float64, a, b, tol float64) Bracket {
	g := (math.Sqrt(5) - 1) / 2
	p1, p2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(p1), f(p2)
	for i := 0; i < 40 && b-a > tol; i++ {
		if f1 < f2 {
			b, p2, f2 = p2, p1, f1
			p1 = b - g*(b-a)
			f1 = f(p1)
		} else {
			a, p1, f1 = p1, p2, f2
			p2 = a + g*(b-a)
			f2 = f(p2)
		}
	}
	return Bracket{Lo: a, Hi: b, X1: p1, X2: p2, F1: f1, F2: f2}
}

func refIosimDual(dual func(float64) float64, a, b float64) Bracket {
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := dual(x1), dual(x2)
	for range 100 {
		if f1 < f2 {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = dual(x2)
		} else {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = dual(x1)
		}
	}
	return Bracket{Lo: a, Hi: b, X1: x1, X2: x2, F1: f1, F2: f2}
}

// recorder wraps f and records its arguments.
func recorder(f func(float64) float64) (func(float64) float64, *[]float64) {
	var xs []float64
	return func(x float64) float64 { xs = append(xs, x); return f(x) }, &xs
}

// drawFunc draws a function with ties (quantised values), plateaus of +Inf
// and −Inf, and sometimes NaN: the cases where tie and NaN rules matter.
func drawFunc(t *rapid.T) func(float64) float64 {
	c := rapid.Float64Range(-10, 10).Draw(t, "c")
	q := rapid.SampledFrom([]float64{0, 1, 1e3, 1e9}).Draw(t, "quantum")
	infBelow := rapid.Float64Range(-20, 20).Draw(t, "infBelow")
	nanAbove := rapid.Float64Range(-20, 40).Draw(t, "nanAbove")
	sign := rapid.SampledFrom([]float64{1, -1}).Draw(t, "sign")
	return func(x float64) float64 {
		switch {
		case x > nanAbove:
			return math.NaN()
		case x < infBelow:
			return sign * math.Inf(1)
		}
		v := (x - c) * (x - c)
		if q > 0 {
			v = math.Floor(v*q) / q
		}
		return sign * v
	}
}

// same is bit equality, but for NaN payloads and the sign of a zero bound
// of a collapsed bracket ([−0, 0]: the reference steps on and writes 0).
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b)) || (a == 0 && b == 0)
}

// sameBracket checks got against the reference: the same evaluations in
// the same order, except that the reference may go on evaluating the one
// point of a collapsed bracket; and the same final bracket, bit for bit.
func sameBracket(t *rapid.T, got, want Bracket, gotXs, wantXs []float64) {
	if len(gotXs) > len(wantXs) {
		t.Fatalf("%d evaluations, the reference %d", len(gotXs), len(wantXs))
	}
	for i := range wantXs {
		switch {
		case i < len(gotXs) && !same(gotXs[i], wantXs[i]):
			t.Fatalf("evaluation %d at %v, the reference at %v", i, gotXs[i], wantXs[i])
		case i >= len(gotXs) && (got.Lo != got.Hi || wantXs[i] != got.Lo):
			t.Fatalf("stopped after %d evaluations in [%v, %v]; the reference went on at %v", len(gotXs), got.Lo, got.Hi, wantXs[i])
		}
	}
	g := []float64{got.Lo, got.Hi, got.X1, got.X2, got.F1, got.F2}
	w := []float64{want.Lo, want.Hi, want.X1, want.X2, want.F1, want.F2}
	for i := range g {
		if !same(g[i], w[i]) {
			t.Fatalf("bracket %+v, the reference %+v", got, want)
		}
	}
	if got.Evaluations != len(gotXs) {
		t.Fatalf("Evaluations = %d, the function was called %d times", got.Evaluations, len(gotXs))
	}
}

// TestGoldenMatchesReplacedSearches: the same evaluation points in the same
// order and the same final bracket, bit for bit, as each replaced search,
// ties, infinities and NaN included; only the repeated evaluations of a
// collapsed bracket are left out.
func TestGoldenMatchesReplacedSearches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := drawFunc(t)
		lo := rapid.Float64Range(-20, 20).Draw(t, "lo")
		hi := lo + rapid.SampledFrom([]float64{0, 1e-9, 1, 7, 30}).Draw(t, "width")

		fr, want := recorder(f)
		ref := refCapacity(fr, lo, hi)
		fg, got := recorder(f)
		b := Golden{Steps: 10, Ties: TiesLeft}.Minimize(fg, lo, hi)
		sameBracket(t, b, ref, *got, *want)

		tol := rapid.SampledFrom([]float64{0, 1e-6, 0.1}).Draw(t, "tol")
		fr, want = recorder(f)
		ref = refInterval(fr, lo, hi, tol)
		fg, got = recorder(f)
		b = Golden{Steps: 40, Tol: tol, Ties: TiesRight}.Minimize(fg, lo, hi)
		sameBracket(t, b, ref, *got, *want)

		fr, want = recorder(f)
		ref = refIosimDual(fr, lo, hi)
		fg, got = recorder(f)
		b = Golden{Steps: 100, Ties: TiesLeft}.Maximize(fg, lo, hi)
		sameBracket(t, b, ref, *got, *want)
	})
}

// TestGoldenFindsExtremum: on (x−c)² the minimum stays in the bracket, the
// bracket shrinks by Ratio per step, and the kept values are the best seen
// (closed form, independent of the reference loops); likewise the maximum
// of −(x−c)².
func TestGoldenFindsExtremum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Float64Range(-100, 100).Draw(t, "lo")
		w := rapid.Float64Range(1e-3, 100).Draw(t, "width")
		hi := lo + w
		c := lo + rapid.Float64Range(0, 1).Draw(t, "at")*w
		steps := rapid.IntRange(0, 30).Draw(t, "steps")
		ties := rapid.SampledFrom([]Ties{TiesLeft, TiesRight}).Draw(t, "ties")
		for _, sign := range []float64{1, -1} {
			var seen []float64
			f := func(x float64) float64 { v := sign * (x - c) * (x - c); seen = append(seen, v); return v }
			g := Golden{Steps: steps, Ties: ties}
			var b Bracket
			if sign > 0 {
				b = g.Minimize(f, lo, hi)
			} else {
				b = g.Maximize(f, lo, hi)
			}
			slack := 1e-9 * (math.Abs(lo) + math.Abs(hi))
			if c < b.Lo-slack || c > b.Hi+slack {
				t.Fatalf("sign %v: extremum %v outside [%v, %v]", sign, c, b.Lo, b.Hi)
			}
			if !(b.Lo <= b.X1+slack && b.X1 <= b.X2+slack && b.X2 <= b.Hi+slack) {
				t.Fatalf("points out of order: %+v", b)
			}
			if want := w * math.Pow(Ratio, float64(steps)); math.Abs((b.Hi-b.Lo)-want) > 1e-6*w+slack {
				t.Fatalf("width %v after %d steps, want %v", b.Hi-b.Lo, steps, want)
			}
			best := sign * math.Min(sign*b.F1, sign*b.F2)
			for _, v := range seen {
				if sign*v < sign*best {
					t.Fatalf("sign %v: value %v seen but the bracket keeps %v", sign, v, best)
				}
			}
			if b.Evaluations != steps+2 || len(seen) != steps+2 {
				t.Fatalf("%d evaluations (%d recorded), want %d", b.Evaluations, len(seen), steps+2)
			}
		}
	})
}

// TestGoldenTol: no step once the bracket is no wider than Tol.
func TestGoldenTol(t *testing.T) {
	sq := func(x float64) float64 { return x * x }
	b := Golden{Steps: 1000, Tol: 1e-3}.Minimize(sq, -1, 2)
	if w := b.Hi - b.Lo; w > 1e-3 || w <= 1e-3*Ratio*(1-1e-9) {
		t.Errorf("width %v, want in (Ratio·1e-3, 1e-3]", w)
	}
	// n steps from width 3 to ≤ 1e-3: n = ⌈ln(1e-3/3)/ln Ratio⌉ = 17.
	if b.Evaluations != 2+17 {
		t.Errorf("%d evaluations, want 19", b.Evaluations)
	}
	if b := (Golden{Steps: 5}).Minimize(sq, 1, 1); b.Evaluations != 2 || b.X1 != 1 || b.X2 != 1 {
		t.Errorf("empty bracket: %+v, want no step at x = 1", b)
	}
}
