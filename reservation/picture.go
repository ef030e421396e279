package reservation

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// curvePoints is the number of points drawn of the density and survival.
const curvePoints = 400

// PlanPanels draws a plan over its walltime law d: the density and the
// survival function over the support planned for, with the end t_k of
// every reservation that is needed with probability at least TableCutoff
// marked (checkpointed ends apart from plain ones) and P(reservation k is
// needed) = P(X > t_{k−1}) as points on the survival curve; and the
// plan's expected cost beside the baselines and the omniscient cost.
// O(curvePoints + reservations) evaluations of d.
func PlanPanels(d distribution.Distribution, r *Result) []plot.Panel {
	lo, hi := r.Lo, r.Hi
	shown := 0.0 // the end of the last reservation drawn
	for _, rv := range r.Reservations {
		if rv.ProbNeeded >= TableCutoff {
			shown = rv.Milestone
		}
	}
	if q := d.Quantile(1 - TableCutoff); q < hi && !math.IsNaN(q) {
		hi = math.Max(math.Max(q, shown), lo+(hi-lo)*1e-3)
	}
	unit, secs := plot.TimeUnit(hi)
	xs, pdf, surv := make([]float64, curvePoints), make([]float64, curvePoints), make([]float64, curvePoints)
	for i := range xs {
		x := lo + (hi-lo)*float64(i)/float64(curvePoints-1)
		xs[i], pdf[i], surv[i] = x/secs, d.PDF(x)*secs, d.Survival(x)
	}
	var ckpt, plain, startX, needY []float64
	prev := 0.0
	for _, rv := range r.Reservations {
		if rv.ProbNeeded < TableCutoff {
			break
		}
		if rv.Checkpoint {
			ckpt = append(ckpt, rv.Milestone/secs)
		} else {
			plain = append(plain, rv.Milestone/secs)
		}
		startX, needY = append(startX, prev/secs), append(needY, rv.ProbNeeded)
		prev = rv.Milestone
	}
	xlabel := "work done, walltime of the job (" + unit + ")"
	marks := []plot.Marks{{Name: "end, checkpointed", X: ckpt, Style: 3}, {Name: "end, no checkpoint", X: plain, Style: 6, Dashed: true}}
	density := plot.Panel{
		Figure: plot.Figure{Title: "Walltime density, reservation ends", XLabel: xlabel, YLabel: "density (1/" + unit + ")", Legend: plot.LegendTopRight},
		Lines:  []plot.Series{{Name: "density of the walltime", X: xs, Y: pdf}},
		Marks:  marks,
	}
	survival := plot.Panel{
		Figure: plot.Figure{Title: "Survival and P(reservation needed)", XLabel: xlabel, YLabel: "probability", YRange: [2]float64{0, 1.02}, Legend: plot.LegendTopRight},
		Lines:  []plot.Series{{Name: "survival P(X > t)", X: xs, Y: surv}},
		Points: []plot.Series{{Name: "P(needed) at its start", X: startX, Y: needY}},
		Marks:  marks,
	}
	cost := costPanel(r, unit, secs)
	return []plot.Panel{density, survival, cost}
}

// costPanel is the bar chart of the plan's expected cost beside the
// baselines' and the omniscient cost, in unit (secs seconds each).
func costPanel(r *Result, unit string, secs float64) plot.Panel {
	bars := []plot.Bar{{Label: r.Algorithm + " (this plan)", Value: r.ExpectedCost / secs, Highlight: true}}
	for _, b := range r.Baselines {
		if b.Name != r.Algorithm && !math.IsNaN(b.ExpectedCost) && !math.IsInf(b.ExpectedCost, 0) {
			bars = append(bars, plot.Bar{Label: b.Name, Value: b.ExpectedCost / secs})
		}
	}
	bars = append(bars, plot.Bar{Label: "omniscient (lower bound)", Value: r.Omniscient / secs})
	cost := plot.Panel{
		Figure: plot.Figure{Title: "Expected cost of the plan and of the baselines", XLabel: "expected cost (" + unit + " of reservation at α = 1)"},
		Bars:   bars,
		Weight: 0.35 + 0.12*float64(len(bars)),
	}
	top := 0.0
	for _, b := range bars {
		top = math.Max(top, b.Value)
	}
	if limit := 4 * bars[0].Value; top > limit && limit > 0 { // keep the close ones apart
		cost.XRange = [2]float64{0, limit * 1.1}
	}
	return cost
}

// PlotPlan writes PlanPanels to path (.svg or .png).
func PlotPlan(path string, d distribution.Distribution, r *Result) error {
	return plot.Stack(path, 0, 0, PlanPanels(d, r)...)
}

// PlanPage is the HTML page of a plan: its picture, the reservations
// needed with probability at least TableCutoff, and the costs.
func PlanPage(d distribution.Distribution, r *Result) (report.Page, error) {
	svg, err := plot.StackBytes("svg", 0, 0, PlanPanels(d, r)...)
	if err != nil {
		return report.Page{}, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	res := report.Table{Caption: "Reservations (work done t_k at each end; those needed with probability ≥ 0.001)",
		Header: []string{"k", "request", "Slurm --time", "ends at work t_k", "checkpoint", "P(needed)"}}
	for i, rv := range r.Reservations {
		if rv.ProbNeeded < TableCutoff {
			break
		}
		ck := "no"
		if rv.Checkpoint {
			ck = "yes"
		}
		res.Rows = append(res.Rows, []string{strconv.Itoa(i + 1), units.FormatSeconds(rv.Length), units.SlurmTime(rv.Length),
			units.FormatSeconds(rv.Milestone), ck, g(rv.ProbNeeded)})
	}
	costs := report.Table{Caption: "Expected cost (cost units; α per second reserved)", Header: []string{"strategy", "expected cost", "ratio to this plan"}}
	costs.Rows = append(costs.Rows, []string{r.Algorithm + " (this plan)", g(r.ExpectedCost), "1"})
	for _, b := range r.Baselines {
		costs.Rows = append(costs.Rows, []string{b.Name, g(b.ExpectedCost), g(b.ExpectedCost / r.ExpectedCost)})
	}
	costs.Rows = append(costs.Rows, []string{"omniscient (lower bound)", g(r.Omniscient), g(r.Omniscient / r.ExpectedCost)})
	return report.Page{
		Title:   "Reservation plan",
		Intro:   fmt.Sprintf("Walltime law %s over [%s, %s]; plan by %s, expected cost %s.", d, units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi), r.Algorithm, g(r.ExpectedCost)),
		Figures: []report.Figure{{Name: "plan.svg", Caption: "density and survival of the walltime with the reservation ends; expected costs", SVG: svg}},
		Tables:  []report.Table{res, costs},
	}, nil
}
