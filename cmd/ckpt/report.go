package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
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
	if r.N > 0 && reservation.HasGuarantee(r.Algorithm) {
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

func writeReserveText(w io.Writer, r *reservation.Result, src lawSource, o reservation.Options, all bool) error {
	var b strings.Builder
	writeLawText(&b, src)
	fmt.Fprintf(&b, "support: [%s, %s]", units.FormatSeconds(r.Lo), units.FormatSeconds(r.Hi))
	if r.TailMass > 0 {
		fmt.Fprintf(&b, " (the law is truncated to it: probability %.3g outside is dropped; a job longer than %s needs a new plan)", r.TailMass, units.FormatSeconds(r.Hi))
	}
	b.WriteString("\n")
	c := o.Costs
	fmt.Fprintf(&b, "cost model: %g x reserved + %g x used + %g per reservation; checkpoint C = %s, restart R = %s\n",
		c.Alpha, c.Beta, c.Gamma, units.FormatSeconds(c.C), units.FormatSeconds(c.R))
	b.WriteString(reservation.GuaranteeText(r))
	b.WriteString("\n\n")
	if err := reservation.WriteTable(&b, nil, r.Rows(), all, "--all"); err != nil {
		return err
	}
	writeCostText(&b, r, c)
	writeBaselinesText(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLawText prints where the law came from and the fitted candidates.
func writeLawText(b *strings.Builder, src lawSource) {
	fmt.Fprintf(b, "walltime law: %s (mean %s, median %s)\n", src.Spec, fmtPtrSeconds(src.Mean), fmtPtrSeconds(src.Median))
	if src.History == "" {
		return
	}
	fmt.Fprintf(b, "  from %d runs in %s (--fit %s)", src.Runs, src.History, src.Fit)
	if s := src.Sacct; s != nil {
		fmt.Fprintf(b, ": %d complete, %d censored; skipped %s",
			s.Complete, s.Censored, (slurm.Runs{Skipped: s.Skipped}).SkippedSummary())
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
func writeCostText(b *strings.Builder, r *reservation.Result, c reservation.Costs) {
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
func writeBaselinesText(b *strings.Builder, r *reservation.Result) {
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
