package interval

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Theorem 2: recomputing at every checkpoint with an unchanged MNOF gives
// the same positions as the static plan of Theorem 1.
func TestTheorem2UnchangedMNOF(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		te := rapid.Float64Range(1, 1e5).Draw(t, "te")
		c := rapid.Float64Range(0.1, 100).Draw(t, "c")
		m := rapid.Float64Range(0, 30).Draw(t, "mnof")
		x := Intervals(te, c, m)
		if x > 5000 {
			t.Skip("too many checkpoints")
		}
		static := Positions(te, x)
		got, err := Adaptive(te, c, func(float64) float64 { return m }, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(static) {
			t.Fatalf("adaptive %d checkpoints, static %d (x=%d)", len(got), len(static), x)
		}
		for i := range got {
			if !near(got[i], static[i], 1e-9) {
				t.Fatalf("checkpoint %d at %v, static %v", i, got[i], static[i])
			}
		}
	})
}

// A change of MNOF re-plans the remaining work: hand-computed case. Te =
// 100, C = 1, MNOF 2 → x* = 10, checkpoints every 10. After the first
// checkpoint the MNOF becomes 8: remaining 90 with E(Y) = 8·0.9 = 7.2,
// x*² = 90·7.2/2 = 324, x = 18 → every 5 s.
func TestAdaptiveMNOFChange(t *testing.T) {
	mnof := func(done float64) float64 {
		if done < 10 {
			return 2
		}
		return 8
	}
	got, err := Adaptive(100, 1, mnof, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 18 || got[0] != 10 || !near(got[1], 15, 1e-12) || !near(got[17], 95, 1e-12) {
		t.Fatalf("positions %v", got)
	}
	if _, err := Adaptive(100, 1, func(float64) float64 { return math.NaN() }, false); err == nil {
		t.Error("NaN MNOF accepted")
	}
	if _, err := Adaptive(0, 1, mnof, false); err == nil {
		t.Error("Te = 0 accepted")
	}
}
