package iosim

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/vg"

	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// MaxLanes is the most jobs a timeline panel draws (the first to use the
// file system in the window); the title says when there were more.
const MaxLanes = 60

// splitParts are the five parts of a Split, in the order the pictures
// and the text report give them.
var splitParts = []struct {
	name string
	of   func(Split) float64
}{
	{"work", func(s Split) float64 { return s.Work }},
	{"I/O", func(s Split) float64 { return s.IO }},
	{"checkpoint", func(s Split) float64 { return s.Checkpoint }},
	{"lost", func(s Split) float64 { return s.Lost }},
	{"idle", func(s Split) float64 { return s.Idle }},
}

// barValue is v as a bar: a negative value (a run may waste a hair less
// than its baseline) is drawn as 0; NaN and ±Inf pass through, and
// plot.Bar labels them ("n/a", "+Inf") instead of drawing a 0.
func barValue(v float64) float64 {
	if v < 0 && !math.IsInf(v, -1) {
		return 0
	}
	return v
}

// WastePanels draws a run report: the mean waste of each strategy with
// Theorem 1's lower bound as a highlighted bar below them (when the bound
// is defined), then where the node-time went — work, I/O, checkpoint,
// lost, idle — one panel per part with a bar per strategy, so each part
// compares across strategies on its own scale. O(strategies) bars.
func WastePanels(rep RunReport) []plot.Panel {
	weight := func(n int) float64 { return 0.35 + 0.12*float64(n) }
	var bars []plot.Bar
	for _, s := range rep.Strategies {
		bars = append(bars, plot.Bar{Label: s.Name, Value: barValue(s.Waste.Mean)})
	}
	if b := float64(rep.Bound); rep.BoundErr == nil && !math.IsNaN(b) && !math.IsInf(b, 0) {
		bars = append(bars, plot.Bar{Label: "lower bound (Theorem 1)", Value: barValue(b), Highlight: true})
	}
	out := []plot.Panel{{
		Figure: plot.Figure{Title: fmt.Sprintf("Waste of each strategy: mean of %d trials of %s on %s", rep.Seeds, units.FormatSeconds(rep.Window), rep.Platform),
			XLabel: "waste (fraction of the baseline's useful node-time)"},
		Bars: bars, Weight: weight(len(bars)),
	}}
	for _, part := range splitParts {
		var bs []plot.Bar
		for _, s := range rep.Strategies {
			bs = append(bs, plot.Bar{Label: s.Name, Value: barValue(part.of(s.Split))})
		}
		out = append(out, plot.Panel{
			Figure: plot.Figure{Title: "Node-time booked as " + part.name, XLabel: part.name + " (fraction of node-time)"},
			Bars:   bs, Weight: weight(len(bs)),
		})
	}
	return out
}

// TimelinePanel draws a Timeline: one lane per job (the first MaxLanes to
// use the file system in the window, top to bottom in order of their first
// segment), each transfer a solid bar and each wait for the I/O token a
// light one, in the colour of the transfer's kind; segments are clipped to
// the window, and those of no length there (a token granted at once) left
// out. O(segments log segments).
func TimelinePanel(tl Timeline) (plot.Panel, error) {
	if !(tl.To > tl.From) {
		return plot.Panel{}, fmt.Errorf("timeline window [%g, %g] is empty", tl.From, tl.To)
	}
	unit, secs := plot.TimeUnit(tl.To - tl.From)
	segs := slices.Clone(tl.Segments)
	slices.SortStableFunc(segs, func(a, b Segment) int {
		if a.Start != b.Start {
			if a.Start < b.Start {
				return -1
			}
			return 1
		}
		return a.Job - b.Job
	})
	lane := map[int]int{}
	for _, sg := range segs {
		if _, ok := lane[sg.Job]; !ok {
			lane[sg.Job] = len(lane)
		}
	}
	lanes := min(len(lane), MaxLanes)
	var rects []plot.Rect
	used := map[plot.RectKey]bool{}
	for _, sg := range segs {
		l := lane[sg.Job]
		if l >= MaxLanes {
			continue
		}
		y := float64(lanes - l) // the first lane on top
		x0, x1 := math.Max(sg.Start, tl.From)/secs, math.Min(sg.End, tl.To)/secs
		if !(x1 > x0) {
			continue // a token granted at once: nothing to see
		}
		rects = append(rects, plot.Rect{X0: x0, X1: x1, Y0: y - 0.4, Y1: y + 0.4, Style: int(sg.Kind), Solid: !sg.Wait})
		used[plot.RectKey{Style: int(sg.Kind), Solid: !sg.Wait}] = true
	}
	var keys []plot.RectKey
	for k := Input; k <= Output; k++ {
		for _, solid := range []bool{true, false} {
			if used[plot.RectKey{Style: int(k), Solid: solid}] {
				name := k.String() + " transfer"
				if !solid {
					name = k.String() + ": waiting for the token"
				}
				keys = append(keys, plot.RectKey{Name: name, Style: int(k), Solid: solid})
			}
		}
	}
	title := fmt.Sprintf("%s: the file system from %s to %s", tl.Strategy, units.FormatSeconds(tl.From), units.FormatSeconds(tl.To))
	switch {
	case len(lane) > MaxLanes:
		title += fmt.Sprintf(" (first %d of %d jobs)", MaxLanes, len(lane))
	case len(lane) == 0:
		title += " (no transfer)"
	}
	pn := plot.Panel{
		Figure: plot.Figure{Title: title, XLabel: "time in the run (" + unit + ")", YLabel: "job (one lane each)",
			XRange: [2]float64{tl.From / secs, tl.To / secs}, YRange: [2]float64{0, float64(lanes) + 1}},
		Rects: rects, RectKeys: keys,
		Weight: 1 + float64(lanes)/15,
	}
	if len(rects) == 0 { // an empty window still draws its axes
		pn.Lines = []plot.Series{{X: []float64{tl.From / secs, tl.To / secs}, Y: []float64{0, 0}}}
	}
	return pn, nil
}

// panelsHeight is the height of a stack of panels: about 0.45 inch per
// unit of weight, at least 2.2 inches per panel.
func panelsHeight(panels []plot.Panel) vg.Length {
	h := 0.0
	for _, p := range panels {
		w := p.Weight
		if w <= 0 {
			w = 1
		}
		h += math.Max(2.2, 1.9*w)
	}
	return vg.Length(h) * vg.Inch
}

// RunPanels are WastePanels followed by a TimelinePanel per timeline.
func RunPanels(rep RunReport, tls []Timeline) ([]plot.Panel, error) {
	panels := WastePanels(rep)
	for _, tl := range tls {
		p, err := TimelinePanel(tl)
		if err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}
	return panels, nil
}

// PlotRun draws RunPanels to path (.svg or .png).
func PlotRun(path string, rep RunReport, tls []Timeline) error {
	panels, err := RunPanels(rep, tls)
	if err != nil {
		return err
	}
	return plot.Stack(path, 0, panelsHeight(panels), panels...)
}

// RunPage is the HTML page of a run report: the waste picture, the
// timelines, and the table of `ckpt iosim run`.
func RunPage(rep RunReport, tls []Timeline) (report.Page, error) {
	figs := []report.Figure{}
	waste := WastePanels(rep)
	svg, err := plot.StackBytes("svg", 0, panelsHeight(waste), waste...)
	if err != nil {
		return report.Page{}, err
	}
	figs = append(figs, report.Figure{Name: "waste.svg", Caption: "waste of each strategy beside the lower bound; where the node-time went", SVG: svg})
	for _, tl := range tls {
		p, err := TimelinePanel(tl)
		if err != nil {
			return report.Page{}, err
		}
		svg, err := plot.StackBytes("svg", 0, panelsHeight([]plot.Panel{p}), p)
		if err != nil {
			return report.Page{}, err
		}
		figs = append(figs, report.Figure{Name: "timeline-" + tl.Strategy + ".svg",
			Caption: "who holds the file system (solid) and who waits for it (light), first trial", SVG: svg})
	}
	g := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	tab := report.Table{Caption: "Waste (fraction of the baseline's useful node-time; deciles over the trials) and mean split of the node-time",
		Header: []string{"strategy", "waste mean", "d1", "d9", "ckpt slowdown", "work", "I/O", "checkpoint", "lost", "idle"}}
	for _, s := range rep.Strategies {
		row := []string{s.Name, g(s.Waste.Mean), g(s.Waste.D1), g(s.Waste.D9), g(s.Slowdown.Mean)}
		for _, part := range splitParts {
			row = append(row, g(part.of(s.Split)))
		}
		tab.Rows = append(tab.Rows, row)
	}
	bound := "undefined"
	if rep.BoundErr == nil {
		bound = g(float64(rep.Bound))
	}
	return report.Page{
		Title: "I/O strategies on " + rep.Platform,
		Intro: fmt.Sprintf("%d nodes, bandwidth %s, node MTBF %s; %d trials of %s; lower bound on the waste (Theorem 1): %s.",
			rep.Nodes, units.FormatBandwidth(rep.Bandwidth), units.FormatSeconds(rep.NodeMTBF), rep.Seeds, units.FormatSeconds(rep.Window), bound),
		Figures: figs,
		Tables:  []report.Table{tab},
	}, nil
}
