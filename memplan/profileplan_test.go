package memplan

import (
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
)

// TestPlanSLANTOrdering checks orderings that hold by construction:
// C(M_0.1(t)) ≤ C(peak) pointwise, so MEM-ALL-CKPT's optimum is at most
// ALL-CKPT's; MEM-ALL-CKPT-V2 is the same DP with a forced first step, so
// its expected time is at least MEM-ALL-CKPT's; memory requests never
// exceed the peak.
func TestPlanSLANTOrdering(t *testing.T) {
	for _, name := range profile.Builtins {
		app, _ := profile.Builtin(name)
		ps, err := PlanApp(app, []float64{7000, 8000, 9000}, DefaultAppPlanOptions(app))
		if err != nil {
			t.Fatal(err)
		}
		ac, mac, v2 := ps.Plans[StrategyAllCkpt], ps.Plans[StrategyMemAllCkpt], ps.Plans[StrategyMemAllCkptV2]
		if mac.ExpectedTime > ac.ExpectedTime+1e-9 {
			t.Errorf("%s: MEM-ALL-CKPT %v > ALL-CKPT %v", name, mac.ExpectedTime, ac.ExpectedTime)
		}
		if v2 != nil && v2.ExpectedTime < mac.ExpectedTime-1e-9 {
			t.Errorf("%s: V2 %v < MEM-ALL-CKPT %v", name, v2.ExpectedTime, mac.ExpectedTime)
		}
		for _, p := range ps.Plans {
			for _, r := range p.Reservations {
				if r.Mem > app.PeakMemory() {
					t.Errorf("%s/%s asks %v GB > peak", name, p.Name, r.Mem)
				}
			}
		}
		for _, s := range []string{StrategyAllCkpt, StrategyMemAllCkpt, StrategyMemAllCkptV2} {
			if p := ps.Plans[s]; p != nil {
				t.Logf("%s %s: E[time] %.0f s, E[weighted mem] %.2f GB, %d reservations", name, s, p.ExpectedTime, p.ExpectedWeightedMemory, len(p.Reservations))
				for _, r := range p.Reservations {
					t.Logf("    W=%.0f T=%.0f C=%.1f R=%.1f M=%.1f p=%.3g", r.Length, r.Work, r.CheckpointTime, r.Restart, r.Mem, r.ProbNeeded)
				}
			}
		}
	}
}

// TestMemMargin: a 10 % margin multiplies every request by 1.1 and leaves
// the times alone.
func TestMemMargin(t *testing.T) {
	app, _ := profile.Builtin("slant")
	o := DefaultAppPlanOptions(app)
	o.N = 200
	a, err := PlanApp(app, []float64{8000}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.MemMargin = 0.1
	b, err := PlanApp(app, []float64{8000}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range AppStrategies {
		pa, pb := a.Plans[s], b.Plans[s]
		if len(pa.Reservations) != len(pb.Reservations) || pa.ExpectedTime != pb.ExpectedTime {
			t.Fatalf("%s: margin changed the times", s)
		}
		for i := range pa.Reservations {
			if d := pb.Reservations[i].Mem - 1.1*pa.Reservations[i].Mem; d > 1e-9 || d < -1e-9 {
				t.Fatalf("%s reservation %d: %v GB with margin, %v without", s, i+1, pb.Reservations[i].Mem, pa.Reservations[i].Mem)
			}
		}
	}
	o.MemMargin = -1
	if _, err := PlanApp(app, nil, o); err == nil {
		t.Fatal("negative margin accepted")
	}
}
