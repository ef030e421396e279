package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
)

// finite turns NaN and ±Inf into JSON null.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

type reservationJSON struct {
	Index          int     `json:"index"`
	Length         float64 `json:"length"`
	Slurm          string  `json:"slurm_time"`
	Milestone      float64 `json:"milestone"`
	Checkpoint     bool    `json:"checkpoint"`
	Restart        float64 `json:"restart"`
	Work           float64 `json:"work"`
	CheckpointTime float64 `json:"checkpoint_time"`
	Saved          float64 `json:"saved"`
	ProbNeeded     float64 `json:"prob_needed"`
}

type planJSON struct {
	Unit            string              `json:"unit"`
	Law             lawSource           `json:"law"`
	Support         [2]float64          `json:"support"`
	TailMass        float64             `json:"tail_mass"`
	Costs           reservation.Costs   `json:"costs"`
	Algorithm       string              `json:"algorithm"`
	N               int                 `json:"n,omitempty"`
	Epsilon         *float64            `json:"epsilon,omitempty"`
	Capped          bool                `json:"n_capped,omitempty"`
	Tau             int                 `json:"tau,omitempty"`
	ExpectedCost    float64             `json:"expected_cost"`
	OmniscientCost  float64             `json:"omniscient_cost"`
	LowerBound      *float64            `json:"lower_bound,omitempty"`
	Reservations    []reservationJSON   `json:"reservations"`
	Baselines       map[string]*float64 `json:"baselines,omitempty"`
	BaselineDetails []baselineJSON      `json:"baseline_details,omitempty"`
	Warnings        []string            `json:"warnings,omitempty"`
}

type baselineJSON struct {
	Name         string   `json:"name"`
	ExpectedCost *float64 `json:"expected_cost"`
	Reservations int      `json:"reservations"`
	Tau          int      `json:"tau,omitempty"`
}

func reserveJSON(r *reservation.Result, src lawSource, o reservation.Options) planJSON {
	out := planJSON{
		Unit: "seconds", Law: src, Support: [2]float64{r.Lo, r.Hi}, TailMass: r.TailMass,
		Costs: o.Costs, Algorithm: r.Algorithm, N: r.N, Capped: r.Capped, Tau: r.Tau,
		ExpectedCost: r.ExpectedCost, OmniscientCost: r.Omniscient, LowerBound: finite(r.LowerBound),
	}
	if r.N > 0 && hasGuarantee(r.Algorithm) {
		out.Epsilon = finite(r.Epsilon)
	}
	for i, rv := range r.Reservations {
		out.Reservations = append(out.Reservations, reservationJSON{
			Index: i + 1, Length: rv.Length, Slurm: units.SlurmTime(rv.Length), Milestone: rv.Milestone,
			Checkpoint: rv.Checkpoint, Restart: rv.Restart, Work: rv.Work, CheckpointTime: rv.CheckpointTime,
			Saved: rv.Saved, ProbNeeded: rv.ProbNeeded,
		})
	}
	if len(r.Baselines) > 0 {
		out.Baselines = map[string]*float64{}
		for _, b := range r.Baselines {
			out.Baselines[b.Name] = finite(b.ExpectedCost)
			out.BaselineDetails = append(out.BaselineDetails, baselineJSON{Name: b.Name, ExpectedCost: finite(b.ExpectedCost), Reservations: b.Reservations, Tau: b.Tau})
		}
	}
	return out
}

// tableCutoff is the probability below which the text report stops listing
// reservations one by one (all are in --json, or with --all).
const tableCutoff = 1e-3

func writeReserveText(w io.Writer, r *reservation.Result, src lawSource, o reservation.Options, all bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "walltime law: %s (mean %s, median %s)\n", src.Spec, fmtPtrSeconds(src.Mean), fmtPtrSeconds(src.Median))
	if src.History != "" {
		fmt.Fprintf(&b, "  from %d runs in %s (--fit %s)\n", src.Runs, src.History, src.Fit)
		for _, f := range src.Fits {
			if f.Note != "" {
				fmt.Fprintf(&b, "    %-12s %s\n", f.Family, f.Note)
			} else {
				fmt.Fprintf(&b, "    %-12s BIC %9.1f  AIC %9.1f  KS %.3f  %s\n", f.Family, f.BIC, f.AIC, f.KS, f.Spec)
			}
		}
	}
	fmt.Fprintf(&b, "support: [%s, %s]", units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi))
	if r.TailMass > 0 {
		fmt.Fprintf(&b, " (the law is truncated to it: probability %.3g outside is dropped; a job longer than %s needs a new plan)", r.TailMass, units.FormatSeconds(r.Hi))
	}
	b.WriteString("\n")
	c := o.Costs
	fmt.Fprintf(&b, "cost model: %g x reserved + %g x used + %g per reservation; checkpoint C = %s, restart R = %s\n",
		c.Alpha, c.Beta, c.Gamma, units.FormatSeconds(c.C), units.FormatSeconds(c.R))
	b.WriteString(strategyLine(r))
	b.WriteString("\n\n")

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\trequest\tsbatch --time\tcheckpoint\tprogress saved\tP(needed)\t")
	for i, rv := range r.Reservations {
		if !all && rv.ProbNeeded < tableCutoff && len(r.Reservations)-i > 1 {
			rest := r.Reservations[i:]
			fmt.Fprintf(tw, "...\t%d more\t\t\t\t< %g\t\n", len(rest)-1, tableCutoff)
			last := rest[len(rest)-1]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.4g\t\n", len(r.Reservations), units.FormatSeconds(last.Length), units.SlurmTime(last.Length), yesNo(last.Checkpoint), units.FormatSeconds(last.Saved), last.ProbNeeded)
			break
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.4g\t\n", i+1, units.FormatSeconds(rv.Length), units.SlurmTime(rv.Length), yesNo(rv.Checkpoint), units.FormatSeconds(rv.Saved), rv.ProbNeeded)
	}
	tw.Flush()
	if !all && len(r.Reservations) > 0 && r.Reservations[len(r.Reservations)-1].ProbNeeded < tableCutoff {
		b.WriteString("(--all lists every reservation)\n")
	}

	fmt.Fprintf(&b, "\nexpected cost: %.6g", r.ExpectedCost)
	if c.Alpha == 1 && c.Beta == 0 && c.Gamma == 0 {
		fmt.Fprintf(&b, " s of reservation per job (%s)", units.FormatSeconds(r.ExpectedCost))
	} else {
		b.WriteString(" (alpha x seconds reserved + beta x seconds used + gamma per reservation)")
	}
	fmt.Fprintf(&b, "; omniscient %.6g, ratio %.4f\n", r.Omniscient, r.ExpectedCost/r.Omniscient)
	if !math.IsNaN(r.LowerBound) && r.LowerBound > 0 {
		gap := (r.ExpectedCost - r.LowerBound) / r.LowerBound
		fmt.Fprintf(&b, "certified: the optimum of this class costs at least %.6g, so this plan is within %.3g%% of it\n", r.LowerBound, 100*gap)
		if gap > 0.01 && r.N > 0 {
			fmt.Fprintf(&b, "hint: the %d-point grid is coarse for this law; a larger --max-n or --n, or a smaller support (--tail-mass), tightens the plan\n", r.N)
		}
	}
	if len(r.Baselines) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "strategy\texpected cost\tvs plan\treservations\t")
		for _, bl := range r.Baselines {
			name := bl.Name
			if bl.Tau > 0 {
				name += fmt.Sprintf(" (tau=%d)", bl.Tau)
			}
			fmt.Fprintf(tw, "%s\t%.6g\t%.4f\t%d\t\n", name, bl.ExpectedCost, bl.ExpectedCost/r.ExpectedCost, bl.Reservations)
		}
		fmt.Fprintf(tw, "omniscient\t%.6g\t%.4f\t-\t\n", r.Omniscient, r.Omniscient/r.ExpectedCost)
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// strategyLine describes the planning algorithm and what is guaranteed
// about its plan: Theorem 3's factor for DYN-PROG-COUNT(X, ε) and, within
// their classes (Section 3.4), its ALL-CKPT and NO-CKPT variants; nothing
// for the periodic strategies, which are heuristics (best τ of Algorithm 2),
// nor for a plan given to --evaluate.
func strategyLine(r *reservation.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "strategy: %s", r.Algorithm)
	switch {
	case hasGuarantee(r.Algorithm):
		if r.N == 0 {
			b.WriteString(" (optimal for this discrete law")
			if r.Algorithm != reservation.AlgoDynProgCount {
				b.WriteString(" among the strategies of its class")
			}
			b.WriteString(")")
			break
		}
		fmt.Fprintf(&b, " on %d grid points", r.N)
		if math.IsInf(r.Epsilon, 0) || math.IsNaN(r.Epsilon) {
			b.WriteString(" (no guarantee: with C or R = 0 and gamma = 0 no grid bounds the error)")
			break
		}
		of := "the optimum"
		switch r.Algorithm {
		case reservation.AlgoAllCkpt:
			of = "the best strategy that checkpoints every reservation"
		case reservation.AlgoNoCkpt:
			of = "the best strategy without checkpoints"
		}
		if f := reservation.GuaranteeFactor(r.Epsilon); f == 1+r.Epsilon {
			fmt.Fprintf(&b, " (guaranteed within a factor 1+%.3g of %s", r.Epsilon, of)
		} else {
			fmt.Fprintf(&b, " (guaranteed within a factor %.3g = (1+%.3g/3)^2 of %s", f, r.Epsilon, of)
		}
		if r.Capped {
			b.WriteString("; grid capped by --max-n")
		}
		b.WriteString(")")
	case r.Algorithm == reservation.AlgoAllCkptPer || r.Algorithm == reservation.AlgoNoCkptPer:
		fmt.Fprintf(&b, ", the best of tau = 1..max-tau equal chunks: tau = %d (a heuristic, with no guarantee)", r.Tau)
	case r.Algorithm == "given":
		b.WriteString(" (the plan given to --evaluate)")
	}
	return b.String()
}

// hasGuarantee says whether Theorem 3 covers the algorithm's plans (the DP
// classes); the JSON's epsilon is reported only for them.
func hasGuarantee(algorithm string) bool {
	switch algorithm {
	case reservation.AlgoDynProgCount, reservation.AlgoAllCkpt, reservation.AlgoNoCkpt:
		return true
	}
	return false
}

// planWarnings says when the plan should not be taken for the cheapest: a
// law of infinite mean, which only its truncation makes plannable, and a
// strategy priced beside the plan that costs less (a heavy tail on a
// capped grid, or a restricted --strategy).
func planWarnings(r *reservation.Result, d distribution.Distribution, o reservation.Options) []string {
	var w []string
	if m := d.Mean(); math.IsInf(m, 0) || math.IsNaN(m) {
		mean := "finite"
		if x, _, err := reservation.Law(d, o.TailMass); err == nil {
			mean = units.FormatSeconds(x.Mean())
		}
		w = append(w, fmt.Sprintf("%v has an infinite mean, so every strategy has an infinite expected cost on it; as the paper does for unbounded laws, the plan is for the law truncated to [%s, %s] (probability %.3g above is dropped), whose mean is %s, and with so heavy a tail that cut decides the plan: compare --tail-mass values",
			d, units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi), r.TailMass, mean))
	}
	if r.Algorithm == "given" {
		return w // pricing the user's plan beside the others is the point
	}
	var best *reservation.Priced
	for i, bl := range r.Baselines {
		if bl.Name != r.Algorithm && (best == nil || bl.ExpectedCost < best.ExpectedCost) {
			best = &r.Baselines[i]
		}
	}
	if best == nil || !(best.ExpectedCost < r.ExpectedCost*(1-1e-9)) {
		return w
	}
	msg := fmt.Sprintf("the %s plan is not the cheapest strategy priced here: %s expects %.6g against %.6g for the plan",
		r.Algorithm, best.Name, best.ExpectedCost, r.ExpectedCost)
	if r.N > 0 && hasGuarantee(r.Algorithm) {
		msg += fmt.Sprintf("; its %d-point grid (one point every %s of [%s, %s]) is too coarse for this law and guarantees only a factor %.3g; a larger --n or --max-n, or a larger --tail-mass (a shorter support), refines it",
			r.N, units.FormatSeconds((r.Hi-r.Lo)/float64(r.N)), units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi), reservation.GuaranteeFactor(r.Epsilon))
	}
	if slices.Contains(reservation.Algorithms, best.Name) {
		msg += fmt.Sprintf("; --strategy %s plans that one", best.Name)
	}
	return append(w, msg)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func fmtPtrSeconds(v *float64) string {
	if v == nil {
		return "infinite"
	}
	return units.FormatSeconds(*v)
}
