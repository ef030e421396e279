package capacity

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot/vg"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
)

// The text and picture renderers of the application layer's reports
// (what `ckpt capacity` prints without --json).

// WriteText writes the decision: the section, then one job a row with its
// actions.
func (d *Decision) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	w.Printf("%s: P = %d, length %g, at most %d processors unsaved at the next event\n", d.Algorithm, d.P, d.Length, d.Keep)
	w.Printf("useful work %.6g (section goodput %.4f)\n\n", d.Gain, d.Goodput)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "job\tp\tstart\tend\twork\tactions\t")
	for _, j := range d.Jobs {
		var acts []string
		for _, iv := range j.Actions {
			acts = append(acts, fmt.Sprintf("%s[%g,%g)", iv.Kind, iv.Start, iv.End))
		}
		if len(acts) == 0 {
			acts = []string{"idle"}
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.6g\t%s\t\n", j.Job, j.P, j.Start, j.End, j.Work, strings.Join(acts, " "))
	}
	tw.Flush()
	return w.Err()
}

// WriteText writes one row a (workload, strategy).
func (r SimulateReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\talgorithm\tjobs\tfinished\tgoodput\tmin yield\trel goodput\trel min yield\tcheckpoints\trecoveries\t")
	for _, x := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t\n", x.Workload, x.Algorithm, x.Jobs, x.Finished, x.Goodput, x.MinYield, x.RelGoodput, x.RelYield, x.Checkpoints, x.Recoveries)
	}
	tw.Flush()
	return w.Err()
}

// picturesHeight is the height of the stacked schedule panels.
func (r SimulateReport) picturesHeight() vg.Length { return vg.Length(len(r.Panels)) * 2.6 * vg.Inch }

// Plot draws the schedules (SimulateRequest.Pictures) into an SVG or
// PNG file.
func (r SimulateReport) Plot(path string) error {
	return plot.Stack(path, 0, r.picturesHeight(), r.Panels...)
}

// Page is the report as an HTML page: the schedules and the rows.
func (r SimulateReport) Page() (report.Page, error) {
	svg, err := plot.StackBytes("svg", 0, r.picturesHeight(), r.Panels...)
	if err != nil {
		return report.Page{}, err
	}
	return SchedulePage(svg, r.Rows), nil
}

// WriteText writes the files written, one a line.
func (r ExportReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	for _, f := range r.Files {
		w.Printf("wrote %s\n", f)
	}
	return w.Err()
}

// WriteText writes the schedule's counts, goodput and minimum yield.
func (m ScheduleMetrics) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	w.Printf("jobs %d, started %d, completed %d, violations %d\n", m.Jobs, m.Started, m.Completed, m.Violations)
	w.Printf("goodput %.4f, min yield %.4f\n", m.Goodput, m.MinYield)
	return w.Err()
}
