package memplan

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/registry"
)

// TestPlanSLANTOrdering checks orderings that hold by construction:
// C(M_0.1(t)) ≤ C(peak) pointwise, so MEM-ALL-CKPT's optimum is at most
// ALL-CKPT's; MEM-ALL-CKPT-V2 is the same DP with a forced first step, so
// its expected time is at least MEM-ALL-CKPT's; memory requests never
// exceed the peak.
func TestPlanSLANTOrdering(t *testing.T) {
	for _, name := range profile.Builtins {
		app, _ := profile.Builtin(name)
		ps, err := PlanApp(context.Background(), app, []float64{7000, 8000, 9000}, DefaultAppPlanOptions(app))
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
	a, err := PlanApp(context.Background(), app, []float64{8000}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.MemMargin = 0.1
	b, err := PlanApp(context.Background(), app, []float64{8000}, o)
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
	if _, err := PlanApp(context.Background(), app, nil, o); err == nil {
		t.Fatal("negative margin accepted")
	}
}

// TestAppStrategies: the registry keeps the names and display order of the
// paper's strategies (Section 4.3), refuses unknown or repeated names, and
// PlanApp plans exactly the strategies that are defined: NEURO and
// NEURO-AVG only with past runs, V2 only when the memory-hungry task is not
// the first.
func TestAppStrategies(t *testing.T) {
	want := []string{"all-ckpt", "mem-all-ckpt", "mem-all-ckpt-v2", "neuro", "neuro-avg"}
	if !slices.Equal(AppStrategies, want) {
		t.Fatalf("AppStrategies = %v, want %v", AppStrategies, want)
	}
	for _, s := range want {
		if err := CheckAppStrategy(s); err != nil {
			t.Errorf("CheckAppStrategy(%q) = %v", s, err)
		}
	}
	for _, bad := range []string{"", "nope", "ALL-CKPT"} {
		err := CheckAppStrategy(bad)
		if err == nil || !strings.Contains(err.Error(), "known: all-ckpt, mem-all-ckpt, mem-all-ckpt-v2, neuro, neuro-avg") {
			t.Errorf("CheckAppStrategy(%q) = %v", bad, err)
		}
	}
	if _, _, err := appStrategies.LookupList("neuro,mem-all-ckpt,neuro"); err == nil {
		t.Error("a strategy listed twice accepted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a strategy registered twice did not panic")
			}
		}()
		registry.New("strategy", appStrategies.Entries()[0], appStrategies.Entries()[0])
	}()
	for _, c := range []struct {
		name    string
		history []float64
		want    []string
	}{
		{"slant", nil, want[:3]},
		{"slant", []float64{7000, 8000}, want},
		{"macruise", []float64{7000}, []string{"all-ckpt", "mem-all-ckpt", "neuro", "neuro-avg"}},
	} {
		app, _ := profile.Builtin(c.name)
		o := DefaultAppPlanOptions(app)
		o.N = 200
		ps, err := PlanApp(context.Background(), app, c.history, o)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(ps.Plans))
		if !slices.Equal(got, slices.Sorted(slices.Values(c.want))) {
			t.Errorf("%s with %d past runs: plans %v, want %v", c.name, len(c.history), got, c.want)
		}
		for name, p := range ps.Plans {
			if p.Name != name {
				t.Errorf("plan %q is named %q", name, p.Name)
			}
		}
	}
}
