package interval

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Request is the question `ckpt interval` answers: how many checkpoints a
// task should take and how far apart, by each method, and on which
// storage. Durations are in seconds.
type Request struct {
	// Te is the task's work (no failure, no checkpoint), in (0, MaxDuration].
	Te float64 `json:"te_s"`
	// C is the checkpoint cost, in (0, MaxDuration]; 0: the chosen
	// storage's (Storages or MemoryMB must then be given).
	C float64 `json:"c_s,omitempty"`
	// R is the restart cost, in [0, MaxDuration]; nil: the chosen
	// storage's, else 0.
	R *float64 `json:"r_s,omitempty"`
	// Failures is where the failures come from (E(Y), MTBF or history).
	Failures FailureSource `json:"failures"`
	// Storages are the checkpoint storages to choose between, with their
	// costs (Section 4.2.2), e.g. local and shared.
	Storages []Storage `json:"storages,omitempty"`
	// MemoryMB is the task's memory in MB, > 0: the local and shared
	// storages' costs are read from the BLCR tables at it (not with
	// Storages).
	MemoryMB float64 `json:"memory_mb,omitempty"`
	// BLCR is the folder of the BLCR tables; "": BLCRDir in the data
	// folder Data (datadir.Path).
	BLCR string `json:"blcr,omitempty"`
	// Data is the data folder ("": $CKPT_DATA, else ../shared/data beside
	// the checkout).
	Data string `json:"data,omitempty"`
	// Fits asks for the failure laws fitted to the history (for the
	// picture).
	Fits bool `json:"fits,omitempty"`
}

// Validate checks the request without reading any file; the error names
// the field by its JSON name.
func (r Request) Validate() error {
	if err := checkDuration("te_s", r.Te, false); err != nil {
		return err
	}
	if r.C != 0 {
		if err := checkDuration("c_s", r.C, false); err != nil {
			return err
		}
	}
	if r.R != nil {
		if err := checkDuration("r_s", *r.R, true); err != nil {
			return err
		}
	}
	for _, s := range r.Storages {
		if err := checkDuration("storages."+s.Name+".c_s", s.C, false); err != nil {
			return err
		}
		if err := checkDuration("storages."+s.Name+".r_s", s.R, true); err != nil {
			return err
		}
	}
	switch {
	case r.MemoryMB != 0 && !(r.MemoryMB > 0 && !math.IsInf(r.MemoryMB, 0)):
		return usage.Fieldf("memory_mb", "must be a finite number of MB > 0, got %v", r.MemoryMB)
	case r.MemoryMB != 0 && len(r.Storages) > 0:
		return usage.Fieldf("memory_mb", "give memory_mb or storages, not both")
	case r.MemoryMB == 0 && r.BLCR != "":
		return usage.Fieldf("blcr", "goes with memory_mb")
	case r.MemoryMB == 0 && r.Data != "":
		return usage.Fieldf("data", "goes with memory_mb")
	case r.BLCR != "" && r.Data != "":
		return usage.Fieldf("blcr", "give blcr or data, not both")
	case r.C == 0 && r.MemoryMB == 0 && len(r.Storages) == 0:
		return usage.Fieldf("c_s", "the checkpoint cost is required (or memory_mb to take it from the BLCR tables, or storages)")
	}
	return r.Failures.Validate()
}

// checkDuration refuses a duration that is not > 0 (≥ 0 with zeroOK), at
// most MaxDuration and, when > 0, of finite inverse (no subnormal: its
// rate would be +Inf).
func checkDuration(field string, v float64, zeroOK bool) error {
	if v > 0 && math.IsInf(1/v, 0) {
		return usage.Fieldf(field, "%v s is too small: its inverse overflows", v)
	}
	if ok := v > 0 || zeroOK && v == 0; !ok || v > MaxDuration {
		low := "> 0"
		if zeroOK {
			low = ">= 0"
		}
		return usage.Fieldf(field, "must be %s and at most %.0e s (%.0f years), got %v", low, MaxDuration, MaxDuration/(365*86400), v)
	}
	return nil
}

// Report is the answer to a Request and the JSON of `ckpt interval
// --json`: the task as planned (every value known), the methods' plans
// and the storage choice. Every key names its unit (_s: seconds).
type Report struct {
	Te               output.Number `json:"te_s"`
	C                output.Number `json:"c_s"`
	R                output.Number `json:"r_s"`
	ExpectedFailures output.Number `json:"expected_failures"`
	MTBF             output.Number `json:"mtbf_s"`
	// Source describes where the failures came from.
	Source        string          `json:"source"`
	Young         MethodReport    `json:"young"`
	Daly          MethodReport    `json:"daly"`
	MNOF          MethodReport    `json:"mnof"`
	Storage       []StorageReport `json:"storage,omitempty"`
	StorageChoice string          `json:"storage_choice,omitempty"`
	Memory        *MemoryReport   `json:"memory,omitempty"`

	advice Advice       // for the pictures
	data   *FailureData // the failure history, for the picture
}

// MethodReport is one method's plan.
type MethodReport struct {
	Intervals         int           `json:"intervals"`
	Checkpoints       int           `json:"checkpoints"`
	Period            output.Number `json:"period_s"`
	ExpectedWallclock output.Number `json:"expected_wallclock_eq4_s"`
	// OverheadPercent is 100·(E(Tw) − Te)/Te, as the text table prints it.
	OverheadPercent  output.Number `json:"overhead_percent"`
	ExactExponential output.Number `json:"expected_wallclock_exact_exp_s"`
	ExactReplay      output.Number `json:"expected_wallclock_exact_replay_s"`
	// Eq4GapPercent is 100·max |Eq. (4) − exact|/exact.
	Eq4GapPercent output.Number `json:"eq4_gap_percent"`
}

// StorageReport is one storage's cost (Section 4.2.2).
type StorageReport struct {
	Name      string        `json:"name"`
	C         output.Number `json:"c_s"`
	R         output.Number `json:"r_s"`
	Intervals output.Number `json:"intervals"`
	Cost      output.Number `json:"cost_s"`
	// XReal and CostReal are the paper's form: the real x* of Eq. (3).
	XReal    output.Number `json:"x_real"`
	CostReal output.Number `json:"cost_real_s"`
}

// MemoryReport says where the costs of MemoryMB come from.
type MemoryReport struct {
	MB           float64    `json:"mb"`
	MeasuredMB   [2]float64 `json:"measured_mb"`
	Extrapolated bool       `json:"extrapolated"`
}

// Run answers the request: it loads the failure source and the storages'
// costs, then Advise plans the task. A plan no float64 can carry (E(Y) so
// large that no period helps: checkPlans) is refused as a usage error. Nothing is random: the same request gives the same report.
func Run(ctx context.Context, r Request) (*Report, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	fs, err := r.Failures.Load(r.Te, r.Fits)
	if err != nil {
		return nil, err
	}
	stores, mem, err := r.storages()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := Task{Te: r.Te, C: math.NaN(), R: math.NaN(), EY: fs.EY + 0, MTBF: fs.MTBF} // + 0: −0 is 0
	if r.C != 0 {
		t.C = r.C
	}
	if r.R != nil {
		t.R = *r.R + 0
	}
	a, err := Advise(t, stores)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if err := checkPlans(a, r.Failures.field()); err != nil {
		return nil, err
	}
	rep := reportOf(a, fs.Source, mem)
	rep.data = fs.Data
	return rep, nil
}

// storages reads the BLCR tables at MemoryMB, or returns Storages.
func (r Request) storages() ([]Storage, *MemoryReport, error) {
	if r.MemoryMB == 0 {
		return r.Storages, nil, nil
	}
	dir := r.BLCR
	if dir == "" {
		var err error
		if dir, err = datadir.Path(r.Data, BLCRDir...); err != nil {
			return nil, nil, usage.Fieldf("memory_mb", "BLCR cost tables: %v; or give --blcr DIR, or --local C,R --shared C,R", err)
		}
	}
	b, err := LoadBLCR(dir)
	if err != nil {
		return nil, nil, usage.Fieldf("memory_mb", "BLCR cost tables: %v", err)
	}
	lo, hi := b.Range()
	if err := checkExtrapolated(b.Storages(r.MemoryMB), r.MemoryMB); err != nil {
		return nil, nil, err
	}
	return b.Storages(r.MemoryMB), &MemoryReport{MB: r.MemoryMB, MeasuredMB: [2]float64{lo, hi}, Extrapolated: b.Extrapolated(r.MemoryMB)}, nil
}

func reportOf(a Advice, source string, mem *MemoryReport) *Report {
	t := a.Task
	rep := &Report{Te: output.Number(t.Te), C: output.Number(t.C), R: output.Number(t.R), ExpectedFailures: output.Number(t.EY),
		MTBF: output.Number(t.MTBF), Source: source, Memory: mem, advice: a}
	for _, m := range a.Methods {
		mr := MethodReport{Intervals: m.Intervals, Checkpoints: m.Intervals - 1, Period: output.Number(m.Period),
			ExpectedWallclock: output.Number(m.ExpectedWallclock), OverheadPercent: output.Number(100 * m.Overhead / t.Te),
			ExactExponential: output.Number(m.ExactExponential), ExactReplay: output.Number(m.ExactReplay), Eq4GapPercent: output.Number(100 * m.Eq4Gap())}
		switch m.Name {
		case MethodYoung:
			rep.Young = mr
		case MethodDaly:
			rep.Daly = mr
		case MethodMNOF:
			rep.MNOF = mr
		}
	}
	if p := a.Storage; p != nil {
		for i, s := range p.Costs {
			rep.Storage = append(rep.Storage, StorageReport{Name: s.Name, C: output.Number(s.C), R: output.Number(s.R),
				Intervals: output.Number(s.X), Cost: output.Number(s.Cost), XReal: output.Number(p.Real[i].X), CostReal: output.Number(p.Real[i].Cost)})
		}
		rep.StorageChoice = p.Chosen().Name
	}
	return rep
}

// Warning is the line to print on stderr when the BLCR costs were
// extrapolated beyond the measured memories; "" otherwise.
func (r *Report) Warning() string {
	m := r.Memory
	if m == nil || !m.Extrapolated {
		return ""
	}
	return fmt.Sprintf("memory %g MB is outside the measured BLCR range %.4g-%.4g MB: its costs are extrapolated", m.MB, m.MeasuredMB[0], m.MeasuredMB[1])
}

// methods are the plans in the order Plan makes them.
func (r *Report) methods() []struct {
	name string
	m    MethodReport
} {
	return []struct {
		name string
		m    MethodReport
	}{{MethodYoung, r.Young}, {MethodDaly, r.Daly}, {MethodMNOF, r.MNOF}}
}

// WriteText writes the report as `ckpt interval` prints it: the task, the
// methods' table, the notes on Eq. (4) and the storage table.
func (r *Report) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	te := float64(r.Te)
	fmt.Fprintf(w, "task: Te = %s (%g s), C = %.6g s, R = %.6g s\n", units.FormatSeconds(te), te, float64(r.C), float64(r.R))
	fmt.Fprintf(w, "failures: E(Y) = %.6g, MTBF = %s (a value not given is Te/E(Y) or Te/MTBF, Corollary 1)\n", float64(r.ExpectedFailures), fmtSeconds(float64(r.MTBF)))
	fmt.Fprintf(w, "source: %s\n\n", r.Source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tintervals\tcheckpoints\tperiod (s)\tE(Tw) Eq. (4) (s)\toverhead\texact exp. (s)\texact replay (s)\t")
	for _, x := range r.methods() {
		m := x.m
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.6g\t%.6g\t%.3f%%\t%.6g\t%.6g\t\n", x.name, m.Intervals, m.Checkpoints, float64(m.Period),
			float64(m.ExpectedWallclock), float64(m.OverheadPercent), float64(m.ExactExponential), float64(m.ExactReplay))
	}
	tw.Flush()
	fmt.Fprintln(w, "Eq. (4) is first order; exact exp.: exponential failures at the MTBF, also during checkpoints and restarts;")
	fmt.Fprintln(w, "exact replay: the same without failures during restarts (the trace replay's model)")
	for _, m := range r.advice.Methods {
		if !isFinite(m.ExactExponential) || !isFinite(m.ExactReplay) {
			fmt.Fprintf(w, "note: for %s, the exact expectation overflows (exact exp. %v s, exact replay %v s): failures come much faster than its intervals end\n",
				m.Name, m.ExactExponential, m.ExactReplay)
		} else if g := m.Eq4Gap(); !(g <= Eq4GapThreshold) {
			fmt.Fprintf(w, "note: for %s, Eq. (4) is %.1f%% off the exact expectation (exact exp. %.6g s, exact replay %.6g s)\n",
				m.Name, 100*g, m.ExactExponential, m.ExactReplay)
		}
	}
	if len(r.Storage) > 0 {
		fmt.Fprintln(w, "\nstorage (Section 4.2.2; cost = C(x-1) + R E(Y) + Te E(Y)/2x at the integer x, and at the real x* of Eq. (3)):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "storage\tC (s)\tR (s)\tintervals\tcost (s)\tx*\tcost at x* (s)\tchoice\t")
		best := slices.IndexFunc(r.Storage, func(s StorageReport) bool { return s.Name == r.StorageChoice })
		if r.advice.Storage != nil {
			best = r.advice.Storage.Best
		}
		for i, s := range r.Storage {
			mark := ""
			if i == best {
				mark = "best"
			}
			fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%g\t%.2f\t%.2f\t%.2f\t%s\t\n", s.Name, float64(s.C), float64(s.R), float64(s.Intervals),
				float64(s.Cost), float64(s.XReal), float64(s.CostReal), mark)
		}
		tw.Flush()
	}
	return w.Err()
}

func fmtSeconds(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strings.TrimSpace(fmt.Sprintf("%.6g s", v))
}

// Plot draws the report to path (.svg or .png): E(Tw) against the number
// of intervals with the methods' choices, and the failure law fitted to
// the history when the request asked for Fits (PlotAdvice).
func (r *Report) Plot(path string) error { return PlotAdvice(path, r.advice, r.data) }

// Page is the report as an HTML page: the picture of Plot and the tables
// (AdvicePage).
func (r *Report) Page() (report.Page, error) { return AdvicePage(r.advice, r.Source, r.data) }
