package draw

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/plot"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func label(kind string, i int, name string) string {
	if name != "" {
		return fmt.Sprintf("%s %q", kind, name)
	}
	return fmt.Sprintf("%s #%d", kind, i)
}

// points returns the finite points of s, checked against the log axes.
func points(f plot.Figure, i int, s plot.Series) (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("plot: %s has %d x values but %d y values", label("series", i, s.Name), len(s.X), len(s.Y))
	}
	xys := make(plotter.XYs, 0, len(s.X))
	for j, x := range s.X {
		y := s.Y[j]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		if f.LogX && x <= 0 {
			return nil, fmt.Errorf("plot: %s: x = %g is not positive (log-x axis)", label("series", i, s.Name), x)
		}
		if f.LogY && y <= 0 {
			return nil, fmt.Errorf("plot: %s: y = %g is not positive (log-y axis)", label("series", i, s.Name), y)
		}
		xys = append(xys, plotter.XY{X: x, Y: y})
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("plot: %s has no finite points", label("series", i, s.Name))
	}
	return xys, nil
}

// Lines draws each series as a line through its points in the given
// order, optionally with markers, and writes the figure to path (.png or
// .svg). Non-finite points are skipped and the line joins their
// neighbours. A line of more than maxMarkers points carries markers at
// maxMarkers evenly spaced points only (the first and last included): the
// markers tell the series apart, the line draws every point.
func (renderer) Lines(path string, fig plot.Figure, series []plot.Series) error {
	return xyPlot(path, fig, series, false)
}

// Scatter draws each series as unconnected markers and writes the figure
// to path (.png or .svg). Non-finite points are skipped.
func (renderer) Scatter(path string, fig plot.Figure, series []plot.Series) error {
	return xyPlot(path, fig, series, true)
}

func xyPlot(path string, fig plot.Figure, series []plot.Series, scatter bool) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	if err := check(fig); err != nil {
		return err
	}
	if len(series) == 0 {
		return fmt.Errorf("plot: %q: no series to draw", path)
	}
	p := newPlot(fig, true)
	for i, s := range series {
		xys, err := points(fig, i, s)
		if err != nil {
			return err
		}
		var thumbs []gplot.Thumbnailer
		if !scatter {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return fmt.Errorf("plot: %s: %v", label("series", i, s.Name), err)
			}
			l.LineStyle = lineStyle(i)
			p.Add(l)
			thumbs = append(thumbs, l)
		}
		if scatter || s.Markers {
			marked := xys
			if !scatter {
				marked = thinMarkers(xys)
			}
			sc, err := plotter.NewScatter(marked)
			if err != nil {
				return fmt.Errorf("plot: %s: %v", label("series", i, s.Name), err)
			}
			sc.GlyphStyle = glyphStyle(i)
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		addLegend(p, fig, s.Name, thumbs...)
	}
	finish(p, fig)
	return save(path, ft, fig, p)
}

// maxMarkers bounds the markers drawn on one line.
const maxMarkers = 60

// thinMarkers returns at most maxMarkers of xys, evenly spaced by index,
// with the first and the last.
func thinMarkers(xys plotter.XYs) plotter.XYs {
	n := len(xys)
	if n <= maxMarkers {
		return xys
	}
	out := make(plotter.XYs, maxMarkers)
	for k := range out {
		out[k] = xys[k*(n-1)/(maxMarkers-1)]
	}
	return out
}
