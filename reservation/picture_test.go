package reservation

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
)

func planForPicture(t *testing.T) (distribution.Distribution, *Result) {
	t.Helper()
	d, err := distribution.Parse("lognormal:mean=21.4h,sd=19.7h")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Costs: Costs{Alpha: 1, C: 600, R: 600}, Epsilon: 1, Baselines: true}
	r, err := Plan(d, o)
	if err != nil {
		t.Fatal(err)
	}
	return d, r
}

// TestPlanPanels checks the picture's data against independent facts:
// the density integrates to the law's mass over the range drawn; each
// P(needed) point is the truncated law's survival at the previous end
// (within 1e-7 of the curve drawn, the untruncated law's); the
// marks are the ends of the reservations needed with probability ≥ 0.001.
func TestPlanPanels(t *testing.T) {
	t.Parallel()
	d, r := planForPicture(t)
	ps := PlanPanels(d, r)
	if len(ps) != 3 {
		t.Fatalf("%d panels, want 3", len(ps))
	}
	den := ps[0].Lines[0]
	secs := 3600.0 // hours: the range is a few days
	var integral float64
	for i := 1; i < len(den.X); i++ {
		integral += (den.X[i] - den.X[i-1]) * (den.Y[i] + den.Y[i-1]) / 2
	}
	want := d.CDF(den.X[len(den.X)-1]*secs) - d.CDF(den.X[0]*secs)
	if math.Abs(integral-want) > 1e-3 {
		t.Errorf("∫density = %.5f over the range drawn, want CDF difference %.5f (unit not hours?)", integral, want)
	}
	pts := ps[1].Points[0]
	nu := r.TailMass // the plan is for the law truncated at Q(1 − ν)
	for i := range pts.X {
		if s := (d.Survival(pts.X[i]*secs) - nu) / (1 - nu); math.Abs(s-pts.Y[i]) > 1e-9 {
			t.Errorf("P(needed) of reservation %d = %g, survival at its start %g", i+1, pts.Y[i], s)
		}
	}
	shown := 0
	for _, rv := range r.Reservations {
		if rv.ProbNeeded >= TableCutoff {
			shown++
		}
	}
	if n := len(ps[0].Marks[0].X) + len(ps[0].Marks[1].X); n != shown || n != len(pts.X) {
		t.Errorf("%d marks and %d points for %d reservations needed with probability ≥ 0.001", n, len(pts.X), shown)
	}
	if b := ps[2].Bars[0]; !b.Highlight || math.Abs(b.Value*secs-r.ExpectedCost) > 1e-6*r.ExpectedCost {
		t.Errorf("first bar %+v is not the plan's cost %g", b, r.ExpectedCost)
	}
	for _, b := range ps[2].Bars[1:] {
		if b.Label == r.Algorithm {
			t.Errorf("the plan's algorithm appears twice among the bars")
		}
	}
}

// TestPlotPlanSVGStructure is a golden check of structure, not pixels:
// the three titles and the axis labels with units are text elements, and
// every bar carries its value.
func TestPlotPlanSVGStructure(t *testing.T) {
	t.Parallel()
	d, r := planForPicture(t)
	path := filepath.Join(t.TempDir(), "plan.svg")
	if err := PlotPlan(path, d, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"Walltime density, reservation ends", "Survival and P(reservation needed)",
		"Expected cost of the plan and of the baselines", "work done, walltime of the job (h)", "density (1/h)",
		"expected cost (h of reservation at α = 1)", ">omniscient (lower bound)<", "(this plan)<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if err := PlotPlan(filepath.Join(t.TempDir(), "plan.pdf"), d, r); err == nil {
		t.Error("a .pdf path was accepted")
	}
	page, err := PlanPage(d, r)
	if err != nil || len(page.Figures) != 1 || len(page.Tables) != 2 {
		t.Fatalf("page: %v, %d figures, %d tables", err, len(page.Figures), len(page.Tables))
	}
}
