package reservation

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Expected costs are linear in (α, β, γ): scaling all three by k keeps the
// plan and scales every cost by k. Before normalisation α = 1e200 and
// 1e-200 gave other plans, still "certified".
func TestPlanCostScaleInvariance(t *testing.T) {
	law := distribution.LogNormal{Mu: 10.9, Sigma: 0.78}
	base := Options{Costs: Costs{Alpha: 1, Beta: 0.5, Gamma: 3600, C: 600, R: 600}, N: 2000, LowerBound: true, Baselines: true}
	ref, err := Plan(law, base)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []float64{1e200, 1e-200, 3} {
		o := base
		o.Costs.Alpha, o.Costs.Beta, o.Costs.Gamma = k, 0.5*k, 3600*k
		got, err := Plan(law, o)
		if err != nil {
			t.Fatalf("k=%g: %v", k, err)
		}
		if len(got.Reservations) != len(ref.Reservations) {
			t.Fatalf("k=%g: %d reservations, want %d", k, len(got.Reservations), len(ref.Reservations))
		}
		for i := range ref.Reservations {
			if got.Reservations[i].Reservation != ref.Reservations[i].Reservation {
				t.Errorf("k=%g: reservation %d is %+v, want %+v", k, i+1, got.Reservations[i], ref.Reservations[i])
			}
		}
		for _, p := range [][2]float64{{got.ExpectedCost, ref.ExpectedCost}, {got.LowerBound, ref.LowerBound}, {got.Omniscient, ref.Omniscient}} {
			if math.Abs(p[0]/k-p[1]) > 1e-12*p[1] {
				t.Errorf("k=%g: cost %v, want %v·k", k, p[0], p[1])
			}
		}
		for i, b := range got.Baselines {
			if math.Abs(b.ExpectedCost/k-ref.Baselines[i].ExpectedCost) > 1e-12*ref.Baselines[i].ExpectedCost {
				t.Errorf("k=%g: baseline %s %v", k, b.Name, b.ExpectedCost)
			}
		}
	}
}

// What float64 cannot hold is refused, not certified.
func TestPlanRefusesUnnormalisable(t *testing.T) {
	law := distribution.LogNormal{Mu: 10.9, Sigma: 0.78}
	for _, c := range []Costs{
		{Alpha: 1e305, C: 600, R: 600},           // costs overflow once scaled back
		{Alpha: 1e-300, Beta: 1, C: 600, R: 600}, // beta/alpha beyond MaxCostRatio
		{Alpha: 1e-320, C: 600, R: 600},          // subnormal: alpha·W loses digits
	} {
		if r, err := Plan(law, Options{Costs: c, N: 500}); err == nil {
			t.Errorf("%+v accepted: cost %v", c, r.ExpectedCost)
		}
	}
}

// A cancelled context stops a large plan within about a second.
func TestPlanContextCancel(t *testing.T) {
	law := distribution.LogNormal{Mu: 10.9, Sigma: 0.78}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := PlanContext(ctx, law, Options{Costs: ReservationOnly(600, 600), N: MaxGridPoints, LowerBound: true, Baselines: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("returned %v after the start, cancelled at 200ms", d)
	}
	// The periodic search is cancelled too.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := PlanContext(ctx, law, Options{Costs: ReservationOnly(600, 600), Algorithm: AlgoNoCkptPer, N: 100, MaxTau: MaxTauLimit}); !errors.Is(err, context.Canceled) {
		t.Errorf("periodic: err %v", err)
	}
}

func TestPlanProgress(t *testing.T) {
	law := distribution.Uniform{A: 0, B: 100}
	rows := map[string]int{}
	_, err := Plan(law, Options{Costs: ReservationOnly(1, 1), N: 300, LowerBound: true, Progress: func(step string, done, total int) {
		if total != 300 || done < 1 || done > total {
			t.Errorf("%s: %d of %d", step, done, total)
		}
		rows[step] = max(rows[step], done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rows["dyn-prog-count"] != 300 || rows["dyn-prog-count lower bound"] != 300 {
		t.Errorf("rows %v", rows)
	}
}

func TestPlanCaps(t *testing.T) {
	vals := make([]float64, MaxDistinctValues+1)
	for i := range vals {
		vals[i] = float64(i + 1)
	}
	emp, err := distribution.Empirical(vals)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(emp, Options{Costs: ReservationOnly(1, 1)}); err == nil || !strings.Contains(err.Error(), "distinct values") {
		t.Errorf("%d distinct values: %v", len(vals), err)
	}
	law := distribution.Uniform{A: 0, B: 100}
	if _, err := Plan(law, Options{Costs: ReservationOnly(1, 1), MaxTau: MaxTauLimit + 1}); err == nil {
		t.Error("MaxTau above the limit accepted")
	}
	if err := CheckAlgorithm("dyn-prog-count"); err != nil {
		t.Error(err)
	}
	if err := CheckAlgorithm("dp"); err == nil || !strings.Contains(err.Error(), "no-ckpt-per") {
		t.Errorf("unknown algorithm: %v", err)
	}
}
