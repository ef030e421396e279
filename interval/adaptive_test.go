package interval

import (
	"fmt"
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

// Positions returns the x−1 checkpoint positions, in work done, of x equal
// intervals over Te: Te/x, 2Te/x, …, (x−1)Te/x. O(x).
func Positions(te float64, x int) []float64 {
	if x <= 1 {
		return nil
	}
	p := make([]float64, x-1)
	for i := range p {
		p[i] = te * float64(i+1) / float64(x)
	}
	return p
}

// MNOFFunc gives the MNOF in force once the task has done `done` seconds of
// work: the expected number of failures over the whole task, Te, at the
// failure rate of that moment (a change of priority changes it).
type MNOFFunc func(done float64) float64

// Adaptive is Algorithm 1 of the paper: it returns the checkpoint positions,
// in work done, of a task of work Te and checkpoint cost C whose MNOF may
// change during the execution. The first interval comes from Formula (3)
// with the MNOF at the start; at each checkpoint, if the MNOF has changed
// (lines 9–12), the remaining work Tr is re-planned with Formula (3) for the
// expected number of failures over the remaining work, E_k(Y) = MNOF·Tr/Te
// (the proof of Theorem 2), and the next checkpoints are Tr/X apart.
// Formula (3) is taken in its integer form (Intervals).
//
// With always set, the positions are recomputed at every checkpoint even if
// the MNOF did not change. Theorem 2 says that this changes nothing; it
// holds for the integer form too: if X is the smallest n with n(n+1) ≥ x*²,
// the re-planned x'*² = x*²(X−1)²/X² satisfies (X−1)X ≥ x'*² (because
// x*² ≤ X(X+1) ≤ X³/(X−1)) and (X−2)(X−1) < x'*² (because x*² > (X−1)X ≥
// X²(X−2)/(X−1)), so the new count is exactly X−1.
//
// mnof values must be finite and ≥ 0. Cost O(number of checkpoints) calls
// of mnof.
func Adaptive(te, c float64, mnof MNOFFunc, always bool) ([]float64, error) {
	if !(te > 0) || math.IsInf(te, 0) {
		return nil, fmt.Errorf("work Te must be finite and > 0, got %v", te)
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("checkpoint cost C must be finite and > 0, got %v", c)
	}
	get := func(done float64) (float64, error) {
		m := mnof(done)
		if !(m >= 0) || math.IsInf(m, 0) {
			return 0, fmt.Errorf("MNOF at work %v must be finite and >= 0, got %v", done, m)
		}
		return m, nil
	}
	m, err := get(0)
	if err != nil {
		return nil, err
	}
	done := 0.0
	w := te / float64(Intervals(te, c, m))
	var pos []float64
	for {
		next := done + w
		if next >= te*(1-1e-12) {
			return pos, nil
		}
		pos = append(pos, next)
		done = next
		m2, err := get(done)
		if err != nil {
			return nil, err
		}
		if m2 != m || always {
			m = m2
			tr := te - done
			w = tr / float64(Intervals(tr, c, m*tr/te))
		}
	}
}
