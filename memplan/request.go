package memplan

// This file is the application layer of the profiles capability: one
// Request, validated in one place, run into one Report (report.go). It is
// what `ckpt reserve --profile/--tasks` calls.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Request is one planning run for a multi-phase application: where its
// model comes from, the costs, and the modelling choices of Section 4.2.
// DefaultRequest gives the defaults; Validate names the first field out of
// range.
type Request struct {
	// Profile is a built-in profile (profile.Builtins) or the path of a
	// profile file (profile.Parse). Exactly one of Profile and Tasks.
	Profile string
	// Tasks is a folder of per-run traces (profile.ReadRuns) whose phases
	// are fitted one law per task.
	Tasks string
	// Fit is the family fitted to every task of Tasks ("": normal, the
	// paper's); only with Tasks.
	Fit string
	// Phases, with Tasks of whole-run traces, keeps the runs segmented into
	// that many phases (0: the most common count); only with Tasks.
	Phases int
	// TransferRuns is the path of a file of the phase walltimes of runs on
	// another machine, one run per line (profile.ReadPhaseTimes): the model
	// is moved there with one slowdown per phase (Section 4.5). "": none.
	TransferRuns string
	// Strategy is the plan to report, one of AppStrategies.
	Strategy string
	// CkptLatencyS is the latency l of C(V) = l + V/b, in seconds; nil: the
	// profile's, else CRIU's. Valid range [0, MaxWalltime].
	CkptLatencyS *float64
	// CkptBandwidthGBps is the bandwidth b of C(V), in GB/s; nil: the
	// profile's, else CRIU's. Valid range [profile.MinBandwidth, +∞).
	CkptBandwidthGBps *float64
	// RestartS is the restart cost R in seconds; nil: the profile's, else
	// CRIU's restart time of the peak memory. Valid range [0, MaxWalltime].
	RestartS *float64
	// MemTau is the τ of the memory requests: request the largest memory of
	// the tasks running with probability > MemTau (given the job still
	// runs). Valid range [0, 1).
	MemTau float64
	// CkptTau is the τ of M_τ(t) that sizes the checkpoint at t (Eq. (2)).
	// Valid range [0, 1).
	CkptTau float64
	// V2Eps is the probability that MEM-ALL-CKPT-V2's first reservation
	// reaches the memory-hungry task. Valid range (0, 1).
	V2Eps float64
	// MemMargin is the fraction added to every memory request (headroom).
	// Valid range [0, MaxMemMargin].
	MemMargin float64
	// TailMass ν cuts the total walltime law at Q(1 − ν). Valid range (0, 1).
	TailMass float64
	// N is the number of points of the discretised total walltime. Valid
	// range [2, reservation.MaxGridPoints].
	N int
	// MaxRequest, when > 0, is the longest reservation allowed, in seconds
	// (a partition's MaxTime); the DP strategies plan the optimum under it.
	// Valid range [0, reservation.MaxWalltime]; 0: no bound.
	MaxRequest float64
	// Others prices the other strategies too (Report.Others).
	Others bool
	// Warn, when set, receives the one-line warnings of the run (the runs
	// of Tasks left out), as soon as they arise.
	Warn func(string)
}

// DefaultRequest is a Request, without its source, with the defaults of
// `ckpt reserve --profile` (whose flags take them from here): MEM-ALL-CKPT,
// memory τ = 0.01, checkpoint τ = 0.1, ε = 0.02, no margin, ν = 10⁻⁷
// (distribution.DefaultTailMass), n = 1000, the other strategies priced.
// The paper's memory τ is 0.1 (DefaultAppPlanOptions); 0.01 requests
// enough memory for all but 1 % of the runs still going.
func DefaultRequest() Request {
	return Request{Strategy: StrategyMemAllCkpt, MemTau: 0.01, CkptTau: 0.1, V2Eps: 0.02,
		TailMass: distribution.DefaultTailMass, N: 1000, Others: true}
}

// Validate reports the first field out of range as a usage.Error whose
// Field is the Request field and whose error is an *OptionError (for the
// numeric options) or says what is wrong.
func (r Request) Validate() error {
	switch {
	case r.Profile == "" && r.Tasks == "":
		return usage.Fieldf("Profile", "give a profile or a folder of traces")
	case r.Profile != "" && r.Tasks != "":
		return usage.Fieldf("Tasks", "give a profile or a folder of traces, not both")
	case r.Profile != "" && r.Fit != "":
		return usage.Fieldf("Fit", "a profile gives its task laws: the fit applies to a folder of traces")
	case r.Profile != "" && r.Phases != 0:
		return usage.Fieldf("Phases", "applies to a folder of whole-run traces, not to a profile")
	case r.Phases < 0:
		return usage.Fieldf("Phases", "%d, want >= 1 (or 0: the most common count)", r.Phases)
	}
	if err := CheckAppStrategy(r.Strategy); err != nil {
		return usage.Fieldf("Strategy", "%w", err)
	}
	if r.Tasks != "" {
		if err := profile.CheckTaskFamily(r.family()); err != nil {
			return usage.Fieldf("Fit", "%s: %w", r.Fit, err)
		}
		if fams := distribution.FitFamilies(); !slices.Contains(fams, r.family()) {
			return usage.Fieldf("Fit", "%q is not one of %s", r.Fit, strings.Join(fams, ", "))
		}
	}
	return r.validateOptions()
}

// validateOptions checks the numeric options with AppPlanOptions.Validate
// (the fields r leaves to the source over valid placeholders), naming the
// Request field. Unlike AppPlanOptions, a Request states its tail mass.
func (r Request) validateOptions() error {
	if !(r.TailMass > 0) {
		return &usage.Error{Field: "TailMass", Err: &OptionError{Field: "TailMass", Name: "tail mass", Value: fmt.Sprint(r.TailMass), Want: "want a value in (0, 1)"}}
	}
	err := r.planOptions(AppPlanOptions{Ckpt: profile.CRIU}).Validate()
	var oe *OptionError
	if !errors.As(err, &oe) {
		return err
	}
	e := *oe
	if f, ok := requestFields[e.Field]; ok {
		e.Field = f
	}
	return &usage.Error{Field: e.Field, Err: &e}
}

// requestFields names the Request field of the AppPlanOptions fields
// whose names differ.
var requestFields = map[string]string{"Ckpt.Latency": "CkptLatencyS", "Ckpt.Bandwidth": "CkptBandwidthGBps", "Restart": "RestartS", "MaxLength": "MaxRequest"}

// planOptions is o (a source's costs and the paper's defaults) with r's
// options and the costs r gives.
func (r Request) planOptions(o AppPlanOptions) AppPlanOptions {
	for _, v := range []struct{ from, to *float64 }{
		{r.CkptLatencyS, &o.Ckpt.Latency}, {r.CkptBandwidthGBps, &o.Ckpt.Bandwidth}, {r.RestartS, &o.Restart},
	} {
		if v.from != nil {
			*v.to = *v.from
		}
	}
	o.MemTau, o.CkptTau, o.V2Eps, o.MemMargin, o.TailMass, o.N = r.MemTau, r.CkptTau, r.V2Eps, r.MemMargin, r.TailMass, r.N
	o.MaxLength = r.MaxRequest
	return o
}

// family is the fit family of Tasks.
func (r Request) family() string {
	if r.Fit == "" {
		return "normal"
	}
	return r.Fit
}

// Run validates r, reads the application model, plans every strategy and
// reports the one r asks for. Errors caused by the input (a field, a
// profile, a trace, a model the planner refuses) are usage.Errors; a run
// stopped by ctx returns ctx's error.
func Run(ctx context.Context, r Request) (*Report, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	src, err := r.source()
	if err != nil {
		return nil, err
	}
	src, factors, err := r.transfer(src)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // reading a folder of traces can take a while
	}
	if (r.Strategy == StrategyNeuro || r.Strategy == StrategyNeuroAvg) && src.History == nil {
		return nil, usage.Fieldf("Strategy", "%s needs past runs, which a folder of traces gives, not a profile", r.Strategy)
	}
	o, err := r.options(src)
	if err != nil {
		return nil, err
	}
	ps, err := PlanApp(ctx, src.App, src.History, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usage.Wrap(fmt.Errorf("%s: %w", src.Desc, err))
	}
	plan := ps.Plans[r.Strategy]
	if plan == nil && r.MaxRequest > 0 {
		return nil, usage.Fieldf("MaxRequest", "%w: no %s plan for %s keeps every reservation within %s", reservation.ErrNoPlanWithin, r.Strategy, src.App.Name, units.FormatSeconds(r.MaxRequest))
	}
	if plan == nil {
		return nil, usage.Fieldf("Strategy", "%s is not defined for %s: its memory-hungry task is its first", r.Strategy, src.App.Name)
	}
	rep := newReport(src, ps, plan, o, r.Others)
	rep.TransferFactors = factors
	return rep, nil
}

// source reads the application model of Profile or Tasks, passing the
// warning about the runs left out to Warn.
func (r Request) source() (*profile.Source, error) {
	if r.Tasks == "" {
		src, err := profile.OpenProfile(r.Profile)
		return src, usage.Wrap(err)
	}
	set, err := profile.ReadRuns(r.Tasks, profile.ReadOptions{Phases: r.Phases})
	if errors.Is(err, profile.ErrPhaseTie) {
		return nil, usage.Fieldf("Phases", "%w; choose one", err)
	}
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if w := set.DroppedSummary(r.Tasks); w != "" && r.Warn != nil {
		r.Warn(w)
	}
	src, err := profile.FitSource(r.Tasks, set, r.family())
	return src, usage.Wrap(err)
}

// transfer applies TransferRuns: the model moved to the machine whose
// runs' phase walltimes the file gives (TransferSource).
func (r Request) transfer(src *profile.Source) (*profile.Source, []float64, error) {
	if r.TransferRuns == "" {
		return src, nil, nil
	}
	fh, err := usage.Open(r.TransferRuns)
	if err != nil {
		return nil, nil, &usage.Error{Field: "TransferRuns", Err: err}
	}
	defer fh.Close()
	runs, err := profile.ReadPhaseTimes(fh)
	if err != nil {
		return nil, nil, usage.Fieldf("TransferRuns", "%s: %w", r.TransferRuns, err)
	}
	out, f, err := TransferSource(src, runs, r.TransferRuns)
	if err != nil {
		return nil, nil, usage.Fieldf("TransferRuns", "%w", err)
	}
	return out, f, nil
}

// options are the paper's planning options for src (its checkpoint and
// restart costs when it gives them), overridden by r.
func (r Request) options(src *profile.Source) (AppPlanOptions, error) {
	if err := checkMemory(src.App.PeakMemory(), 1+r.MemMargin); err != nil {
		return AppPlanOptions{}, usage.Wrap(fmt.Errorf("%s: %w", src.Desc, err))
	}
	o := DefaultAppPlanOptions(src.App)
	if src.Checkpoint != nil {
		o.Ckpt = *src.Checkpoint
	}
	if src.Restart != nil {
		o.Restart = *src.Restart
	}
	o = r.planOptions(o)
	return o, usage.Wrap(o.Validate())
}
