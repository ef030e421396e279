package iosim

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// The text renderers of the reports (what `ckpt iosim` prints without
// --json) and the picture renderers of RunReport.

// num formats x, or "-" when it is not finite.
func num(format string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

// WriteText writes the run report as a table, one strategy a row.
func (rep RunReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	w.Printf("platform %s: %d nodes, bandwidth %s, node MTBF %s (system %s); %d trials of %s\n",
		rep.Platform, rep.Nodes, units.FormatBandwidth(rep.Bandwidth), units.FormatSeconds(rep.NodeMTBF),
		units.FormatSeconds(rep.NodeMTBF/float64(rep.Nodes)), rep.Seeds, units.FormatSeconds(rep.Window))
	if rep.BoundErr != nil {
		w.Printf("lower bound: undefined (%v)\n\n", rep.BoundErr)
	} else {
		w.Printf("lower bound: waste %.4f (Theorem 1 as a fraction of node-time, for jobs of at most 1.2 w)\n\n", float64(rep.Bound))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\twaste mean\td1\tq1\tq3\td9\tckpt slowdown\twork\tio\tckpt\tlost\tidle\t")
	for _, s := range rep.Strategies {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", s.Name, num("%.4f", s.Waste.Mean),
			num("%.4f", s.Waste.D1), num("%.4f", s.Waste.Q1), num("%.4f", s.Waste.Q3), num("%.4f", s.Waste.D9),
			num("%.2f", s.Slowdown.Mean), s.Split.Work, s.Split.IO, s.Split.Checkpoint, s.Split.Lost, s.Split.Idle)
	}
	tw.Flush()
	w.Printf("\nsplit = mean fraction of node-time; baseline keeps %.1f%% of the nodes busy (%s scheduler; node-time", 100*rep.BaselineBusy, rep.Scheduler)
	for _, k := range rep.Classes {
		w.Printf(" %s %.1f%%", k, 100*rep.BaselineClassShares[k])
	}
	w.Printf("); %.0f events per run on average\n", rep.MeanEvents)
	if rep.Accounting != "" {
		w.Printf("%s accounting: whole I/O spans booked as I/O, waste against the largest baseline of the %d trials\n", rep.Accounting, rep.Seeds)
	}
	if rep.Authors != nil {
		w.Printf("authors' model: %s (the authors' simulator's behaviours; go doc github.com/ckpt-hpc/ckpt/iosim AuthorsModel)\n", rep.Authors)
	}
	for _, x := range rep.BelowBound {
		w.Printf("%s\n", x.text(float64(rep.Bound), rep.Seeds))
	}
	if slices := rep.missingCheckpoints(); slices != "" {
		w.Printf("no checkpoint committed in the window by %s: slowdown undefined (-)\n", slices)
	}
	return w.Err()
}

// missingCheckpoints lists the strategies whose slowdown is undefined.
func (rep RunReport) missingCheckpoints() string {
	var out []string
	for _, s := range rep.Strategies {
		if math.IsNaN(s.Slowdown.Mean) {
			out = append(out, s.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Plot draws the report (and its timelines) into an SVG or PNG file.
func (rep RunReport) Plot(path string) error { return PlotRun(path, rep, rep.Timelines) }

// Page is the report as an HTML page.
func (rep RunReport) Page() (report.Page, error) { return RunPage(rep, rep.Timelines) }

// WriteText writes the mean waste per point and strategy, and the bound.
func (rep SweepReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, rep.Vary+"\t")
	for _, s := range rep.Strategies {
		fmt.Fprint(tw, s+"\t")
	}
	fmt.Fprintln(tw, "bound\t")
	for _, p := range rep.Points {
		lbl := units.FormatBandwidth(p.Value)
		if rep.Vary == "mtbf" {
			lbl = fmt.Sprintf("%.3gy", p.Value/Year)
		}
		fmt.Fprint(tw, lbl+"\t")
		for _, s := range p.Strategies {
			fmt.Fprintf(tw, "%s\t", num("%.4f", s.Waste.Mean))
		}
		fmt.Fprintf(tw, "%s\t\n", num("%.4f", float64(p.Bound)))
	}
	tw.Flush()
	w.Printf("(mean waste over %d trials; per-trial rows with --csv/--jsonl)\n", rep.Seeds)
	return w.Err()
}

// WriteText writes the bound, the Daly comparison and the class table.
func (rep BoundReport) WriteText(o io.Writer) error {
	w := output.NewWriter(o)
	w.Printf("platform %s: %d nodes, node MTBF %s, checkpoint bandwidth %s\n", rep.Platform, rep.Nodes,
		units.FormatSeconds(rep.NodeMTBF), units.FormatBandwidth(rep.CheckpointBandwidth))
	w.Printf("waste %s (lambda %s, I/O usage F = %.3f); Daly periods would need F = %.3f (waste %.4f)\n",
		num("%.4f", float64(rep.Waste)), num("%.4g", float64(rep.Lambda)), rep.IOFraction, rep.DalyIOFraction, float64(rep.DalyWaste))
	if rep.Waste >= 1 {
		w.Printf("Eq. (7) counts time lost per unit of useful time; at %.4f ≥ 1 the first-order model no longer describes the platform, which loses most of its node-time\n", float64(rep.Waste))
	}
	if !rep.Maple {
		w.Printf("as a fraction of node-time, for jobs of at most 1.2 w (what iosim run reports): waste at least %s\n", num("%.4f", float64(rep.FractionBound)))
	}
	w.Printf("\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tjobs\tnodes\tC\tperiod\tDaly period\t")
	for _, k := range rep.Classes {
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%s\t%s\t%s\t\n", k.Name, k.Jobs, k.Nodes, units.FormatSeconds(k.Checkpoint), units.FormatSeconds(k.Period), units.FormatSeconds(k.Daly))
	}
	tw.Flush()
	return w.Err()
}

// WriteText writes the answer in one line.
func (rep BandwidthForReport) WriteText(o io.Writer) error {
	w := output.NewWriter(o)
	mtbf := units.FormatSeconds(rep.NodeMTBF)
	switch {
	case !rep.Bound:
		w.Printf("%s reaches %.0f%% efficiency at %s (node MTBF %s, %d trials, ±%.0f%%)\n", rep.Strategy, 100*rep.Efficiency,
			units.FormatBandwidth(rep.Bandwidth), mtbf, rep.Seeds, 100*rep.Tolerance)
	case rep.Maple:
		w.Printf("the published bound (maple/prospective.mpl) reaches waste 0.8 at %s (%.6g B/s; node MTBF %s, waste %.6g)\n",
			units.FormatBandwidth(rep.Bandwidth), rep.Bandwidth, mtbf, rep.Waste)
	default:
		w.Printf("the bound reaches %.0f%% efficiency at %s (%.6g B/s; node MTBF %s, waste %.6g)\n", 100*rep.Efficiency,
			units.FormatBandwidth(rep.Bandwidth), rep.Bandwidth, mtbf, rep.Waste)
	}
	return w.Err()
}
