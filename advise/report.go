package advise

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes the replay's table: one line per policy.
func (r ReplayReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d jobs replayed (%d read), %d hit their limit (played as if their length were the request)\n",
		r.Log, r.Jobs, r.Read, r.Censored)
	how := "fitted on the log"
	if r.Params.Wait.A > 0 {
		how = "fixed by --wait"
	}
	fmt.Fprintf(w, "evaluation wait = %.3g·t + %.0f s (%s); advisor: groups of >= %d runs, last %d kept, prior %g\n",
		r.Wait.A, r.Wait.B, how, r.Params.MinRuns, r.Params.Window, r.Params.Prior)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tturnaround h\tvs user\treserved/used\tkill rate\tsubmissions/job\tlost node-h\tchanged\t")
	for _, p := range append(append([]PolicyResult(nil), r.Policies...), r.Points...) {
		fmt.Fprintf(tw, "%s\t%.3f\t%+.1f%%\t%.2f\t%.1f%%\t%.3f\t%.0f\t%d\t\n", p.Policy, p.MeanTurnaround/3600,
			100*p.VsUser, p.ReservedOverUsed, 100*p.KillRate, p.SubmissionsPerJob, p.LostNodeHours, p.Changed)
	}
	return tw.Flush()
}
