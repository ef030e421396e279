package capacity

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
)

// TracedSection is one section of a simulation as it was executed: its
// start time, processor count and validated plan (after Finish for
// finite jobs).
type TracedSection struct {
	Start float64
	P     int
	Plan  *Plan
}

// Trace runs algo over the first sections of the instance (all when
// sections ≤ 0) exactly as SimulateContext does, and returns the plans,
// for pictures of the schedule. O(sections × plan size) memory.
func Trace(ctx context.Context, in *Instance, algo Algorithm, sections int) ([]TracedSection, error) {
	var out []TracedSection
	if _, _, _, err := runSections(ctx, in, algo, sections, func(_ int, start float64, p int, pl *Plan) {
		out = append(out, TracedSection{Start: start, P: p, Plan: pl})
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// Styles of the schedule picture (Okabe–Ito indices of package plot).
const (
	styleRunA, styleRunB = 2, 3 // light blue, light green: running jobs, alternating
	styleCkpt            = 4    // vermillion: checkpointing
	styleRecover         = 6    // reddish purple: recovering
	styleLoss            = 7    // dark yellow: a drop of P
)

// SchedulePanel draws a traced schedule: the processor count P(t) as a
// step line, the processors each job holds stacked below it (one band per
// job and interval: running in a light colour, checkpointing and
// recovering in full colours), and a dashed mark at every drop of P(t),
// where processors are lost and jobs beyond the new count had to be
// checkpointed to stop. Time is in the model's unit.
func SchedulePanel(title string, in *Instance, trace []TracedSection) plot.Panel {
	var px, py []float64
	var drops []float64
	var rects []plot.Rect
	for i, s := range trace {
		end := s.Start + s.Plan.T
		px, py = append(px, s.Start, end), append(py, float64(s.P), float64(s.P))
		if i > 0 && s.P < trace[i-1].P {
			drops = append(drops, s.Start)
		}
		rects = append(rects, stackSection(in, s)...)
	}
	return plot.Panel{
		Figure: plot.Figure{Title: title, XLabel: "time (model units)", YLabel: "processors", Legend: plot.LegendTopRight},
		Rects:  rects,
		RectKeys: []plot.RectKey{{Name: "running (one band per job)", Style: styleRunA}, {Name: "checkpointing", Style: styleCkpt, Solid: true},
			{Name: "recovering", Style: styleRecover, Solid: true}},
		Lines: []plot.Series{{Name: "P(t), processors available", X: px, Y: py}},
		Marks: []plot.Marks{{Name: "P(t) drops", X: drops, Style: styleLoss, Dashed: true}},
	}
}

// stackSection splits a section at every interval boundary and, in each
// piece, stacks the jobs that hold processors in job order.
func stackSection(in *Instance, s TracedSection) []plot.Rect {
	cuts := []float64{0, s.Plan.T}
	for _, ivs := range s.Plan.Jobs {
		for _, iv := range ivs {
			cuts = append(cuts, iv.Start, iv.End)
		}
	}
	sort.Float64s(cuts)
	var rects []plot.Rect
	for k := 1; k < len(cuts); k++ {
		a, b := cuts[k-1], cuts[k]
		if b <= a {
			continue
		}
		y := 0.0
		for j, ivs := range s.Plan.Jobs {
			for _, iv := range ivs {
				if iv.Start <= a && b <= iv.End {
					r := plot.Rect{X0: s.Start + a, X1: s.Start + b, Y0: y, Y1: y + float64(in.Jobs[j].P), Style: styleRunA}
					if j%2 == 1 {
						r.Style = styleRunB
					}
					switch iv.Kind {
					case Checkpoint:
						r.Style, r.Solid = styleCkpt, true
					case Recover:
						r.Style, r.Solid = styleRecover, true
					}
					rects = append(rects, r)
					y += float64(in.Jobs[j].P)
					break
				}
			}
		}
	}
	return mergeRects(rects)
}

// mergeRects joins horizontally adjacent pieces of the same band (same
// height, style), so that a job running through several pieces is one
// rectangle.
func mergeRects(rs []plot.Rect) []plot.Rect {
	out := rs[:0:0]
	open := map[[4]float64]int{} // (y0, y1, style, solid) → index in out
	for _, r := range rs {
		solid := 0.0
		if r.Solid {
			solid = 1
		}
		key := [4]float64{r.Y0, r.Y1, float64(r.Style), solid}
		if i, ok := open[key]; ok && out[i].X1 == r.X0 {
			out[i].X1 = r.X1
			continue
		}
		open[key] = len(out)
		out = append(out, r)
	}
	return out
}

// PictureSections is how many sections the schedule pictures show: a
// window in which the bands of a laptop-width figure stay wider than a
// few pixels.
const PictureSections = 20

// SchedulePanels traces, for every point (one per strategy, replicate 0,
// the instance the sweep simulates), the first PictureSections sections
// and draws one SchedulePanel each. Points beyond the first workload and
// varied value are left out (at most 8 panels).
func SchedulePanels(ctx context.Context, pts []SweepPoint, base uint64) ([]plot.Panel, error) {
	var panels []plot.Panel
	for _, pt := range pts {
		if pt.Workload != pts[0].Workload || pt.Value != pts[0].Value || pt.Instance != pts[0].Instance || len(panels) == 8 {
			continue
		}
		in, err := pt.instance(base, 0)
		if err != nil {
			return nil, err
		}
		a, err := New(pt.Algo)
		if err != nil {
			return nil, err
		}
		tr, err := Trace(ctx, in, a, PictureSections)
		if err != nil {
			return nil, err
		}
		title := fmt.Sprintf("%s on %s: first %d of %d sections", pt.Algo, pt.Workload.Name, len(tr), len(in.Sections))
		panels = append(panels, SchedulePanel(title, in, tr))
	}
	return panels, nil
}

// SchedulePage is the HTML page of `ckpt capacity simulate --html`: the
// schedule picture (svg) and the simulation's rows.
func SchedulePage(svg []byte, rows []SweepRow) report.Page {
	t := report.Table{Caption: "Simulation results (whole run)", Header: []string{"workload", "algorithm", "jobs", "finished", "goodput", "min yield", "rel goodput", "rel min yield", "checkpoints", "recoveries"}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Workload, r.Algorithm, strconv.Itoa(r.Jobs), strconv.Itoa(r.Finished), g(r.Goodput), g(r.MinYield),
			g(r.RelGoodput), g(r.RelYield), strconv.Itoa(r.Checkpoints), strconv.Itoa(r.Recoveries)})
	}
	return report.Page{
		Title:   "Capacity simulation",
		Intro:   fmt.Sprintf("Processors over time with the processors each job holds, for the first %d sections of each strategy's run; the table covers the whole run.", PictureSections),
		Figures: []report.Figure{{Name: "schedule.svg", Caption: "P(t), jobs' processors, checkpoints, recoveries and drops of P(t)", SVG: svg}},
		Tables:  []report.Table{t},
	}
}
