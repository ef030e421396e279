package slurmexp

import (
	"context"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
)

// TestHeldByHand: the time held, worked out by hand from the definitions.
func TestHeldByHand(t *testing.T) {
	s := reservation.Strategy{{Milestone: 100, Checkpoint: true}, {Milestone: 300}}
	for _, tc := range []struct{ t, want float64 }{
		{50, 50},                    // done in the first reservation
		{100, 100},                  // exactly at its milestone
		{200, (100 + 10) + 5 + 100}, // first in full with its checkpoint, then restart + 100 s
		{301, math.Inf(1)},
	} {
		if got := Held(s, 10, 5, tc.t); got != tc.want {
			t.Errorf("Held(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	// HPC: mean of the last five runs (300), then ×1.5, from scratch.
	hpc, err := reservation.Escalating(reservation.NeuroFirst([]float64{100, 200, 300, 400, 500}, nil), 1.5, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got := Held(hpc, 10, 5, 500); got != 300+450+500 {
		t.Errorf("HPC held %v, want 1250", got)
	}
	u, st := Measure([]float64{100, 200}, []float64{100, 400})
	if u != 300.0/500 || st != 1.5 {
		t.Errorf("Measure = %v, %v", u, st)
	}
}

// TestSimulateTable3: every strategy covers every job; utilisation in
// (0, 1], stretch ≥ 1, and the two are consistent (a strategy that holds
// nodes exactly the walltime would score 1 and 1).
func TestSimulateTable3(t *testing.T) {
	for i, app := range Apps() {
		if _, err := app.Dist(); err != nil {
			t.Fatal(err)
		}
		ms, err := Simulate(context.Background(), app, i, 200, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 3 {
			t.Fatalf("%s: %d strategies", app.Name, len(ms))
		}
		for _, m := range ms {
			if !(m.Utilization > 0 && m.Utilization <= 1 && m.Stretch >= 1) || m.ReservedUtilization > m.Utilization || m.ReservedStretch < m.Stretch {
				t.Errorf("%+v out of range (a job holds at most what it reserved)", m)
			}
			t.Logf("%-6s %-15s held: utilisation %.3f stretch %.3f; reserved: %.3f %.3f", m.App, m.Strategy, m.Utilization, m.Stretch, m.ReservedUtilization, m.ReservedStretch)
		}
	}
}
