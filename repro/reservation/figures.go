package reservation

import (
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/repro"
)

// line is one curve of a figure.
type line struct {
	name string
	x, y []float64
}

// drawLines writes name.png and name.svg with a reference line at y = 1
// (every figure of the paper is normalised).
func drawLines(cfg repro.Config, name, title, xlabel, ylabel string, logX, logY bool, lines []line) error {
	fig := plot.Figure{Title: title, XLabel: xlabel, YLabel: ylabel, LogX: logX, LogY: logY, RefY: []float64{1}}
	series := make([]plot.Series, len(lines))
	for i, l := range lines {
		series[i] = plot.Series{Name: l.name, X: l.x, Y: l.y, Markers: true}
	}
	return cfg.SavePlot(name, func(path string) error { return plot.Lines(path, fig, series...) })
}
