package reservation

import (
	"math"
	"math/rand/v2"
	"testing"
)

func discreteSurvival(values, probs []float64) func(float64) float64 {
	return func(x float64) float64 {
		s := 0.0
		for i, v := range values {
			if v > x {
				s += probs[i]
			}
		}
		return s
	}
}

// Theorem 1 (Eq. 7) must equal Eq. (5) averaged over the law, for arbitrary
// strategies, including milestones that are not support values.
func TestTheorem1EqualsEquation5(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		n := 1 + rng.IntN(10)
		values, probs := randomLaw(rng, n)
		c := randomCosts(rng)
		var s Strategy
		x := 0.0
		for x < values[n-1] {
			x += rng.Float64() * values[n-1] / 2
			if x >= values[n-1] || rng.IntN(4) == 0 {
				x = math.Max(x, values[n-1])
			}
			s = append(s, Step{Milestone: x, Checkpoint: rng.IntN(2) == 0})
		}
		mean := 0.0
		for i := range values {
			mean += values[i] * probs[i]
		}
		got := expectedCost(s, c, discreteSurvival(values, probs), mean)
		want := directCost(s, c, values, probs)
		if !closeRel(got, want, 1e-10) {
			t.Fatalf("Theorem 1 %v, Eq. (5) %v for %v", got, want, s)
		}
	}
}

// The introduction's example, with the paper's rounded probabilities
// P(X≤20) = 0.66, P(20<X≤40) = 0.26, P(X>40) = 0.08 and C = R = 7.
func TestIntroductionExample(t *testing.T) {
	values := []float64{20, 40, 80}
	probs := []float64{0.66, 0.26, 0.08}
	c := ReservationOnly(7, 7)
	for _, tc := range []struct {
		name string
		s    Strategy
		want float64
	}{
		{"S1", Strategy{{80, false}}, 80},
		{"S2", Strategy{{20, false}, {80, false}}, 47.2},
		{"S3", Strategy{{20, true}, {40, false}, {80, false}}, 41.54},
		// The paper prints 43.92 = 27×0.66 + 61×0.26 + 128×0.08, pricing the
		// third reservation as 7 + 60 + 61 as if the checkpoint at 40 were
		// not there. By Eq. (4) it is R + (80 − 40) = 47, so the last job
		// class pays 27 + 34 + 47 = 108: 42.32, still above S3's 41.54.
		{"S3~", Strategy{{20, true}, {40, true}, {80, false}}, 42.32},
		{"S3 without its second reservation", Strategy{{20, true}, {80, false}}, 49.78},
	} {
		if got := directCost(tc.s, c, values, probs); !closeRel(got, tc.want, 1e-12) {
			t.Errorf("%s: Eq. (5) gives %v, want %v", tc.name, got, tc.want)
		}
		got := expectedCost(tc.s, c, discreteSurvival(values, probs), 0)
		if !closeRel(got, tc.want, 1e-12) {
			t.Errorf("%s: Theorem 1 gives %v, want %v", tc.name, got, tc.want)
		}
	}
	rs := Reservations(Strategy{{20, true}, {40, false}, {80, false}}, c)
	for i, want := range []float64{27, 27, 67} {
		if rs[i].Length != want {
			t.Errorf("S3 reservation %d length %v, want %v", i+1, rs[i].Length, want)
		}
	}
}

func TestReservationsEquation4(t *testing.T) {
	// S = {(W1,1),(W2,0),(W3,1),(W4,0)} of Fig. 3 with milestones 2, 5, 7, 10.
	c := Costs{Alpha: 1, C: 0.5, R: 0.25}
	rs := Reservations(Strategy{{2, true}, {5, false}, {7, true}, {10, false}}, c)
	want := []Reservation{
		{Length: 2.5, Restart: 0, Work: 2, CheckpointTime: 0.5, Milestone: 2, Checkpoint: true, Saved: 2},
		{Length: 3.25, Restart: 0.25, Work: 3, Milestone: 5, Saved: 2},
		{Length: 5.75, Restart: 0.25, Work: 5, CheckpointTime: 0.5, Milestone: 7, Checkpoint: true, Saved: 7},
		{Length: 3.25, Restart: 0.25, Work: 3, Milestone: 10, Saved: 7},
	}
	for i := range want {
		if rs[i] != want[i] {
			t.Errorf("reservation %d = %+v, want %+v", i+1, rs[i], want[i])
		}
	}
}

func TestCostForOutsideThePlan(t *testing.T) {
	s := Strategy{{10, false}}
	if got := CostFor(s, ReservationOnly(1, 1), 11); !math.IsInf(got, 1) {
		t.Errorf("uncovered walltime cost %v, want +Inf", got)
	}
	if got := CostFor(s, Costs{Alpha: 1, Beta: 2, Gamma: 3}, 4); got != 10+8+3 {
		t.Errorf("cost %v, want 21", got)
	}
}
