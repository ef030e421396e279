package reservation

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SlurmGranularity is the granularity of Slurm's --time, which counts
// whole minutes: a plan for Slurm (Costs.Granularity) requests multiples
// of it.
const SlurmGranularity = 60

// DefaultSlurmMargin is the margin a plan for Slurm reserves after each
// checkpoint by default (Costs.Margin): ckpt run's default --margin, 15 s,
// which it subtracts with C from the end to signal the app, plus 3 s for
// the work the app cannot do in the reservation: Slurm counts the end from
// a start time in whole seconds, and on the Slurm 22.05 of issue 22 the job
// script started 1.19–1.25 s after it (3 jobs measured), before the runner
// and the app start; the signal time is truncated to the second (up to
// 1 s early when C is fractional) and arrives 0.04–0.10 s late (which only
// adds work).
const DefaultSlurmMargin = 18

// Request is what a Go program (or `ckpt reserve`) asks of the package: a
// plan of reservations for a job of random walltime, or the price of a plan
// it gives. Durations are in seconds. Validate checks it; Run answers it.
// DefaultRequest is the paper's setting, a good start.
type Request struct {
	// Walltime is the source of the walltime law; nil plans for
	// DefaultLaw.
	Walltime WalltimeSource
	// Costs is the cost model: Alpha per second reserved (> 0), Beta per
	// second used (>= 0), Gamma per reservation (>= 0), the checkpoint
	// cost C and the restart cost R in seconds (in [0, MaxWalltime]).
	Costs Costs
	// Algorithm is one of Algorithms; "" means AlgoDynProgCount. It does
	// not apply with Evaluate.
	Algorithm string
	// Evaluate, when not nil, is the plan to price instead of optimising:
	// its milestones are work done, in seconds.
	Evaluate Strategy
	// Epsilon is Algorithm 1's guarantee ε (> 0, finite): the plan costs at
	// most (1+ε) times the optimum for ε <= 3 ((1+ε/3)² beyond). It sizes
	// the grid when N is 0.
	Epsilon float64
	// N is the number of grid points, in [0, MaxGridPoints]; 0 derives it
	// from Epsilon. A discrete law (an empirical one) is planned exactly
	// on its values, so N is refused for it.
	N int
	// MaxN caps the grid derived from Epsilon, in [1, MaxGridPoints].
	MaxN int
	// MaxTau is the largest number of chunks the periodic strategies try,
	// in [1, MaxTauLimit] (the search takes O(MaxTau²) time).
	MaxTau int
	// TailMass ν, in (0, 1), is the probability cut off above Q(1 − ν) for
	// an unbounded law.
	TailMass float64
	// MaxRequest, when > 0, is the longest reservation allowed, in seconds
	// (a Slurm partition's MaxTime), at most MaxWalltime: the plan is the
	// optimum under that bound (Options.MaxLength, DynProgCountLimited).
	// 0 means no bound.
	MaxRequest float64
	// NoBaselines skips pricing the other strategies beside the plan.
	NoBaselines bool
	// Progress, when not nil, is told of the dynamic programs' rows (see
	// Options.Progress); ProgressBars draws them.
	Progress func(step string, done, total int)
}

// ProgressBars is a Progress that draws the planners' progress bars on w
// when it is a terminal, for grids of 20000 rows or more (solves of a few
// seconds), as `ckpt reserve` does.
func ProgressBars(w io.Writer) func(step string, done, total int) { return runner.StepBars(w, 20000) }

// DefaultRequest is the paper's neuroscience example (Section 4.4): the
// law DefaultLaw, reservation-only costs (α = 1, β = γ = 0) with
// C = R = 600 s, ε = 1, and the default caps.
func DefaultRequest() Request {
	return Request{
		Costs:   Costs{Alpha: 1, C: 600, R: 600},
		Epsilon: 1, MaxN: DefaultMaxN, MaxTau: DefaultMaxTau, TailMass: distribution.DefaultTailMass,
	}
}

// Validate checks every field against its range without loading the law;
// the error is a usage error (usage.Error) whose Field is the Go name of
// the bad field ("Epsilon", "Costs.C", …).
func (r Request) Validate() error {
	if r.Walltime != nil {
		if err := r.Walltime.Validate(); err != nil {
			return err
		}
	}
	if err := r.Costs.validateFields(); err != nil {
		return err
	}
	if err := r.validateLimits(); err != nil {
		return err
	}
	if r.Algorithm != "" {
		if err := CheckAlgorithm(r.Algorithm); err != nil {
			return usage.Fieldf("Algorithm", "must be one of %s, got %q", strings.Join(Algorithms, ", "), r.Algorithm)
		}
		if r.Evaluate != nil {
			return usage.Fieldf("Algorithm", "%s does not apply with Evaluate, which prices the plan given", r.Algorithm)
		}
	}
	if r.Evaluate != nil {
		if err := r.Evaluate.Validate(); err != nil {
			return usage.Fieldf("Evaluate", "%v", err)
		}
	}
	return nil
}

// validateLimits checks the grid and search limits.
func (r Request) validateLimits() error {
	switch {
	case !(r.Epsilon > 0) || math.IsInf(r.Epsilon, 0):
		return usage.Fieldf("Epsilon", "must be > 0, got %v", r.Epsilon)
	case r.N < 0 || r.N > MaxGridPoints:
		return usage.Fieldf("N", "must be in [1, %d] (the planner takes O(n²) time; 0 derives it from ε), got %d", MaxGridPoints, r.N)
	case r.MaxN < 1 || r.MaxN > MaxGridPoints:
		return usage.Fieldf("MaxN", "must be in [1, %d], got %d", MaxGridPoints, r.MaxN)
	case r.MaxTau < 1 || r.MaxTau > MaxTauLimit:
		return usage.Fieldf("MaxTau", "must be in [1, %d] (the periodic search takes O(tau²) time), got %d", MaxTauLimit, r.MaxTau)
	case !(r.TailMass > 0 && r.TailMass < 1):
		return usage.Fieldf("TailMass", "must be in (0, 1), got %v", r.TailMass)
	case !(r.MaxRequest >= 0 && r.MaxRequest <= MaxWalltime):
		return usage.Fieldf("MaxRequest", "must be in [0, %.0e] s (0: no bound), got %v", MaxWalltime, r.MaxRequest)
	case r.MaxRequest > 0 && r.Costs.Granularity > r.MaxRequest:
		return usage.Fieldf("MaxRequest", "%s is shorter than one step of the granularity, %s", units.FormatSeconds(r.MaxRequest), units.FormatSeconds(r.Costs.Granularity))
	}
	return nil
}

// validateFields is Validate with errors naming the field ("Costs.C"),
// and C and R bounded by MaxWalltime.
func (c Costs) validateFields() error {
	for _, f := range []struct {
		name     string
		v        float64
		strict   bool
		duration bool
	}{{"Costs.Alpha", c.Alpha, true, false}, {"Costs.Beta", c.Beta, false, false}, {"Costs.Gamma", c.Gamma, false, false},
		{"Costs.C", c.C, false, true}, {"Costs.R", c.R, false, true},
		{"Costs.Margin", c.Margin, false, true}, {"Costs.Granularity", c.Granularity, false, true}} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			return usage.Fieldf(f.name, "must be finite, got %v", f.v)
		case f.strict && f.v <= 0:
			return usage.Fieldf(f.name, "must be > 0, got %v", f.v)
		case f.v < 0:
			return usage.Fieldf(f.name, "must be >= 0, got %v", f.v)
		case f.duration && f.v > MaxWalltime:
			return usage.Fieldf(f.name, "%.3g s is beyond the limit of %.0e s on durations", f.v, MaxWalltime)
		}
	}
	return nil
}

// Options are the planning options of the request (without the law's
// history, which LoadWalltime supplies).
func (r Request) Options() Options {
	return Options{
		Costs: r.Costs, Algorithm: r.Algorithm, Epsilon: r.Epsilon, N: r.N, MaxN: r.MaxN,
		TailMass: r.TailMass, MaxTau: r.MaxTau, Baselines: !r.NoBaselines, LowerBound: true, Progress: r.Progress, MaxLength: r.MaxRequest,
	}
}

// source is the request's walltime source, DefaultLaw when none.
func (r Request) source() WalltimeSource {
	if r.Walltime == nil {
		return LawSpec(DefaultLaw)
	}
	return r.Walltime
}

// Load validates the request and loads its walltime law; it refuses N for
// a discrete law, which is planned exactly.
func (r Request) Load(ctx context.Context) (Walltime, error) {
	if err := r.Validate(); err != nil {
		return Walltime{}, err
	}
	w, err := r.source().LoadWalltime(ctx)
	if err != nil {
		return Walltime{}, walltimeError(err)
	}
	if disc, ok := w.Law.(*distribution.Discrete); ok && r.N > 0 {
		return Walltime{}, usage.Fieldf("N", "%d grid points do not apply to %s: a discrete law is planned exactly on its %d values", r.N, w.Source.Spec, len(disc.Values))
	}
	return w, nil
}

// walltimeError marks an error of the walltime source as a usage error of
// the field Walltime (a usage error naming another field stays as it is).
func walltimeError(err error) error {
	var ue *usage.Error
	if errors.As(err, &ue) && ue.Field != "" {
		return err
	}
	return &usage.Error{Field: "Walltime", Err: err}
}

// Run answers the request: it validates it, loads the law, plans (or
// prices Evaluate) under ctx, and returns the report. Errors caused by the
// request are usage errors naming the field; a cancelled ctx returns
// ctx.Err().
func Run(ctx context.Context, r Request) (*Report, error) {
	w, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	o := r.Options()
	o.History = w.History
	var res *Result
	if r.Evaluate != nil {
		res, err = EvaluateContext(ctx, w.Law, r.Evaluate, o)
	} else {
		res, err = PlanContext(ctx, w.Law, o)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usage.Wrap(err)
	}
	rep := NewReport(res, w, o)
	rep.Warnings = append(append([]string(nil), w.Warnings...), Warnings(res, w.Law, o)...)
	return rep, nil
}
