package slurm

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
	"gonum.org/v1/plot/vg"
)

// Styles of the chain picture (Okabe–Ito indices of package plot): a light
// box for what was reserved, a full-colour one for what ran, coloured by
// how it ended.
var chainStyles = []struct {
	outcome, name string
	style         int
	solid         bool
}{
	{"", "reserved (planned length)", 5, false},
	{"projected", "pending: projected after the previous one", 7, false},
	{OutcomeDone, "ran: done", 3, true},
	{OutcomeCheckpointed, "ran: checkpointed", 2, true},
	{OutcomeRunning, "running", 5, true},
	{"ended", "ran: killed, failed, out, cancelled, timeout, vanished or preempted", 4, true},
	{OutcomeSkipped, "skipped", 7, true},
}

func chainStyle(outcome string) (int, bool, int) {
	switch outcome {
	case OutcomeKilled, OutcomeFailed, OutcomeOut, OutcomeCancelled, OutcomeTimeout, OutcomeVanished, OutcomePreempted:
		outcome = "ended"
	}
	for i, s := range chainStyles {
		if s.outcome == outcome {
			return s.style, s.solid, i
		}
	}
	return 5, true, -1
}

// ChainPanel draws a chain on a time line: one row per reservation, the
// time it reserved (its planned length from its start) as a light box and
// the time it ran (start to end, or to now while it runs) as a box in the
// colour of its outcome; while the chain is not over, a reservation not
// started is drawn light after the previous one's end, as projected. Checkpoints (the end
// of a checkpointed reservation) are marked by points. Time is in hours
// (or the unit the span needs) since the first start; a chain that never
// started is drawn as projected from 0. O(reservations).
func ChainPanel(st *State, now time.Time) plot.Panel {
	var t0 time.Time
	for _, o := range st.Outcomes {
		if !o.Start.IsZero() && (t0.IsZero() || o.Start.Before(t0)) {
			t0 = o.Start
		}
	}
	if t0.IsZero() {
		t0 = now
	}
	// box is one rectangle: outcome "" is the reserved length,
	// "projected" a reservation not started, else how it ran.
	type box struct {
		x0, x1, y float64
		outcome   string
	}
	var planned, ran []box
	var ckX, ckY []float64
	cursor := 0.0              // seconds since t0: where the next projected reservation starts
	over := st.Stopped() != "" // the chain ended (or stopped itself): what did not start never will
	for _, o := range st.Outcomes {
		switch o.Outcome {
		case OutcomeDone, OutcomeOut, OutcomeCancelled, OutcomeSkipped:
			over = true
		}
	}
	for k := 1; k <= len(st.Chain.Steps); k++ {
		step := st.Chain.Steps[k-1]
		o, ok := st.Outcomes[k]
		if !ok || o.Start.IsZero() {
			if !over {
				planned = append(planned, box{cursor, cursor + step.Time, float64(k), "projected"})
				cursor += step.Time
			}
			continue
		}
		start := o.Start.Sub(t0).Seconds()
		end := o.End
		if end.IsZero() {
			end = now
		}
		stop := math.Max(end.Sub(t0).Seconds(), start)
		planned = append(planned, box{start, start + step.Time, float64(k), ""})
		ran = append(ran, box{start, stop, float64(k), o.Outcome})
		if o.Outcome == OutcomeCheckpointed {
			ckX, ckY = append(ckX, stop), append(ckY, float64(k))
		}
		cursor = math.Max(cursor, stop)
	}
	all := append(planned, ran...) // the boxes that ran on top
	span := 0.0
	for _, b := range all {
		span = math.Max(span, b.x1)
	}
	unit, secs := plot.TimeUnit(span)
	var rects []plot.Rect
	used := map[int]bool{}
	for _, b := range all {
		style, solid, idx := chainStyle(b.outcome)
		used[idx] = true
		h := 0.38
		if solid {
			h = 0.22
		}
		rects = append(rects, plot.Rect{X0: b.x0 / secs, X1: b.x1 / secs, Y0: b.y - h, Y1: b.y + h, Style: style, Solid: solid})
	}
	var keys []plot.RectKey
	for i, s := range chainStyles {
		if used[i] {
			keys = append(keys, plot.RectKey{Name: s.name, Style: s.style, Solid: s.solid})
		}
	}
	for i := range ckX {
		ckX[i] /= secs
	}
	p := plot.Panel{
		Figure: plot.Figure{Title: fmt.Sprintf("Chain %s (%s): %d reservations", st.ID, st.Chain.JobName(), len(st.Chain.Steps)),
			XLabel: "time since the first start (" + unit + ")", YLabel: "reservation",
			YRange: [2]float64{0.4, float64(len(st.Chain.Steps)) + 1.6}, Legend: plot.LegendTopLeft},
		Rects:    rects,
		RectKeys: keys,
	}
	if len(ckX) > 0 {
		p.Points = []plot.Series{{Name: "checkpoint saved", X: ckX, Y: ckY}}
	}
	return p
}

// PlotChain writes ChainPanel to path (.svg or .png).
func PlotChain(path string, st *State, now time.Time) error {
	return plot.Stack(path, 0, chainHeight(st), ChainPanel(st, now))
}

// ChainPictures is a chain drawn up to Now, as ckpt chain status --plot
// and --html draw it (a report.Pictured).
type ChainPictures struct {
	State  *State
	Status ChainStatus
	Now    time.Time
}

// Plot writes PlotChain.
func (c ChainPictures) Plot(path string) error { return PlotChain(path, c.State, c.Now) }

// Page is ChainPage.
func (c ChainPictures) Page() (report.Page, error) { return ChainPage(c.State, c.Status, c.Now) }

// chainHeight gives each reservation a row of a quarter inch.
func chainHeight(st *State) vg.Length {
	return vg.Length(math.Max(3, 1.6+0.25*float64(len(st.Chain.Steps)))) * vg.Inch
}

// ChainPage is the HTML page of `ckpt chain status --html`.
func ChainPage(st *State, cs ChainStatus, now time.Time) (report.Page, error) {
	svg, err := plot.StackBytes("svg", 0, chainHeight(st), ChainPanel(st, now))
	if err != nil {
		return report.Page{}, err
	}
	t := report.Table{Caption: "Reservations", Header: []string{"reservation", "job", "state", "outcome", "progress saved", "planned", "start", "end"}}
	for _, j := range cs.Jobs {
		o := st.Outcomes[j.Reservation]
		row := []string{strconv.Itoa(j.Reservation), dash(j.JobID), dash(j.State), dash(j.Outcome), "-",
			units.FormatSeconds(st.Chain.Steps[j.Reservation-1].Time), clockTime(o.Start), clockTime(o.End)}
		if j.Outcome != "" {
			row[4] = units.FormatSeconds(j.Progress)
		}
		t.Rows = append(t.Rows, row)
	}
	return report.Page{
		Title: "Reservation chain " + st.ID,
		Intro: fmt.Sprintf("Chain %s (%s): %s, progress saved %s, %d reservations planned.", cs.ID, cs.Name, cs.Outcome,
			units.FormatSeconds(cs.Progress), cs.Reservations),
		Figures: []report.Figure{{Name: "chain.svg", Caption: "the reservations on a time line: reserved (light), ran (coloured by outcome), checkpoints", SVG: svg}},
		Tables:  []report.Table{t},
	}, nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clockTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}
