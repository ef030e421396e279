package iosim

import (
	"cmp"
	"math"
	"testing"
)

// clipMatchesBuiltins: clip's comparisons give, bit for bit, the builtins'
// max(0, min(b, w1) − max(a, w0)) for every pair drawn from values that
// include ±0, ±Inf, NaN and the window's own ends, over windows that start
// at −0, +0 or later (the oracle is the expression clip replaced).
func TestClipMatchesBuiltins(t *testing.T) {
	negZero := math.Copysign(0, -1)
	vals := []float64{negZero, 0, 1e-300, 1, 2.5, 3, 7, 1e300, -1, -1e-300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Nextafter(3, 0), math.Nextafter(7, 8)}
	windows := [][2]float64{{0, 7}, {negZero, 7}, {3, 7}, {3, 3}, {0, math.Inf(1)}, {2.5, 1e300}}
	n := 0
	for _, w := range windows {
		s := &simulator{w0: w[0], w1: w[1]}
		for _, a := range vals {
			for _, b := range vals {
				want := max(0, min(b, s.w1)-max(a, s.w0))
				got := s.clip(a, b)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("window [%v, %v]: clip(%v, %v) = %v (bits %x), the builtins give %v (bits %x)",
						w[0], w[1], a, b, got, math.Float64bits(got), want, math.Float64bits(want))
				}
				n++
			}
		}
	}
	if n != len(windows)*len(vals)*len(vals) {
		t.Fatalf("compared %d pairs", n)
	}
}

// TestReleaseBeforeMatchesCompare: releaseBefore's comparisons order every
// pair as cmp.Compare on the times, then the index, does (NaN first, ±0
// equal), over values that include ±0, ±Inf and NaN and equal times.
func TestReleaseBeforeMatchesCompare(t *testing.T) {
	negZero := math.Copysign(0, -1)
	vals := []float64{negZero, 0, 1, math.Nextafter(1, 2), -1, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000001)}
	for _, x := range vals {
		for _, y := range vals {
			for _, ij := range [][2]int{{0, 1}, {1, 0}, {2, 2}} {
				a, b := release{t: x, i: ij[0]}, release{t: y, i: ij[1]}
				c := cmp.Compare(x, y)
				want := c < 0 || (c == 0 && a.i < b.i)
				if got := releaseBefore(a, b); got != want {
					t.Errorf("releaseBefore(%v #%d, %v #%d) = %v, cmp.Compare's order gives %v", x, a.i, y, b.i, got, want)
				}
			}
		}
	}
}

// TestBuiltinMinIsMathMin: the builtin min that replaced math.Min in
// planStop (an assembly call on amd64) gives math.Min's bits for every
// pair of values from ±0, +Inf, NaN and finite ones. They differ only
// where one operand is −Inf and the other NaN (math.Min gives −Inf, min
// NaN, as this test finds if −Inf is added): planStop's operands, work or
// due times less progress or now, are never −Inf.
func TestBuiltinMinIsMathMin(t *testing.T) {
	vals := []float64{math.Copysign(0, -1), 0, 1, -1, 1e308, -1e308, math.Inf(1), math.NaN()}
	for _, x := range vals {
		for _, y := range vals {
			a, b := min(x, y), math.Min(x, y)
			if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("min(%v, %v) = %v, math.Min %v", x, y, a, b)
			}
		}
	}
}

// durationChecker is Least-Waste that first checks every request's
// Duration against Bytes / β, computed here.
type durationChecker struct {
	LeastWaste
	t     *testing.T
	asked *int
}

func (d durationChecker) Pick(now float64, w []Request, env Env) int {
	for _, r := range w {
		if want := r.Bytes / env.Bandwidth; math.Float64bits(r.Duration) != math.Float64bits(want) {
			d.t.Fatalf("job %d's request: Duration %v, Bytes / β = %v", r.Job, r.Duration, want)
		}
	}
	*d.asked += len(w)
	return d.LeastWaste.Pick(now, w, env)
}

// TestRequestDurationIsBytesOverBandwidth: the Duration an arbiter sees,
// computed once when the request is made, is its bytes over the
// bandwidth (the arbiter's view of every request, at every grant).
func TestRequestDurationIsBytesOverBandwidth(t *testing.T) {
	c := Cielo()
	st, err := Lookup("least-waste", 3600)
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	st.Arbiter = durationChecker{LeastWaste: st.Arbiter.(LeastWaste), t: t, asked: &asked}
	if _, err := Simulate(&c, st, Options{Span: 8 * Day, Skip: Day, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	if asked < 100 {
		t.Fatalf("the arbiter saw %d requests", asked)
	}
}
