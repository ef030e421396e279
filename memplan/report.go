package memplan

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
)

// Report is what Run returns, and its JSON encoding is the schema of
// `ckpt reserve --profile/--task-dir --json`, in the project's one
// unit-suffix style: a key ending in _s is in seconds, _bytes in bytes.
// Memory is in bytes there because not every input is in GB (a --task-dir
// trace is in KiB); the text report prints GB (10⁹ bytes).
type Report struct {
	// Application is the model's name; Source says where it came from.
	Application string `json:"application"`
	Source      string `json:"source"`
	// Runs is the number of past runs fitted (Tasks), DroppedRuns the ids
	// of the runs left out.
	Runs        int      `json:"runs,omitempty"`
	DroppedRuns []string `json:"dropped_runs,omitempty"`
	// Tasks are the phases of the model, in order.
	Tasks []ReportTask `json:"tasks"`
	// MeanMemory M̄ (Section 3.2.2) and PeakMemory max M_i, in bytes.
	MeanMemory float64 `json:"mean_memory_bytes"`
	PeakMemory float64 `json:"peak_memory_bytes"`
	// TotalWalltimeLaw describes the law of Σ X_i (DescribeTotal).
	TotalWalltimeLaw string `json:"total_walltime_law"`
	// CheckpointCost is C(V) = l + V/b in words ("4.12 s + V / 0.2071
	// GB/s"); Restart is R in seconds.
	CheckpointCost string  `json:"checkpoint_cost"`
	Restart        float64 `json:"restart_s"`
	// Algorithm is the strategy reported; ExpectedReservationTime its
	// E[Σ W_k] in seconds, ExpectedWeightedMemory its E[Σ W_k M_k / Σ W_k]
	// in bytes.
	Algorithm               string  `json:"algorithm"`
	ExpectedReservationTime float64 `json:"expected_reservation_time_s"`
	ExpectedWeightedMemory  float64 `json:"expected_weighted_memory_bytes"`
	// Reservations are the plan's reservations with their sbatch requests.
	Reservations []ReportReservation `json:"reservations"`
	// MaxRequest is the longest reservation the plan was allowed (0: no
	// bound).
	MaxRequest float64 `json:"max_request_s,omitempty"`
	// Others are the other strategies' expectations (Request.Others).
	Others []ReportStrategy `json:"others,omitempty"`
	// TransferFactors are the per-phase slowdowns of Request.TransferRuns.
	TransferFactors []float64 `json:"transfer_factors,omitempty"`

	// Model and Plan are the model planned and the plan reported, for the
	// pictures (Plot, Page) and a Slurm chain; MemTau is the τ the pictures
	// mark. They are not part of the JSON.
	Model  *profile.Source `json:"-"`
	Plan   *MemPlan        `json:"-"`
	MemTau float64         `json:"-"`
}

// ReportTask is one phase of the model: its walltime law (a
// distribution spec, seconds) and its peak memory Mem in bytes.
type ReportTask struct {
	Name     string  `json:"name"`
	Walltime string  `json:"walltime"`
	Mem      float64 `json:"mem_bytes"`
}

// ReportReservation is one reservation of the plan (lengths in seconds,
// as reservation.Reservation, and its memory Mem in bytes) with what to
// ask sbatch: --time (HH:MM:SS, rounded up to the minute) and --mem (MiB,
// rounded up).
type ReportReservation struct {
	reservation.Reservation
	Mem            float64 `json:"mem_bytes"`
	StopBeforeTask int     `json:"stop_before_task,omitempty"`
	ProbNeeded     float64 `json:"prob_needed"`
	SbatchTime     string  `json:"sbatch_time"`
	SbatchMem      string  `json:"sbatch_mem"`
}

// ReportStrategy is another strategy's expected reservation time (s),
// expected weighted memory (bytes) and number of reservations.
type ReportStrategy struct {
	Name                    string  `json:"name"`
	ExpectedReservationTime float64 `json:"expected_reservation_time_s"`
	ExpectedWeightedMemory  float64 `json:"expected_weighted_memory_bytes"`
	Reservations            int     `json:"reservations"`
}

// bytesPerGB converts the model's GB (10⁹ bytes) to the report's bytes.
const bytesPerGB = 1e9

// newReport assembles the report of plan, with the other strategies'
// expectations when others is set.
func newReport(src *profile.Source, ps *AppPlans, plan *MemPlan, o AppPlanOptions, others bool) *Report {
	app := src.App
	res := &Report{Application: app.Name, Source: src.Desc, Runs: src.Runs, MeanMemory: app.MeanMemory() * bytesPerGB, PeakMemory: app.PeakMemory() * bytesPerGB,
		TotalWalltimeLaw: DescribeTotal(ps.Total), CheckpointCost: fmt.Sprintf("%.4g s + V / %.4g GB/s", o.Ckpt.Latency, o.Ckpt.Bandwidth),
		Restart: o.Restart, MaxRequest: o.MaxLength, Algorithm: plan.Name, ExpectedReservationTime: plan.ExpectedTime, ExpectedWeightedMemory: plan.ExpectedWeightedMemory * bytesPerGB,
		Model: src, Plan: plan, MemTau: o.MemTau}
	for _, d := range src.Dropped {
		res.DroppedRuns = append(res.DroppedRuns, d.ID)
	}
	for _, t := range app.Tasks {
		res.Tasks = append(res.Tasks, ReportTask{Name: t.Name, Walltime: t.Walltime.String(), Mem: t.Mem * bytesPerGB})
	}
	for _, r := range plan.Reservations {
		res.Reservations = append(res.Reservations, ReportReservation{Reservation: r.Reservation, Mem: r.Mem * bytesPerGB, StopBeforeTask: r.StopBeforeTask,
			ProbNeeded: r.ProbNeeded, SbatchTime: units.SlurmTime(r.Length), SbatchMem: units.SlurmMem(r.Mem)})
	}
	if !others {
		return res
	}
	for _, s := range AppStrategies {
		if p := ps.Plans[s]; p != nil && s != plan.Name && !math.IsNaN(p.ExpectedTime) {
			res.Others = append(res.Others, ReportStrategy{Name: s, ExpectedReservationTime: p.ExpectedTime,
				ExpectedWeightedMemory: p.ExpectedWeightedMemory * bytesPerGB, Reservations: len(p.Reservations)})
		}
	}
	return res
}

// WriteJSON writes the report as indented JSON (output.WriteJSON).
func (r *Report) WriteJSON(w io.Writer) error { return output.WriteJSON(w, r) }

// WriteText writes the report for a reader: the model, the costs, the
// plan's table (every reservation when all is set, else up to
// P(needed) < reservation.TableCutoff) and the other strategies.
func (r *Report) WriteText(w io.Writer, all bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "application: %s (%s)\n", r.Application, r.Source)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  task\twalltime law\tpeak memory")
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "  %s\t%s\t%.3g GB\n", t.Name, t.Walltime, t.Mem/bytesPerGB)
	}
	tw.Flush()
	fmt.Fprintf(&b, "total walltime: %s; average memory %.3g GB, peak %.3g GB\n", r.TotalWalltimeLaw, r.MeanMemory/bytesPerGB, r.PeakMemory/bytesPerGB)
	fmt.Fprintf(&b, "checkpoint C(V) = %s, restart R = %s\n", r.CheckpointCost, units.FormatSeconds(r.Restart))
	if r.MaxRequest > 0 {
		fmt.Fprintf(&b, "limits: every reservation at most %s\n", units.FormatSeconds(r.MaxRequest))
	}
	fmt.Fprintf(&b, "strategy: %s\n\n", r.Algorithm)
	rows := make([]reservation.TableRow, len(r.Reservations))
	for i, rv := range r.Reservations {
		rows[i] = reservation.TableRow{Length: rv.Length, Extra: []string{fmt.Sprintf("%.3g GB", rv.Mem/bytesPerGB), rv.SbatchMem},
			Checkpoint: rv.Checkpoint, Saved: rv.Saved, ProbNeeded: rv.ProbNeeded}
	}
	if err := reservation.WriteTable(&b, []string{"memory", "sbatch --mem"}, rows, all, "--all"); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nexpected reservation time: %s per run; expected weighted memory: %.3g GB\n", units.FormatSeconds(r.ExpectedReservationTime), r.ExpectedWeightedMemory/bytesPerGB)
	r.writeOthers(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOthers writes the table of the other strategies, if any.
func (r *Report) writeOthers(b *strings.Builder) {
	if len(r.Others) == 0 {
		return
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\texpected reservation time\tweighted memory\treservations\t")
	for _, o := range r.Others {
		fmt.Fprintf(tw, "%s\t%s\t%.3g GB\t%d\t\n", o.Name, units.FormatSeconds(o.ExpectedReservationTime), o.ExpectedWeightedMemory/bytesPerGB, o.Reservations)
	}
	tw.Flush()
}

// Plot draws the plan as Fig. 18 does (PlotProfile) to path, whose
// extension (.svg, .png) picks the format.
func (r *Report) Plot(path string) error {
	return PlotProfile(path, r.Model.App, r.Plan, r.MemTau)
}

// Page is the report's HTML page (ProfilePage).
func (r *Report) Page() (report.Page, error) {
	return ProfilePage(r.Model.App, r.Plan, r.MemTau, r.Model.Desc)
}
