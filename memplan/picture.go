package memplan

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/ckpt-hpc/ckpt/reservation"

	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
	"gonum.org/v1/plot/vg"
)

// pictureCutoff is the probability below which a reservation is not
// drawn (nor listed in the page's table): ckpt reserve's table cutoff.
const pictureCutoff = reservation.TableCutoff

// picturePoints is the number of times at which the curves are drawn.
const picturePoints = 400

// Styles of the memory picture (Okabe–Ito indices of package plot).
const (
	styleBoxA, styleBoxB = 2, 5 // blue, sky blue: reservations, alternating
	styleEnd             = 4    // vermillion: reservation ends
)

// ProfilePanels draws a memory-aware plan over its application (named by
// the last element of its name, which is a folder's path for --task-dir), as Fig.
// 18 of the profiles paper does (Gainaru et al.): memory against the
// application's progress (its work time t, without restarts and
// checkpoints), with
//
//   - each reservation needed with probability ≥ 0.001 as a box from the
//     work it restarts from to the work done at its end, as high as the
//     memory it requests;
//   - the expected memory Σ_i P(task i runs at t)·M_i and the likely
//     maximum M_τ(t) of Eq. (2) (the largest M_i among the tasks running
//     with probability > tau), which the requests follow;
//
// and, below, the phases and their spread: P(task i runs at t) for every
// task (Figs. 9 and 11). The time axis runs to the 0.999 quantile of the
// total walltime or the last box's end. O(picturePoints × tasks × steps)
// for the timeline queries (profile.Timeline, DefaultSteps).
func ProfilePanels(app *profile.App, plan *MemPlan, tau float64) ([]plot.Panel, error) {
	tl, err := profile.NewTimeline(context.Background(), app, 0)
	if err != nil {
		return nil, err
	}
	total, err := app.Total()
	if err != nil {
		return nil, err
	}
	hi := total.Quantile(1 - pictureCutoff)
	shown := plan.Reservations
	for k, r := range plan.Reservations {
		if r.ProbNeeded < pictureCutoff {
			shown = plan.Reservations[:k]
			break
		}
	}
	for _, r := range shown {
		hi = math.Max(hi, r.Milestone)
	}
	if !(hi > 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("application %q: no positive, finite time range to draw (0.999 quantile %g)", app.Name, hi)
	}
	unit, secs := plot.TimeUnit(hi)
	mean := plot.Series{Name: "expected memory Σ P(task i runs)·M_i"}
	likely := plot.Series{Name: fmt.Sprintf("likely maximum M_τ(t), τ = %g (Eq. 2)", tau)}
	phases := make([]plot.Series, len(app.Tasks))
	for i, t := range app.Tasks {
		phases[i].Name = t.Name
		if t.Name == "" {
			phases[i].Name = "task " + strconv.Itoa(i+1)
		}
		phases[i].Name += fmt.Sprintf(" (%.3g GB)", t.Mem)
	}
	for k := range picturePoints {
		t := math.Max(hi*float64(k)/(picturePoints-1), hi*1e-9) // just after the start, where task 1 runs
		m := 0.0
		for i, task := range app.Tasks {
			p := tl.Running(i+1, t)
			m += p * task.Mem
			phases[i].X, phases[i].Y = append(phases[i].X, t/secs), append(phases[i].Y, p)
		}
		mean.X, mean.Y = append(mean.X, t/secs), append(mean.Y, m)
		likely.X, likely.Y = append(likely.X, t/secs), append(likely.Y, tl.LikelyMax(tau, t))
	}
	var boxes []plot.Rect
	var ends []float64
	for k, r := range shown {
		st := styleBoxA
		if k%2 == 1 {
			st = styleBoxB
		}
		boxes = append(boxes, plot.Rect{X0: (r.Milestone - r.Work) / secs, X1: r.Milestone / secs, Y0: 0, Y1: r.Mem, Style: st})
		if r.Checkpoint {
			ends = append(ends, r.Milestone/secs)
		}
	}
	xlabel := "application's progress: work time t (" + unit + ")"
	memory := plot.Panel{
		Figure: plot.Figure{Title: fmt.Sprintf("%s: memory over time and the %s reservations", filepath.Base(app.Name), plan.Name),
			XLabel: xlabel, YLabel: "memory (GB)", Legend: plot.LegendTopRight},
		Rects:    boxes,
		RectKeys: []plot.RectKey{{Name: "reservation: work × memory requested", Style: styleBoxA}},
		Lines:    []plot.Series{likely, mean},
		Marks:    []plot.Marks{{Name: "checkpoint at a reservation's end", X: ends, Style: styleEnd, Dashed: true}},
		Weight:   1.4,
	}
	running := plot.Panel{
		Figure: plot.Figure{Title: "Phases: probability that each task runs", XLabel: xlabel, YLabel: "P(task runs at t)",
			YRange: [2]float64{0, 1.02}, Legend: plot.LegendTopRight},
		Lines: phases,
	}
	return []plot.Panel{memory, running}, nil
}

// PlotProfile writes ProfilePanels to path (.svg or .png).
func PlotProfile(path string, app *profile.App, plan *MemPlan, tau float64) error {
	panels, err := ProfilePanels(app, plan, tau)
	if err != nil {
		return err
	}
	return plot.Stack(path, 0, 8*vg.Inch, panels...)
}

// ProfilePage is the HTML page of `ckpt reserve --profile --html`: the
// picture, the reservations needed with probability ≥ 0.001 and the
// application's tasks; source says where the model comes from.
func ProfilePage(app *profile.App, plan *MemPlan, tau float64, source string) (report.Page, error) {
	panels, err := ProfilePanels(app, plan, tau)
	if err != nil {
		return report.Page{}, err
	}
	svg, err := plot.StackBytes("svg", 0, 8*vg.Inch, panels...)
	if err != nil {
		return report.Page{}, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	res := report.Table{Caption: "Reservations (those needed with probability ≥ 0.001)",
		Header: []string{"k", "Slurm --time", "memory (GB)", "work from", "work to", "checkpoint", "P(needed)"}}
	for k, r := range plan.Reservations {
		if r.ProbNeeded < pictureCutoff {
			break
		}
		ck := "no"
		if r.Checkpoint {
			ck = "yes"
		}
		res.Rows = append(res.Rows, []string{strconv.Itoa(k + 1), units.SlurmTime(r.Length), g(r.Mem),
			units.FormatSeconds(r.Milestone - r.Work), units.FormatSeconds(r.Milestone), ck, g(r.ProbNeeded)})
	}
	tasks := report.Table{Caption: "Tasks (phases) of the application", Header: []string{"task", "walltime law", "memory (GB)"}}
	for i, t := range app.Tasks {
		name := t.Name
		if name == "" {
			name = "task " + strconv.Itoa(i+1)
		}
		tasks.Rows = append(tasks.Rows, []string{name, t.Walltime.String(), g(t.Mem)})
	}
	return report.Page{
		Title: "Time and memory reservations",
		Intro: fmt.Sprintf("%s (%s), planned by %s: expected reservation time %s, expected weighted memory %s GB.",
			app.Name, source, plan.Name, units.FormatSeconds(plan.ExpectedTime), g(plan.ExpectedWeightedMemory)),
		Figures: []report.Figure{{Name: "memory.svg", Caption: "memory over the application's progress with each reservation as a time × memory box; the phases' spread below", SVG: svg}},
		Tables:  []report.Table{res, tasks},
	}, nil
}
