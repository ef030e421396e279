package plot

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
)

// NamedSamples is a sample of one quantity, named for the legend.
type NamedSamples struct {
	Name   string
	Values []float64
}

// finite returns the finite values of xs, sorted.
func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// ecdfSteps returns the corners of the empirical CDF of sorted xs as
// points for a post-step line: (x₁, 0) then (x_i, i/n) for i = 1…n, so
// that the curve jumps by 1/n at each sample (by k/n at a k-fold tie) and
// is right-continuous.
func ecdfSteps(sorted []float64) plotter.XYs {
	n := float64(len(sorted))
	xys := make(plotter.XYs, 0, len(sorted)+1)
	xys = append(xys, plotter.XY{X: sorted[0], Y: 0})
	for i, x := range sorted {
		xys = append(xys, plotter.XY{X: x, Y: float64(i+1) / n})
	}
	return xys
}

// maxSteps bounds the corners drawn per empirical CDF: a larger sample is
// decimated to the ECDF at maxSteps evenly spaced ranks, within 1/maxSteps
// of the exact curve everywhere (under a pixel at any laptop size), so
// that a figure's size does not grow with the sample.
const maxSteps = 2000

// decimate keeps the corners of an ECDF (from ecdfSteps) at ranks
// ⌈k·n/maxSteps⌉, k = 1…maxSteps, with the first and last corners; the
// curve drawn through them as a post-step function is within 1/maxSteps
// of the exact one. Short curves are returned as they are.
func decimate(xys plotter.XYs) plotter.XYs {
	n := len(xys) - 1 // corners after the (x₁, 0) start
	if n <= maxSteps {
		return xys
	}
	out := make(plotter.XYs, 0, maxSteps+1)
	out = append(out, xys[0])
	for k := 1; k <= maxSteps; k++ {
		i := (k*n + maxSteps - 1) / maxSteps // ⌈k·n/maxSteps⌉ ∈ [1, n]
		out = append(out, xys[i])
	}
	return out
}

// StepCDF draws the empirical cumulative distribution function of each
// sample as a step function, F(x) = (number of values ≤ x)/n, from 0 at
// the smallest value to 1 at the largest, and writes the figure to path
// (.png or .svg). Non-finite values are skipped. The y axis spans [0, 1]
// unless fig.YRange says otherwise, and its label defaults to
// "fraction ≤ x"; a log-y axis is an error. Samples of more than 2000
// values are drawn through 2000 evenly spaced ranks (see maxSteps).
func StepCDF(path string, fig Figure, samples ...NamedSamples) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	if err := fig.check(); err != nil {
		return err
	}
	if fig.LogY {
		return fmt.Errorf("plot: %q: StepCDF has no log-y axis (a CDF starts at 0)", path)
	}
	if len(samples) == 0 {
		return fmt.Errorf("plot: %q: no samples to draw", path)
	}
	if fig.YLabel == "" {
		fig.YLabel = "fraction ≤ x"
	}
	if fig.YRange == [2]float64{} {
		fig.YRange = [2]float64{0, 1}
	}
	p := newPlot(fig, true)
	for i, s := range samples {
		xs := finite(s.Values)
		if len(xs) == 0 {
			return fmt.Errorf("plot: %s has no finite values", label("sample", i, s.Name))
		}
		if fig.LogX && xs[0] <= 0 {
			return fmt.Errorf("plot: %s: x = %g is not positive (log-x axis)", label("sample", i, s.Name), xs[0])
		}
		l, err := plotter.NewLine(decimate(ecdfSteps(xs)))
		if err != nil {
			return fmt.Errorf("plot: %s: %v", label("sample", i, s.Name), err)
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = lineStyle(i)
		p.Add(l)
		addLegend(p, fig, s.Name, l)
	}
	finish(p, fig)
	return save(path, ft, fig, p)
}

// ECDFSeries is the empirical CDF of the finite values as a Series whose
// line (Lines, or a Panel's Lines) is the step function that StepCDF
// draws: flat between samples, jumping by 1/n at each (k/n at a k-fold
// tie), through at most maxSteps ranks. Its points come in pairs, one at
// each end of a jump. No finite value gives a Series with no point, which
// Lines and Stack refuse. O(n log n).
func ECDFSeries(name string, values []float64) Series {
	s := Series{Name: name}
	xs := finite(values)
	if len(xs) == 0 {
		return s
	}
	corners := decimate(ecdfSteps(xs))
	s.X, s.Y = make([]float64, 0, 2*len(corners)), make([]float64, 0, 2*len(corners))
	prev := 0.0
	for _, c := range corners {
		s.X, s.Y = append(s.X, c.X, c.X), append(s.Y, prev, c.Y)
		prev = c.Y
	}
	return s
}
