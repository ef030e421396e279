package slurm

import (
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/repro"
)

// writeFig9 draws Fig. 9: per application, DYN-PROG-COUNT's utilisation
// and stretch (held) against the C/R variation, on the cluster and in
// simulation, with HPC's (which takes no checkpoint) as a flat line.
func writeFig9(rc repro.Config, ss []Summary) error {
	type pt struct{ v, u, st, su, sst float64 }
	dpc := map[string][]pt{}
	hpc := map[string]Summary{}
	for _, s := range ss {
		switch {
		case s.Experiment == Fig8 && s.Strat == HPC:
			hpc[s.App] = s
		case (s.Experiment == Fig8 || s.Experiment == Fig9) && s.Strat == DynProgCount:
			dpc[s.App] = append(dpc[s.App], pt{100 * s.Variation, s.Utilization, s.Stretch, s.SimUtilization, s.SimStretch})
		}
	}
	if len(dpc) == 0 {
		return nil
	}
	for _, m := range []struct {
		name, label string
		get         func(p pt) (real, sim float64)
		hpc         func(s Summary) float64
	}{
		{"fig9-utilization", "utilisation (held)", func(p pt) (float64, float64) { return p.u, p.su }, func(s Summary) float64 { return s.Utilization }},
		{"fig9-stretch", "average stretch (held)", func(p pt) (float64, float64) { return p.st, p.sst }, func(s Summary) float64 { return s.Stretch }},
	} {
		var series []plot.Series
		for _, app := range Apps() {
			ps := dpc[app.Name]
			if len(ps) == 0 {
				continue
			}
			var x, yr, ys, yh []float64
			for _, p := range ps {
				r, s := m.get(p)
				x, yr, ys = append(x, p.v), append(yr, r), append(ys, s)
			}
			sortBy(x, yr, ys)
			h := math.NaN()
			if s, ok := hpc[app.Name]; ok {
				h = m.hpc(s)
			}
			for range x {
				yh = append(yh, h)
			}
			series = append(series,
				plot.Series{Name: app.Name + " DYN-PROG-COUNT, Slurm", X: x, Y: yr, Markers: true},
				plot.Series{Name: app.Name + " DYN-PROG-COUNT, simulation", X: x, Y: ys},
				plot.Series{Name: app.Name + " HPC, Slurm", X: x, Y: yh})
		}
		fig := plot.Figure{Title: "Fig. 9 on Slurm", XLabel: "C/R variation (%)", YLabel: m.label}
		if err := rc.SavePlot(m.name, func(path string) error { return plot.Lines(path, fig, series...) }); err != nil {
			return err
		}
	}
	return nil
}

// sortBy sorts x ascending, carrying ys along.
func sortBy(x []float64, ys ...[]float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
			for _, y := range ys {
				y[j], y[j-1] = y[j-1], y[j]
			}
		}
	}
}

// writeFig8 draws Fig. 8: per application and strategy, the utilisation and
// the average stretch of the Fig. 8 cells (C/R as planned), on the cluster
// (time held, and time reserved: the cost the plans minimise) beside ckpt's
// simulation of the same jobs. One horizontal bar per application ×
// strategy × source, the cluster's highlighted.
func writeFig8(rc repro.Config, ss []Summary) error {
	var cells []Summary
	for _, app := range Apps() {
		for _, st := range Strategies {
			for _, s := range ss {
				if s.Experiment == Fig8 && s.App == app.Name && s.Strat == st && s.Variation == 0 {
					cells = append(cells, s)
				}
			}
		}
	}
	if len(cells) == 0 {
		return nil
	}
	var panels []plot.Panel
	for _, m := range []struct {
		title, label string
		slurm, sim   func(s Summary) float64
	}{
		{"Utilisation, time held", "utilisation (Σ walltime / Σ held)",
			func(s Summary) float64 { return s.Utilization }, func(s Summary) float64 { return s.SimUtilization }},
		{"Utilisation, time reserved", "utilisation (Σ walltime / Σ reserved)",
			func(s Summary) float64 { return s.ReservedUtilization }, func(s Summary) float64 { return s.SimReservedUtilization }},
		{"Average stretch, time held", "average stretch (held / walltime)",
			func(s Summary) float64 { return s.Stretch }, func(s Summary) float64 { return s.SimStretch }},
	} {
		var bars []plot.Bar
		for _, s := range cells {
			bars = append(bars,
				plot.Bar{Label: s.App + " " + s.Strat + ", Slurm", Value: m.slurm(s), Highlight: true},
				plot.Bar{Label: s.App + " " + s.Strat + ", simulation", Value: m.sim(s)})
		}
		panels = append(panels, plot.Panel{Figure: plot.Figure{Title: "Fig. 8 on Slurm: " + m.title, XLabel: m.label},
			Bars: bars, Weight: 0.4 + 0.12*float64(len(bars))})
	}
	height := vg.Length(0)
	for _, p := range panels {
		height += vg.Length(p.Weight) * 3 * vg.Inch
	}
	return rc.SavePlot("fig8", func(path string) error { return plot.Stack(path, 0, height, panels...) })
}
