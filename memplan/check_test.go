package memplan

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/profile"
)

func twoTasks(second distribution.Distribution, mem float64) *profile.App {
	return &profile.App{Name: "t", Tasks: []profile.Task{
		{Name: "a", Walltime: distribution.Normal{Mu: 600, Sigma: 60}, Mem: 2},
		{Name: "b", Walltime: second, Mem: mem},
	}}
}

// TestCheckModelHeavyTail: a Pareto of shape α ≤ 1 has an infinite mean
// (E[X] = α·x_m/(α−1) for α > 1 only), so the planner refuses it, wrapping
// ErrHeavyTail; a light-tailed model passes.
func TestCheckModelHeavyTail(t *testing.T) {
	heavy := twoTasks(distribution.Pareto{Xm: 100, Alpha: 0.9}, 3)
	total, err := heavy.Total()
	if err != nil {
		t.Fatal(err)
	}
	err = CheckModel(heavy, total)
	if !errors.Is(err, ErrHeavyTail) || !strings.Contains(err.Error(), "task 2") {
		t.Fatalf("CheckModel(Pareto α=0.9) = %v, want ErrHeavyTail naming task 2", err)
	}
	if _, err := PlanApp(context.Background(), heavy, nil, DefaultAppPlanOptions(heavy)); !errors.Is(err, ErrHeavyTail) {
		t.Fatalf("PlanApp(Pareto α=0.9) = %v, want ErrHeavyTail", err)
	}
	light := twoTasks(distribution.Normal{Mu: 900, Sigma: 90}, 3)
	total, err = light.Total()
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckModel(light, total); err != nil {
		t.Fatal(err)
	}
}

// TestDescribeTotal: a Normal total prints as its spec; a grid total is
// summarised on one short line, whatever its number of points.
func TestDescribeTotal(t *testing.T) {
	if got := DescribeTotal(distribution.Normal{Mu: 1500, Sigma: 108.166538}); got != "normal:mu=1500,sigma=108.167" {
		t.Errorf("DescribeTotal(normal) = %q", got)
	}
	app := twoTasks(distribution.Gamma{Alpha: 4, Beta: 1.0 / 200}, 3)
	total, err := app.Total()
	if err != nil {
		t.Fatal(err)
	}
	got := DescribeTotal(total)
	if len(got) > 120 || !strings.HasPrefix(got, "sum of the task laws on a grid: mean 1400") {
		t.Errorf("DescribeTotal(grid) = %q, want a short summary of mean 600 + 4·200 = 1400 s", got)
	}
}

// TestPlanAppRefusesOverflow: the margin and memory that used to print
// sbatch --mem=-9223372036854775808M are refused with one line.
func TestPlanAppRefusesOverflow(t *testing.T) {
	app := twoTasks(distribution.Normal{Mu: 900, Sigma: 90}, 3)
	for _, c := range []struct {
		app    *profile.App
		margin float64
		want   string
	}{
		{app, 1e300, "memory margin 1e+300"},
		{app, math.NaN(), "memory margin NaN"},
		{app, math.Inf(1), "memory margin +Inf"},
		{app, -0.1, "memory margin -0.1"},
		{twoTasks(distribution.Normal{Mu: 900, Sigma: 90}, 1e300), 0, "exceeds the limit"},
		{twoTasks(distribution.Normal{Mu: 900, Sigma: 90}, 2e8), MaxMemMargin, "exceeds the limit"},
	} {
		o := DefaultAppPlanOptions(c.app)
		o.MemMargin = c.margin
		_, err := PlanApp(context.Background(), c.app, nil, o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("margin %v, peak %v: error %v, want one line containing %q", c.margin, c.app.PeakMemory(), err, c.want)
		}
	}
	// At the cap, with a realistic peak, the plan is finite and every
	// request is (1 + margin) times a model memory.
	o := DefaultAppPlanOptions(app)
	o.MemMargin = MaxMemMargin
	ps, err := PlanApp(context.Background(), app, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.Plans {
		for _, r := range p.Reservations {
			if !(r.Mem <= 3*(1+MaxMemMargin)*(1+1e-12)) || math.IsNaN(r.Length) || math.IsInf(r.Length, 0) {
				t.Errorf("%s: reservation %+v", p.Name, r)
			}
		}
	}
}

// TestValidateOptions: every option out of range is refused, naming it.
func TestValidateOptions(t *testing.T) {
	app, _ := profile.Builtin("slant")
	base := DefaultAppPlanOptions(app)
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set         func(*AppPlanOptions)
		field, want string
	}{
		{func(o *AppPlanOptions) { o.N = 1 }, "N", "discretisation points 1, want at least 2 and at most 50000 (the planner takes O(n²) time)"},
		{func(o *AppPlanOptions) { o.N = 50001 }, "N", "discretisation points 50001, want at least 2 and at most 50000 (the planner takes O(n²) time)"},
		{func(o *AppPlanOptions) { o.TailMass = 1 }, "TailMass", "tail mass 1, want a value in [0, 1) (0: the default)"},
		{func(o *AppPlanOptions) { o.CkptTau = -0.1 }, "CkptTau", "checkpoint tau -0.1, want a value in [0, 1)"},
		{func(o *AppPlanOptions) { o.MemTau = 1 }, "MemTau", "memory tau 1, want a value in [0, 1)"},
		{func(o *AppPlanOptions) { o.V2Eps = 0 }, "V2Eps", "mem-all-ckpt-v2 epsilon 0, want a value in (0, 1)"},
		{func(o *AppPlanOptions) { o.MemMargin = 1e300 }, "MemMargin", "memory margin 1e+300, want a value in [0, 10]"},
		{func(o *AppPlanOptions) { o.Restart = math.Inf(1) }, "Restart", "restart cost +Inf s, want a value in [0, 1e+10]"},
		{func(o *AppPlanOptions) { o.Steps = -1 }, "Steps", "timeline steps -1, want >= 0 (0: the default)"},
		{func(o *AppPlanOptions) { o.Ckpt.Latency = math.NaN() }, "Ckpt.Latency", "checkpoint latency NaN s, want a value in [0, 1e+10]"},
		{func(o *AppPlanOptions) { o.Restart = 2e10 }, "Restart", "restart cost 2e+10 s, want a value in [0, 1e+10]"},
		{func(o *AppPlanOptions) { o.Ckpt.Latency = 1e308 }, "Ckpt.Latency", "checkpoint latency 1e+308 s, want a value in [0, 1e+10]"},
		{func(o *AppPlanOptions) { o.Ckpt.Bandwidth = 5e-324 }, "Ckpt.Bandwidth", "checkpoint bandwidth 5e-324 GB/s, want a finite value >= 1e-09"},
		{func(o *AppPlanOptions) { o.Ckpt.Bandwidth = 0 }, "Ckpt.Bandwidth", "checkpoint bandwidth 0 GB/s, want a finite value >= 1e-09"},
	} {
		o := base
		c.set(&o)
		err := o.Validate()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Field != c.field || err.Error() != c.want {
			t.Errorf("Validate() = %v (%#v), want %q on field %s", err, oe, c.want, c.field)
		}
		// The same checkpoint cost is refused by profile's own check.
		if strings.HasPrefix(c.field, "Ckpt.") && o.Ckpt.Validate() == nil {
			t.Errorf("%s: profile.CheckpointCost.Validate accepts %+v", c.field, o.Ckpt)
		}
	}
}
