package reservation

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// HasGuarantee says whether Theorem 3 covers the algorithm's plans: the DP
// classes dyn-prog-count and, within their classes, all-ckpt and no-ckpt.
func HasGuarantee(algorithm string) bool {
	switch algorithm {
	case AlgoDynProgCount, AlgoAllCkpt, AlgoNoCkpt:
		return true
	}
	return false
}

// GuaranteeText describes a result's planning algorithm and what is
// guaranteed about its plan, as one line ("strategy: …"): Theorem 3's
// factor for DYN-PROG-COUNT(X, ε) and, within their classes (Section 3.4),
// its ALL-CKPT and NO-CKPT variants; optimality on a discrete law; nothing
// for the periodic strategies, which are heuristics (best τ of Algorithm
// 2), nor for a plan given to Evaluate.
func GuaranteeText(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "strategy: %s", r.Algorithm)
	switch {
	case HasGuarantee(r.Algorithm):
		b.WriteString(dpGuarantee(r))
	case r.Algorithm == AlgoAllCkptPer || r.Algorithm == AlgoNoCkptPer:
		fmt.Fprintf(&b, ", the best of tau = 1..max-tau equal chunks: tau = %d (a heuristic, with no guarantee)", r.Tau)
	case r.Algorithm == "given":
		b.WriteString(" (the plan given to --evaluate)")
	}
	return b.String()
}

// dpGuarantee is GuaranteeText's tail for the DP classes.
func dpGuarantee(r *Result) string {
	if r.Limited {
		return limitedGuarantee(r)
	}
	if r.N == 0 {
		if r.Algorithm != AlgoDynProgCount {
			return " (optimal for this discrete law among the strategies of its class)"
		}
		return " (optimal for this discrete law)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, " on %d grid points", r.N)
	if math.IsInf(r.Epsilon, 0) || math.IsNaN(r.Epsilon) {
		b.WriteString(" (no guarantee: with C or R = 0 and gamma = 0 no grid bounds the error)")
		return b.String()
	}
	of := "the optimum"
	switch r.Algorithm {
	case AlgoAllCkpt:
		of = "the best strategy that checkpoints every reservation"
	case AlgoNoCkpt:
		of = "the best strategy without checkpoints"
	}
	if f := GuaranteeFactor(r.Epsilon); f == 1+r.Epsilon {
		fmt.Fprintf(&b, " (guaranteed within a factor 1+%.3g of %s", r.Epsilon, of)
	} else {
		fmt.Fprintf(&b, " (guaranteed within a factor %.3g = (1+%.3g/3)^2 of %s", f, r.Epsilon, of)
	}
	if r.Capped {
		b.WriteString("; grid capped by --max-n")
	}
	b.WriteString(")")
	return b.String()
}

// limitedGuarantee is dpGuarantee under limits (Result.Limited).
func limitedGuarantee(r *Result) string {
	within := "within the limits"
	if r.MaxLength > 0 {
		within = "with every reservation within " + units.FormatSeconds(r.MaxLength)
	}
	if r.N == 0 {
		return fmt.Sprintf(" (the optimum %s over milestones at the law's values and, under a bound, checkpoints between them)", within)
	}
	return fmt.Sprintf(" on %d grid points (the optimum on the grid %s; Theorem 3's guarantee is not proven under limits)", r.N, within)
}

// Warnings says when a plan for law d should not be taken for the
// cheapest: a law of infinite mean, which only its truncation makes
// plannable, and a strategy priced beside the plan that costs less (a heavy
// tail on a capped grid, or a restricted algorithm). Each warning is one
// line naming the options (--n, --max-n, --tail-mass, --strategy) that
// change the outcome.
func Warnings(r *Result, d distribution.Distribution, o Options) []string {
	var w []string
	if m := d.Mean(); math.IsInf(m, 0) || math.IsNaN(m) {
		mean := "finite"
		if x, _, err := Law(d, o.TailMass); err == nil {
			mean = units.FormatSeconds(x.Mean())
		}
		w = append(w, fmt.Sprintf("%v has an infinite mean, so every strategy has an infinite expected cost on it; as the paper does for unbounded laws, the plan is for the law truncated to [%s, %s] (probability %.3g above is dropped), whose mean is %s, and with so heavy a tail that cut decides the plan: compare --tail-mass values",
			d, units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi), r.TailMass, mean))
	}
	if r.Algorithm == "given" {
		return w // pricing the user's plan beside the others is the point
	}
	if msg := cheaperWarning(r); msg != "" {
		w = append(w, msg)
	}
	return w
}

// cheaperWarning names a strategy priced beside the plan that costs less.
func cheaperWarning(r *Result) string {
	var best *Priced
	for i, bl := range r.Baselines {
		if bl.Name != r.Algorithm && (best == nil || bl.ExpectedCost < best.ExpectedCost) {
			best = &r.Baselines[i]
		}
	}
	if best == nil || !(best.ExpectedCost < r.ExpectedCost*(1-1e-9)) {
		return ""
	}
	msg := fmt.Sprintf("the %s plan is not the cheapest strategy priced here: %s expects %.6g against %.6g for the plan",
		r.Algorithm, best.Name, best.ExpectedCost, r.ExpectedCost)
	if r.N > 0 && HasGuarantee(r.Algorithm) {
		msg += fmt.Sprintf("; its %d-point grid (one point every %s of [%s, %s]) is too coarse for this law and guarantees only a factor %.3g; a larger --n or --max-n, or a larger --tail-mass (a shorter support), refines it",
			r.N, units.FormatSeconds((r.Hi-r.Lo)/float64(r.N)), units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi), GuaranteeFactor(r.Epsilon))
	}
	if slices.Contains(Algorithms, best.Name) {
		msg += fmt.Sprintf("; --strategy %s plans that one", best.Name)
	}
	return msg
}

// TableCutoff is the probability below which WriteTable stops listing
// reservations one by one (unless asked for all).
const TableCutoff = 1e-3

// TableRow is one reservation of a plan as WriteTable prints it.
type TableRow struct {
	// Length is the reservation to request, in seconds.
	Length float64
	// Extra holds the caller's columns, printed after "sbatch --time"
	// (a memory-aware plan's memory and sbatch --mem).
	Extra []string
	// Checkpoint, Saved and ProbNeeded are those of PlannedReservation.
	Checkpoint bool
	Saved      float64
	ProbNeeded float64
}

// Rows turns a result's reservations into table rows.
func (r *Result) Rows() []TableRow {
	out := make([]TableRow, len(r.Reservations))
	for i, rv := range r.Reservations {
		out[i] = TableRow{Length: rv.Length, Checkpoint: rv.Checkpoint, Saved: rv.Saved, ProbNeeded: rv.ProbNeeded}
	}
	return out
}

// WriteTable prints the reservation table of a plan: index, request,
// sbatch --time, the extra columns named by extra, checkpoint, progress
// saved and P(needed), right-aligned. Unless all, the rows stop once
// P(needed) < TableCutoff, with a "... N more" line, the last reservation,
// and a note that all of them can be listed (allHint, e.g. "--all").
func WriteTable(w io.Writer, extra []string, rows []TableRow, all bool, allHint string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := append(append([]string{"#", "request", "sbatch --time"}, extra...), "checkpoint", "progress saved", "P(needed)")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	row := func(i int, rv TableRow) {
		cells := append(append([]string{fmt.Sprint(i), units.FormatSeconds(rv.Length), units.SlurmTime(rv.Length)}, rv.Extra...),
			yesNo(rv.Checkpoint), units.FormatSeconds(rv.Saved), fmt.Sprintf("%.4g", rv.ProbNeeded))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	for i, rv := range rows {
		if !all && rv.ProbNeeded < TableCutoff && len(rows)-i > 1 {
			fmt.Fprintf(tw, "...\t%d more%s\t< %g\t\n", len(rows)-i-1, strings.Repeat("\t", 3+len(extra)), TableCutoff)
			row(len(rows), rows[len(rows)-1])
			break
		}
		row(i+1, rv)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !all && len(rows) > 0 && rows[len(rows)-1].ProbNeeded < TableCutoff {
		_, err := fmt.Fprintf(w, "(%s lists every reservation)\n", allHint)
		return err
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Report is the answer to a Request and the plan's JSON schema (`ckpt
// reserve --json`): the law, the cost model, the reservations to request
// and their expected cost beside the other strategies'. A key ending in _s
// is in seconds (the project's one unit-suffix style: _s, _bytes, _bps);
// costs are in the cost model's units (α per second reserved). WriteText
// renders it as text, Plot and Page as a picture.
type Report struct {
	Law       LawSource  `json:"law"`
	Support   [2]float64 `json:"support_s"`
	TailMass  float64    `json:"tail_mass"`
	Costs     Costs      `json:"costs"`
	Algorithm string     `json:"algorithm"`
	N         int        `json:"n,omitempty"`
	// Epsilon is the guarantee the grid achieves (DP classes only).
	Epsilon *float64 `json:"epsilon,omitempty"`
	Capped  bool     `json:"n_capped,omitempty"`
	// MaxRequest is the longest reservation the plan was allowed (0: no
	// bound).
	MaxRequest     float64             `json:"max_request_s,omitempty"`
	Tau            int                 `json:"tau,omitempty"`
	ExpectedCost   float64             `json:"expected_cost"`
	OmniscientCost float64             `json:"omniscient_cost"`
	LowerBound     *float64            `json:"lower_bound,omitempty"`
	Reservations   []ReportReservation `json:"reservations"`
	// Baselines maps each strategy priced beside the plan to its expected
	// cost (null when infinite); BaselineDetails lists them in order.
	Baselines       map[string]*float64 `json:"baselines,omitempty"`
	BaselineDetails []ReportBaseline    `json:"baseline_details,omitempty"`
	Warnings        []string            `json:"warnings,omitempty"`

	// Result is the plan itself and Dist the law as loaded (before
	// truncation), for the picture; neither is part of the JSON.
	Result *Result                   `json:"-"`
	Dist   distribution.Distribution `json:"-"`
}

// ReportReservation is one reservation of the plan, in seconds: its length
// (with the sbatch --time that covers it), the milestone of work reached at
// its end, whether it checkpoints, its restart, work and checkpoint times,
// the progress saved and the probability that it is needed at all.
type ReportReservation struct {
	Index          int     `json:"index"`
	Length         float64 `json:"length_s"`
	Slurm          string  `json:"slurm_time"`
	Milestone      float64 `json:"milestone_s"`
	Checkpoint     bool    `json:"checkpoint"`
	Restart        float64 `json:"restart_s"`
	Work           float64 `json:"work_s"`
	CheckpointTime float64 `json:"checkpoint_time_s"`
	// Margin (reserved after the checkpoint) and Slack (added by rounding
	// the request up) are those of a plan for Slurm (Costs.Limited).
	Margin     float64 `json:"margin_s,omitempty"`
	Slack      float64 `json:"slack_s,omitempty"`
	Saved      float64 `json:"saved_s"`
	ProbNeeded float64 `json:"prob_needed"`
}

// ReportBaseline is a strategy priced beside the plan.
type ReportBaseline struct {
	Name         string   `json:"name"`
	ExpectedCost *float64 `json:"expected_cost"`
	Reservations int      `json:"reservations"`
	Tau          int      `json:"tau,omitempty"`
}

// NewReport is the report of result r for the law w planned with options
// o (its warnings are left to the caller).
func NewReport(r *Result, w Walltime, o Options) *Report {
	out := &Report{
		Law: w.Source, Support: [2]float64{r.Lo, r.Hi}, TailMass: r.TailMass,
		Costs: o.Costs, Algorithm: r.Algorithm, N: r.N, Capped: r.Capped, Tau: r.Tau, MaxRequest: r.MaxLength,
		ExpectedCost: r.ExpectedCost, OmniscientCost: r.Omniscient, LowerBound: finite(r.LowerBound),
		Result: r, Dist: w.Law,
	}
	if r.N > 0 && HasGuarantee(r.Algorithm) {
		out.Epsilon = finite(r.Epsilon)
	}
	for i, rv := range r.Reservations {
		out.Reservations = append(out.Reservations, ReportReservation{
			Index: i + 1, Length: rv.Length, Slurm: units.SlurmTime(rv.Length), Milestone: rv.Milestone,
			Checkpoint: rv.Checkpoint, Restart: rv.Restart, Work: rv.Work, CheckpointTime: rv.CheckpointTime, Margin: rv.Margin, Slack: rv.Slack,
			Saved: rv.Saved, ProbNeeded: rv.ProbNeeded,
		})
	}
	if len(r.Baselines) > 0 {
		out.Baselines = map[string]*float64{}
		for _, b := range r.Baselines {
			out.Baselines[b.Name] = finite(b.ExpectedCost)
			out.BaselineDetails = append(out.BaselineDetails, ReportBaseline{Name: b.Name, ExpectedCost: finite(b.ExpectedCost), Reservations: b.Reservations, Tau: b.Tau})
		}
	}
	return out
}

// WriteText writes the report as `ckpt reserve` prints it: the law, the
// support, the cost model, the guarantee, the table of reservations (all of
// them when all, else up to P(needed) < TableCutoff), the expected cost
// with its certificate, and the baselines. It needs Result.
func (rep *Report) WriteText(w io.Writer, all bool) error {
	r := rep.Result
	var b strings.Builder
	writeLawText(&b, rep.Law)
	fmt.Fprintf(&b, "support: [%s, %s]", units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi))
	if r.TailMass > 0 {
		fmt.Fprintf(&b, " (the law is truncated to it: probability %.3g outside is dropped; a job longer than %s needs a new plan)", r.TailMass, units.FormatSeconds(r.Hi))
	}
	b.WriteString("\n")
	c := rep.Costs
	fmt.Fprintf(&b, "cost model: %g x reserved + %g x used + %g per reservation; checkpoint C = %s, restart R = %s\n",
		c.Alpha, c.Beta, c.Gamma, units.FormatSeconds(c.C), units.FormatSeconds(c.R))
	writeLimitsText(&b, c, rep.MaxRequest)
	b.WriteString(GuaranteeText(r))
	b.WriteString("\n\n")
	if err := WriteTable(&b, nil, r.Rows(), all, "--all"); err != nil {
		return err
	}
	writeCostText(&b, r, c)
	writeBaselinesText(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLimitsText prints the scheduler's limits the plan was made under,
// if any: the longest reservation, the margin after a checkpoint and the
// granularity of the requests.
func writeLimitsText(b *strings.Builder, c Costs, maxRequest float64) {
	var parts []string
	if maxRequest > 0 {
		parts = append(parts, "every reservation at most "+units.FormatSeconds(maxRequest))
	}
	if c.Margin > 0 {
		parts = append(parts, "a checkpoint reserves C + "+units.FormatSeconds(c.Margin)+" (the runner's margin and the app's late start)")
	}
	if c.Granularity > 0 {
		parts = append(parts, "requests in whole multiples of "+units.FormatSeconds(c.Granularity))
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "limits: %s\n", strings.Join(parts, "; "))
	}
}

// writeLawText prints where the law came from and the fitted candidates.
func writeLawText(b *strings.Builder, src LawSource) {
	fmt.Fprintf(b, "walltime law: %s (mean %s, median %s)\n", src.Spec, fmtPtrSeconds(src.Mean), fmtPtrSeconds(src.Median))
	if src.History == "" {
		return
	}
	fmt.Fprintf(b, "  from %d runs in %s (--fit %s)", src.Runs, src.History, src.Fit)
	if s := src.Sacct; s != nil {
		fmt.Fprintf(b, ": %d complete, %d censored; skipped %s", s.Complete, s.Censored, s.skippedSummary())
	}
	b.WriteString("\n")
	for _, f := range src.Fits {
		switch {
		case f.Note != "":
			fmt.Fprintf(b, "    %-12s %s\n", f.Family, f.Note)
		case f.KS == nil:
			fmt.Fprintf(b, "    %-12s BIC %9.1f  AIC %9.1f  %s\n", f.Family, f.BIC, f.AIC, f.Spec)
		default:
			fmt.Fprintf(b, "    %-12s BIC %9.1f  AIC %9.1f  KS %.3f  %s\n", f.Family, f.BIC, f.AIC, *f.KS, f.Spec)
		}
	}
}

// writeCostText prints the expected cost and its certificate.
func writeCostText(b *strings.Builder, r *Result, c Costs) {
	fmt.Fprintf(b, "\nexpected cost: %.6g", r.ExpectedCost)
	if c.Alpha == 1 && c.Beta == 0 && c.Gamma == 0 {
		fmt.Fprintf(b, " s of reservation per job (%s)", units.FormatSeconds(r.ExpectedCost))
	} else {
		b.WriteString(" (alpha x seconds reserved + beta x seconds used + gamma per reservation)")
	}
	fmt.Fprintf(b, "; omniscient %.6g, ratio %.4f\n", r.Omniscient, r.ExpectedCost/r.Omniscient)
	if !math.IsNaN(r.LowerBound) && r.LowerBound > 0 {
		gap := (r.ExpectedCost - r.LowerBound) / r.LowerBound
		fmt.Fprintf(b, "certified: the optimum of this class costs at least %.6g, so this plan is within %.3g%% of it\n", r.LowerBound, 100*gap)
		if gap > 0.01 && r.N > 0 {
			fmt.Fprintf(b, "hint: the %d-point grid is coarse for this law; a larger --max-n or --n, or a smaller support (--tail-mass), tightens the plan\n", r.N)
		}
	}
}

// writeBaselinesText prints the other strategies priced beside the plan.
func writeBaselinesText(b *strings.Builder, r *Result) {
	if len(r.Baselines) == 0 {
		return
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\texpected cost\tvs plan\treservations\t")
	for _, bl := range r.Baselines {
		name := bl.Name
		if bl.Tau > 0 {
			name += fmt.Sprintf(" (tau=%d)", bl.Tau)
		}
		if math.IsInf(bl.ExpectedCost, 1) {
			fmt.Fprintf(tw, "%s\t-\t-\tneeds a longer reservation\t\n", name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.6g\t%.4f\t%d\t\n", name, bl.ExpectedCost, bl.ExpectedCost/r.ExpectedCost, bl.Reservations)
	}
	fmt.Fprintf(tw, "omniscient\t%.6g\t%.4f\t-\t\n", r.Omniscient, r.Omniscient/r.ExpectedCost)
	tw.Flush()
}

func fmtPtrSeconds(v *float64) string {
	if v == nil {
		return "infinite"
	}
	return units.FormatSeconds(*v)
}

// Plot draws the report's picture to path (.svg or .png): the walltime
// law with the reservation ends, P(needed) and the costs (PlotPlan).
func (rep *Report) Plot(path string) error { return PlotPlan(path, rep.Dist, rep.Result) }

// Page is the report's self-contained HTML page (PlanPage).
func (rep *Report) Page() (report.Page, error) { return PlanPage(rep.Dist, rep.Result) }
