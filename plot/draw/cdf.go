package draw

import (
	"fmt"

	"github.com/ckpt-hpc/ckpt/plot"
	"gonum.org/v1/plot/plotter"
)

// StepCDF draws the empirical cumulative distribution function of each
// sample as a step function, F(x) = (number of values ≤ x)/n, from 0 at
// the smallest value to 1 at the largest, and writes the figure to path
// (.png or .svg). Non-finite values are skipped. The y axis spans [0, 1]
// unless fig.YRange says otherwise, and its label defaults to
// "fraction ≤ x"; a log-y axis is an error. Samples of more than 2000
// values are drawn through 2000 evenly spaced ranks (see plot.ECDFSteps).
func (renderer) StepCDF(path string, fig plot.Figure, samples []plot.NamedSamples) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	if err := check(fig); err != nil {
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
		xs, ys := plot.ECDFSteps(s.Values)
		if len(xs) == 0 {
			return fmt.Errorf("plot: %s has no finite values", label("sample", i, s.Name))
		}
		if fig.LogX && xs[0] <= 0 {
			return fmt.Errorf("plot: %s: x = %g is not positive (log-x axis)", label("sample", i, s.Name), xs[0])
		}
		corners := make(plotter.XYs, len(xs))
		for j := range corners {
			corners[j] = plotter.XY{X: xs[j], Y: ys[j]}
		}
		l, err := plotter.NewLine(corners)
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
