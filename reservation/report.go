package reservation

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/distribution"
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
