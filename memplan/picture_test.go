package memplan

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/profile"
)

func slantPlan(t *testing.T, strategy string) (*profile.App, *MemPlan) {
	t.Helper()
	app, ok := profile.Builtin("slant")
	if !ok {
		t.Fatal("no built-in slant")
	}
	ps, err := PlanApp(context.Background(), app, nil, DefaultAppPlanOptions(app))
	if err != nil {
		t.Fatal(err)
	}
	return app, ps.Plans[strategy]
}

// trapezoid integrates y over x.
func trapezoid(x, y []float64) float64 {
	s := 0.0
	for i := 1; i < len(x); i++ {
		s += (x[i] - x[i-1]) * (y[i] + y[i-1]) / 2
	}
	return s
}

// TestProfilePanels checks the picture against conservation laws that do
// not use the drawing code: ∫ P(task i runs at t) dt = E[X_i] and
// ∫ E[M(t)] dt = Σ M_i·E[X_i] (over a range holding all but 0.001 of the
// total's mass, within 2 %); the boxes are the reservations needed with
// probability ≥ 0.001, as high as their memory, end to end in work.
func TestProfilePanels(t *testing.T) {
	app, plan := slantPlan(t, StrategyMemAllCkptV2)
	ps, err := ProfilePanels(app, plan, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || len(ps[1].Lines) != len(app.Tasks) {
		t.Fatalf("%d panels, %d phase curves for %d tasks", len(ps), len(ps[1].Lines), len(app.Tasks))
	}
	secs := 3600.0 // hours: slant runs a few hours
	if !strings.Contains(ps[0].XLabel, "(h)") {
		t.Fatalf("x label %q is not in hours", ps[0].XLabel)
	}
	want := 0.0
	for i, task := range app.Tasks {
		l := ps[1].Lines[i]
		got := trapezoid(l.X, l.Y) * secs
		if m := task.Walltime.Mean(); math.Abs(got-m) > 0.02*m {
			t.Errorf("task %d: ∫P(runs) = %.1f s, want E[X] = %.1f s", i+1, got, m)
		}
		want += task.Mem * task.Walltime.Mean()
	}
	mean := ps[0].Lines[1]
	if got := trapezoid(mean.X, mean.Y) * secs; math.Abs(got-want) > 0.02*want {
		t.Errorf("∫E[M(t)] = %.4g GB·s, want Σ M_i E[X_i] = %.4g", got, want)
	}
	shown := 0
	for _, r := range plan.Reservations {
		if r.ProbNeeded >= pictureCutoff {
			shown++
		}
	}
	if len(ps[0].Rects) != shown || shown == 0 {
		t.Fatalf("%d boxes for %d reservations needed with probability ≥ 0.001", len(ps[0].Rects), shown)
	}
	for k, b := range ps[0].Rects {
		r := plan.Reservations[k]
		if b.Y1 != r.Mem || math.Abs(b.X1*secs-r.Milestone) > 1e-9*r.Milestone || (k > 0 && b.X0 != ps[0].Rects[k-1].X1) {
			t.Errorf("box %d %+v: reservation to %g s at %g GB", k+1, b, r.Milestone, r.Mem)
		}
	}
	for _, y := range ps[0].Lines[0].Y { // M_τ(t) is one of the task memories or 0
		ok := y == 0
		for _, task := range app.Tasks {
			ok = ok || y == task.Mem
		}
		if !ok {
			t.Fatalf("likely maximum %g is no task's memory", y)
		}
	}
}

// TestPlotProfileSVGStructure is a golden check of structure, not pixels.
func TestPlotProfileSVGStructure(t *testing.T) {
	app, plan := slantPlan(t, StrategyMemAllCkpt)
	path := filepath.Join(t.TempDir(), "mem.svg")
	if err := PlotProfile(path, app, plan, 0.1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"slant: memory over time and the mem-all-ckpt reservations", ">memory (GB)<",
		"application&#39;s progress: work time t (h)", "Phases: probability that each task runs", ">task5 (50 GB)<",
		"reservation: work × memory requested", "likely maximum M_τ(t), τ = 0.1 (Eq. 2)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	page, err := ProfilePage(app, plan, 0.1, "built-in profile slant")
	if err != nil || len(page.Figures) != 1 || len(page.Tables) != 2 || len(page.Tables[1].Rows) != len(app.Tasks) {
		t.Fatalf("page: %v, %d figures, %d tables", err, len(page.Figures), len(page.Tables))
	}
}
