package slurm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/rng"
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

// Measures are Fig. 8's two numbers for one application and strategy.
type Measures struct {
	App, Strategy string
	Jobs          int
	// Utilization is Σ walltime / Σ time held; Stretch is the mean of
	// time held / walltime.
	Utilization, Stretch float64
	// ReservedUtilization and ReservedStretch are the same with the time
	// reserved (the RESERVATION-ONLY cost the plans minimise: the last
	// reservation in full) in place of the time held.
	ReservedUtilization, ReservedStretch float64
}

// Held is the time a job of walltime t holds a node under strategy s:
// every reservation before the one that completes it in full, then that
// one's restart and remaining work (package reservation's Eq. (5) with
// α = 0, β = 1, γ = 0). +Inf when no reservation covers t.
func Held(s reservation.Strategy, c, r, t float64) float64 {
	return reservation.CostFor(s, reservation.Costs{Beta: 1, C: c, R: r}, t)
}

// Simulate draws n walltimes of app (seed and the app's index give the
// stream) and returns the measures of each strategy on them. The HPC
// strategy of job i starts from the mean of the 5 walltimes before it (5
// warm-up runs drawn first) and grows by 50% per retry, from scratch.
func Simulate(ctx context.Context, app App, index, n int, seed uint64) ([]Measures, error) {
	d, err := app.Dist()
	if err != nil {
		return nil, err
	}
	r := rng.Stream(seed, uint64(index))
	ts := make([]float64, n+5)
	for i := range ts {
		ts[i] = d.Quantile(r.Float64())
	}
	costs := reservation.Costs{Alpha: 1, C: app.C, R: app.R}
	_, b := d.Support()
	var out []Measures
	for _, name := range Strategies {
		hs, rs := make([]float64, n), make([]float64, n)
		var s reservation.Strategy
		for i := range n {
			if i == 0 || name == HPC { // one plan for every job, but HPC's
				if s, err = strategyFor(ctx, name, d, costs, ts[i:i+5], b); err != nil {
					return nil, fmt.Errorf("%s %s: %v", app.Name, name, err)
				}
			}
			hs[i], rs[i] = Held(s, app.C, app.R, ts[i+5]), reservation.CostFor(s, costs, ts[i+5])
			if math.IsInf(hs[i], 0) {
				return nil, fmt.Errorf("%s %s: walltime %v not covered", app.Name, name, ts[i+5])
			}
		}
		m := Measures{App: app.Name, Strategy: name, Jobs: n}
		m.Utilization, m.Stretch = Measure(ts[5:], hs)
		m.ReservedUtilization, m.ReservedStretch = Measure(ts[5:], rs)
		out = append(out, m)
	}
	return out, nil
}
