package interval

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/plot"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/rng"
)

func adviceForPicture(t *testing.T, ey float64) Advice {
	t.Helper()
	a, err := Advise(Task{Te: 18, C: 2, R: 1, EY: ey, MTBF: math.NaN()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestWallclockPanel checks the curves against Eq. (4) written out here
// (an independent oracle: Te + C(x−1) + R·E(Y) + Te·E(Y)/2x), the exact
// curves against Eq. (4) in the limit they must approach (λ → 0: no
// failure gives Te + C(x−1)), and that each method's point is its plan.
func TestWallclockPanel(t *testing.T) {
	a := adviceForPicture(t, 2)
	p := WallclockPanel(a)
	if len(p.Lines) != 3 || len(p.Points) != 3 {
		t.Fatalf("%d lines and %d point sets, want 3 and 3", len(p.Lines), len(p.Points))
	}
	eq4 := p.Lines[0]
	if len(eq4.X) != 10 || eq4.X[0] != 1 || eq4.X[9] != 10 {
		t.Fatalf("x values %v, want 1…10 (twice the largest choice, at least 10)", eq4.X)
	}
	for i, x := range eq4.X {
		want := 18 + 2*(x-1) + 1*2 + 18*2/(2*x) // seconds: the curve's unit
		if math.Abs(eq4.Y[i]-want) > 1e-12 {
			t.Errorf("Eq. (4) at x = %g: %g, want %g", x, eq4.Y[i], want)
		}
		if p.Lines[1].Y[i] < p.Lines[2].Y[i]-1e-12 {
			t.Errorf("x = %g: exact with failures in restarts %g < without %g", x, p.Lines[1].Y[i], p.Lines[2].Y[i])
		}
	}
	for _, pt := range p.Points {
		found := false
		for _, m := range a.Methods {
			if strings.HasPrefix(pt.Name, m.Name+":") {
				found = pt.X[0] == float64(m.Intervals) && pt.Y[0] == m.ExpectedWallclock
			}
		}
		if !found {
			t.Errorf("point %q (%v, %v) is no method's plan", pt.Name, pt.X, pt.Y)
		}
	}
	none := WallclockPanel(adviceForPicture(t, 0))
	if len(none.Lines) != 1 {
		t.Errorf("no failure: %d curves, want Eq. (4) alone (the exact ones equal it)", len(none.Lines))
	}
	for i, x := range none.Lines[0].X {
		if want := 18 + 2*(x-1); none.Lines[0].Y[i] != want {
			t.Errorf("no failure, x = %g: %g, want Te + C(x−1) = %g", x, none.Lines[0].Y[i], want)
		}
	}
}

// TestCurveXs: all integers from lo to hi when few, else at most 400,
// increasing, from lo to hi.
func TestCurveXs(t *testing.T) {
	for _, r := range [][2]int{{1, 1}, {1, 10}, {1, 400}, {1, 401}, {3, 5000}, {3000, 1_000_000}} {
		xs := curveXs(r[0], r[1])
		if xs[0] != r[0] || xs[len(xs)-1] != r[1] || len(xs) > curveMaxPoints {
			t.Errorf("%v: %d points from %d to %d", r, len(xs), xs[0], xs[len(xs)-1])
		}
		for i := 1; i < len(xs); i++ {
			if xs[i] <= xs[i-1] {
				t.Fatalf("%v: not increasing at %d: %v", r, i, xs[i-1:i+1])
			}
		}
	}
	for _, c := range []struct {
		xs     []int
		lo, hi int
	}{{[]int{3, 4, 3}, 1, 10}, {[]int{371655, 374593}, 12388, 749186}, {[]int{131, 1440}, 4, 2880}} {
		var ms []Method
		for _, x := range c.xs {
			ms = append(ms, Method{Intervals: x})
		}
		if lo, hi := curveRange(ms); lo != c.lo || hi != c.hi {
			t.Errorf("choices %v: range [%d, %d], want [%d, %d]", c.xs, lo, hi, c.lo, c.hi)
		}
	}
}

// TestFailurePanel: the empirical CDF ends at 1 and is a step function of
// the data; the exponential at the MTBF is 1 − e^{−x/MTBF} (written out).
func TestFailurePanel(t *testing.T) {
	r := rng.New(1)
	xs := make([]float64, 500)
	for i := range xs {
		xs[i] = 3600 * r.ExpFloat64()
	}
	fits, _ := FitInterFailure(xs)
	p, err := FailurePanel(FailureData{Source: "test", Intervals: xs, Fits: fits, MTBF: 3600})
	if err != nil {
		t.Fatal(err)
	}
	e := p.Lines[0]
	if !strings.Contains(e.Name, "500 inter-failure times") || e.Y[len(e.Y)-1] != 1 || e.Y[0] != 0 {
		t.Errorf("ECDF %q from %g to %g, want 0 to 1", e.Name, e.Y[0], e.Y[len(e.Y)-1])
	}
	last := p.Lines[len(p.Lines)-1]
	if !strings.HasPrefix(last.Name, "exponential of mean the MTBF") {
		t.Fatalf("last curve %q", last.Name)
	}
	secs := map[string]float64{"(s,": 1, "(min,": 60, "(h,": 3600}[strings.Fields(p.XLabel)[3]]
	if secs == 0 {
		t.Fatalf("x label %q names no time unit", p.XLabel)
	}
	for i, x := range last.X {
		if want := 1 - math.Exp(-x*secs/3600); math.Abs(last.Y[i]-want) > 1e-12 {
			t.Fatalf("exponential CDF at %g: %g, want %g", x, last.Y[i], want)
		}
	}
	for _, l := range p.Lines {
		if strings.HasPrefix(l.Name, "exponential fit") {
			t.Errorf("the exponential fit is drawn beside the exponential at the MTBF")
		}
	}
	if _, err := FailurePanel(FailureData{Source: "empty", MTBF: math.Inf(1)}); err == nil {
		t.Error("no data and no MTBF: no error")
	}
	fitsOnly, err := FailurePanel(FailureData{Source: "fits", Fits: []distribution.Candidate{{Family: "weibull", Dist: distribution.Weibull{K: 0.7, Lambda: 3000}}}, MTBF: 3600})
	if err != nil || len(fitsOnly.Lines) != 2 {
		t.Errorf("fits without data: %v, %d curves, want 2", err, len(fitsOnly.Lines))
	}
}

// TestPlotAdviceSVGStructure is a golden check of structure, not pixels:
// titles, axis labels with units and legend entries are text of the SVG.
func TestPlotAdviceSVGStructure(t *testing.T) {
	a := adviceForPicture(t, 2)
	xs := []float64{10, 20, 40, 80, 160, 320, 640}
	fd := &FailureData{Source: "a test trace", Intervals: xs, MTBF: 180}
	path := filepath.Join(t.TempDir(), "iv.svg")
	if err := PlotAdvice(path, a, fd); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"Expected wall-clock time against the number of intervals", "expected wall-clock time E(Tw) (s)",
		"number of intervals x (x − 1 checkpoints)", "Failure law: a test trace", "time between failures (min, log scale)",
		"mnof: x = 3", "young: x = ", "daly: x = ", "Eq. (4), first order", "data: 7 inter-failure times"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	page, err := AdvicePage(a, "given", fd)
	if err != nil || len(page.Figures) != 1 || len(page.Tables) != 1 {
		t.Fatalf("page: %v, %d figures, %d tables", err, len(page.Figures), len(page.Tables))
	}
	if err := PlotAdvice(filepath.Join(t.TempDir(), "iv.pdf"), a, nil); err == nil {
		t.Error("a .pdf path was accepted")
	}
}

// A task that almost surely never ends (E(Y) = 1e9) or whose E(Tw)
// overflows (Te = 1e300) still draws: the curves and plans without a
// finite point are left out, the others drawn.
func TestWallclockPanelOverflow(t *testing.T) {
	for _, task := range []Task{{Te: 200, C: 5, R: 5, EY: 1e9, MTBF: math.NaN()}, {Te: 1e300, C: 5, R: 5, EY: 2, MTBF: math.NaN()}} {
		a, err := Advise(task, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := WallclockPanel(a)
		for _, s := range append(append([]plot.Series{}, p.Lines...), p.Points...) {
			if !slices.ContainsFunc(s.Y, func(y float64) bool { return !math.IsInf(y, 0) && !math.IsNaN(y) }) {
				t.Errorf("Te %g, E(Y) %g: series %q has no finite point", task.Te, task.EY, s.Name)
			}
		}
		if err := PlotAdvice(filepath.Join(t.TempDir(), "a.svg"), a, nil); err != nil {
			t.Errorf("Te %g, E(Y) %g: %v", task.Te, task.EY, err)
		}
	}
}
