package interval

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// FailureData is the failure history an Advice was estimated from, for
// its picture: the inter-failure times (Intervals; empty when the source
// keeps no sample), the laws fitted to them, best first (failed fits have
// a nil Dist), and the MTBF of the source (of one node for a trace of
// nodes), drawn as an exponential law of that mean.
type FailureData struct {
	Source    string
	Intervals []float64
	Fits      []distribution.Candidate
	MTBF      float64
}

// curveMaxPoints bounds the number of x values drawn on a curve of E(Tw).
const curveMaxPoints = 400

// curveXs are the numbers of intervals at which the E(Tw) curves are
// drawn: every integer from lo to hi when there are at most
// curveMaxPoints, else curveMaxPoints integers evenly spaced in log x
// (duplicates removed), lo and hi included.
func curveXs(lo, hi int) []int {
	if hi-lo < curveMaxPoints {
		xs := make([]int, 0, hi-lo+1)
		for x := lo; x <= hi; x++ {
			xs = append(xs, x)
		}
		return xs
	}
	var xs []int
	for k := range curveMaxPoints {
		x := int(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), float64(k)/(curveMaxPoints-1))))
		if len(xs) == 0 || x > xs[len(xs)-1] {
			xs = append(xs, x)
		}
	}
	return xs
}

// curveRange is the range of numbers of intervals drawn, around the
// methods' choices: from a thirtieth of the smallest (at least 1) to
// twice the largest (at least 10, at most 10⁶).
func curveRange(ms []Method) (lo, hi int) {
	lo, hi = math.MaxInt, 10
	for _, m := range ms {
		lo, hi = min(lo, m.Intervals/30), max(hi, 2*m.Intervals)
	}
	hi = min(hi, 1_000_000)
	return max(1, min(lo, hi/10)), hi
}

// WallclockPanel draws E(Tw) against the number of intervals x (equal
// intervals of Te/x): Eq. (4) and the two exact expectations for
// exponential failures at the task's MTBF (ExactWallclockExp,
// ExactWallclockReplayExp), with each method's plan (Young, Daly,
// Theorem 1) marked at its number of intervals and its Eq. (4) price (for
// Young and Daly, whose last interval is shorter, ExpectedWallclockPeriod:
// close to the curve, not on it). The x axis spans curveRange, and turns
// logarithmic when that spans more than a factor 50. O(curveMaxPoints).
func WallclockPanel(a Advice) plot.Panel {
	t := a.Task
	lo, hi := curveRange(a.Methods)
	xs := curveXs(lo, hi)
	top := t.Te
	for _, x := range xs {
		top = math.Max(top, ExpectedWallclock(t.Te, t.C, t.R, t.EY, float64(x)))
	}
	unit, secs := plot.TimeUnit(top)
	eq4 := plot.Series{Name: "Eq. (4), first order"}
	exp := plot.Series{Name: "exact, exponential failures"}
	rep := plot.Series{Name: "exact, no failure in restarts"}
	for _, x := range xs {
		fx := float64(x)
		eq4.X, eq4.Y = append(eq4.X, fx), append(eq4.Y, ExpectedWallclock(t.Te, t.C, t.R, t.EY, fx)/secs)
		exp.X, exp.Y = append(exp.X, fx), append(exp.Y, ExactWallclockExp(t.Te, t.Te/fx, t.C, t.R, t.MTBF)/secs)
		rep.X, rep.Y = append(rep.X, fx), append(rep.Y, ExactWallclockReplayExp(t.Te, t.Te/fx, t.C, t.R, t.MTBF)/secs)
	}
	var chosen []plot.Series
	for i := len(a.Methods) - 1; i >= 0; i-- { // the last on top: Young's cross stays visible over Theorem 1's triangle
		m := a.Methods[i]
		chosen = append(chosen, plot.Series{Name: fmt.Sprintf("%s: x = %d", m.Name, m.Intervals),
			X: []float64{float64(m.Intervals)}, Y: []float64{m.ExpectedWallclock / secs}})
	}
	lines := []plot.Series{eq4, exp, rep}
	if math.IsInf(t.MTBF, 1) { // no failure: the exact curves are Eq. (4)'s
		lines = lines[:1]
	}
	// A curve or a plan whose E(Tw) overflows everywhere (a task that
	// almost surely never ends) is left out rather than failing the figure.
	lines, chosen = withFinite(lines), withFinite(chosen)
	fig := plot.Figure{Title: "Expected wall-clock time against the number of intervals",
		XLabel: "number of intervals x (x − 1 checkpoints)", YLabel: "expected wall-clock time E(Tw) (" + unit + ")",
		LogX: hi > 50*lo, RefY: []float64{t.Te / secs}, Legend: plot.LegendTopRight}
	fig.YRange = clipRange(t.Te/secs, lines, a.Methods, secs)
	return plot.Panel{
		Figure: fig,
		Lines:  lines,
		Points: chosen,
		Weight: 1.3,
	}
}

// withFinite keeps the series that have at least one finite point.
func withFinite(ss []plot.Series) []plot.Series {
	var out []plot.Series
	for _, s := range ss {
		if slices.ContainsFunc(s.Y, func(y float64) bool { return !math.IsInf(y, 0) && !math.IsNaN(y) }) {
			out = append(out, s)
		}
	}
	return out
}

// clipRange is the y range of the E(Tw) panel: fitted to the data (the
// zero value) unless the curves rise beyond 2.5 times the largest Eq. (4)
// price of the plans chosen (few intervals when failures are frequent,
// where E(Tw) explodes, or the exact expectations when the MTBF is short
// beside the period), in which case the axis stops there and the part of
// the curves above is cut, so that the minimum stays readable.
func clipRange(te float64, lines []plot.Series, ms []Method, secs float64) [2]float64 {
	top, low, high := 0.0, te, te
	for _, m := range ms {
		if v := m.ExpectedWallclock; !math.IsInf(v, 0) && !math.IsNaN(v) {
			top = math.Max(top, 2.5*v/secs)
		}
	}
	for _, l := range lines {
		for _, y := range l.Y {
			if !math.IsInf(y, 0) && !math.IsNaN(y) {
				low, high = math.Min(low, y), math.Max(high, y)
			}
		}
	}
	if !(high > top) || !(top > low) {
		return [2]float64{}
	}
	return [2]float64{low - 0.03*(top-low), top}
}

// lawPoints is the number of points drawn of each fitted CDF.
const lawPoints = 300

// FailurePanel draws the fitted failure laws over the data: the empirical
// CDF of the inter-failure times (at most 2000 steps, plot.ECDFSeries),
// the CDF of the fitted laws (the two of least AIC; the
// exponential fit is the exponential law at the sample's mean, close to the
// one drawn) and of the exponential law at the MTBF the plan used, on a log time axis from the
// smallest to the largest sample (from 10⁻³ to 10 MTBFs without
// samples). An error when there is nothing to draw. O(n log n +
// lawPoints per law).
func FailurePanel(fd FailureData) (plot.Panel, error) {
	var pos []float64
	for _, x := range fd.Intervals {
		if x > 0 && !math.IsInf(x, 0) {
			pos = append(pos, x)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range pos {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if len(pos) == 0 || !(hi > lo) {
		if !(fd.MTBF > 0) || math.IsInf(fd.MTBF, 0) {
			return plot.Panel{}, fmt.Errorf("no inter-failure time and no finite MTBF to draw")
		}
		lo, hi = fd.MTBF*1e-3, fd.MTBF*10
	}
	unit, secs := plot.TimeUnit(math.Min(hi, 10*fd.MTBF))
	var lines []plot.Series
	if len(pos) > 0 {
		e := plot.ECDFSeries(fmt.Sprintf("data: %d inter-failure times", len(pos)), pos)
		for i := range e.X {
			e.X[i] /= secs
		}
		lines = append(lines, e)
	}
	laws := 0
	for _, f := range fd.Fits {
		if f.Dist == nil || laws == 2 || f.Family == "exponential" { // drawn at the MTBF below
			continue
		}
		lines = append(lines, cdfSeries(fmt.Sprintf("%s fit (AIC %.4g)", f.Family, f.AIC), f.Dist, lo, hi, secs))
		laws++
	}
	if fd.MTBF > 0 && !math.IsInf(fd.MTBF, 0) {
		lines = append(lines, cdfSeries("exponential of mean the MTBF, "+units.FormatSeconds(fd.MTBF), distribution.Exponential{Rate: 1 / fd.MTBF}, lo, hi, secs))
	}
	return plot.Panel{
		Figure: plot.Figure{Title: "Failure law: " + fd.Source, XLabel: "time between failures (" + unit + ", log scale)",
			YLabel: "fraction of intervals ≤ x", LogX: true, YRange: [2]float64{0, 1.02}, Legend: plot.LegendBottomRight},
		Lines: lines,
	}, nil
}

// cdfSeries samples d's CDF at lawPoints log-spaced points of [lo, hi].
func cdfSeries(name string, d distribution.Distribution, lo, hi, secs float64) plot.Series {
	s := plot.Series{Name: name}
	for k := range lawPoints {
		x := lo * math.Pow(hi/lo, float64(k)/(lawPoints-1))
		s.X, s.Y = append(s.X, x/secs), append(s.Y, d.CDF(x))
	}
	return s
}

// AdvicePanels are the panels of `ckpt interval --plot`: WallclockPanel,
// then FailurePanel when fd is not nil and has something to draw (a trace
// without failure has neither samples nor a finite MTBF).
func AdvicePanels(a Advice, fd *FailureData) ([]plot.Panel, error) {
	panels := []plot.Panel{WallclockPanel(a)}
	if fd != nil {
		if p, err := FailurePanel(*fd); err == nil {
			panels = append(panels, p)
		}
	}
	return panels, nil
}

// PlotAdvice writes AdvicePanels to path (.svg or .png).
func PlotAdvice(path string, a Advice, fd *FailureData) error {
	panels, err := AdvicePanels(a, fd)
	if err != nil {
		return err
	}
	return plot.Stack(path, 0, 0, panels...)
}

// AdvicePage is the HTML page of `ckpt interval --html`: the picture, the
// task and the methods' plans.
func AdvicePage(a Advice, source string, fd *FailureData) (report.Page, error) {
	panels, err := AdvicePanels(a, fd)
	if err != nil {
		return report.Page{}, err
	}
	svg, err := plot.StackBytes("svg", 0, 0, panels...)
	if err != nil {
		return report.Page{}, err
	}
	t := a.Task
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	methods := report.Table{Caption: "Plans (E(Tw) of Eq. (4); exact: exponential failures at the MTBF)",
		Header: []string{"method", "intervals", "checkpoints", "period (s)", "E(Tw) Eq. (4) (s)", "overhead", "exact exp. (s)", "exact replay (s)"}}
	for _, m := range a.Methods {
		methods.Rows = append(methods.Rows, []string{m.Name, strconv.Itoa(m.Intervals), strconv.Itoa(m.Intervals - 1), g(m.Period),
			g(m.ExpectedWallclock), strconv.FormatFloat(100*m.Overhead/t.Te, 'f', 3, 64) + " %", g(m.ExactExponential), g(m.ExactReplay)})
	}
	page := report.Page{
		Title: "Checkpoint intervals",
		Intro: fmt.Sprintf("Task of work Te = %s, checkpoint C = %s, restart R = %s, E(Y) = %s expected failures, MTBF %s. Source: %s.",
			units.FormatSeconds(t.Te), units.FormatSeconds(t.C), units.FormatSeconds(t.R), g(t.EY), units.FormatSeconds(t.MTBF), source),
		Figures: []report.Figure{{Name: "intervals.svg", Caption: "E(Tw) against the number of intervals, the methods' choices marked", SVG: svg}},
		Tables:  []report.Table{methods},
	}
	if len(panels) > 1 {
		page.Figures[0].Caption += "; the fitted failure laws over the data"
	}
	if p := a.Storage; p != nil {
		st := report.Table{Caption: "Checkpoint storage (Section 4.2.2)", Header: []string{"storage", "C (s)", "R (s)", "intervals", "cost (s)", "choice"}}
		for i, s := range p.Costs {
			choice := ""
			if i == p.Best {
				choice = "best"
			}
			st.Rows = append(st.Rows, []string{s.Name, g(s.C), g(s.R), g(s.X), g(s.Cost), choice})
		}
		page.Tables = append(page.Tables, st)
	}
	return page, nil
}
