package draw

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/plot"
)

// demoFigures renders one figure of each kind into dir, in format ext.
func demoFigures(dir, ext string) error {
	r := rand.New(rand.NewPCG(1, 2))
	var series []plot.Series
	for i, name := range []string{"Young", "Daly", "optimal", "no checkpoint", "periodic 1h"} {
		s := plot.Series{Name: name, Markers: i%2 == 0}
		for x := 1.0; x <= 1e4; x *= 1.8 {
			s.X = append(s.X, x)
			s.Y = append(s.Y, (1+0.15*float64(i))*(0.5+0.5*math.Tanh(math.Log10(x)-1.5-0.3*float64(i))))
		}
		series = append(series, s)
	}
	if err := plot.Lines(filepath.Join(dir, "lines"+ext), plot.Figure{
		Title: "Normalised makespan", XLabel: "checkpoint cost C (s)", YLabel: "makespan / optimal",
		LogX: true, RefY: []float64{1}, Legend: plot.LegendTopLeft,
	}, series...); err != nil {
		return err
	}
	var samples []plot.NamedSamples
	for i, name := range []string{"lognormal", "weibull", "exponential"} {
		s := plot.NamedSamples{Name: name}
		for range 60 + 40*i {
			s.Values = append(s.Values, math.Exp(r.NormFloat64()*(0.4+0.3*float64(i)))*1000)
		}
		samples = append(samples, s)
	}
	if err := plot.StepCDF(filepath.Join(dir, "cdf"+ext), plot.Figure{
		Title: "Job durations", XLabel: "walltime (s)", LogX: true, Legend: plot.LegendBottomRight,
	}, samples...); err != nil {
		return err
	}
	var groups []plot.BoxGroup
	for _, bw := range []string{"1 GB/s", "10 GB/s", "100 GB/s", "1 TB/s"} {
		for j, strat := range []string{"Young", "Daly", "lazy", "none"} {
			g := plot.BoxGroup{Category: bw, Series: strat}
			for range 50 {
				g.Values = append(g.Values, math.Abs(0.1*float64(j+1)+0.05*r.NormFloat64()*float64(j+1)))
			}
			g.Values = append(g.Values, 0.9)
			groups = append(groups, g)
		}
	}
	if err := plot.Box(filepath.Join(dir, "box"+ext), plot.Figure{
		Title: "Waste vs I/O bandwidth", XLabel: "bandwidth", YLabel: "waste",
	}, groups...); err != nil {
		return err
	}
	var pts []plot.Series
	for i, name := range []string{"A", "B", "C", "D"} {
		s := plot.Series{Name: name}
		for range 40 {
			s.X = append(s.X, r.Float64()*10+float64(i))
			s.Y = append(s.Y, r.Float64()*0.03+0.005*float64(i+1))
		}
		pts = append(pts, s)
	}
	return plot.Scatter(filepath.Join(dir, "scatter"+ext), plot.Figure{
		Title: "Scatter", XLabel: "x", YLabel: "y (log)", LogY: true, Legend: plot.LegendBottomRight,
	}, pts...)
}

// TestDemoFigures renders the demo; set CKPT_PLOT_DEMO=dir to keep the
// files and look at them.
func TestDemoFigures(t *testing.T) {
	dir := os.Getenv("CKPT_PLOT_DEMO")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := demoFigures(dir, ext); err != nil {
			t.Fatal(err)
		}
	}
}
