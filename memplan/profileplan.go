package memplan

// This file plans time and memory for multi-phase applications (Gainaru,
// Goglin, Honoré and Pallez, "Profiles of upcoming HPC Applications and
// their Impact on Reservation Strategies", IEEE TPDS 2021): it turns a
// profile.App into the MemLaw of the memory-aware dynamic programs and
// builds every strategy of Section 4.3.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/reservation"
)

// Strategy names.
const (
	StrategyAllCkpt      = "all-ckpt"
	StrategyMemAllCkpt   = "mem-all-ckpt"
	StrategyMemAllCkptV2 = "mem-all-ckpt-v2"
	StrategyNeuro        = "neuro"
	StrategyNeuroAvg     = "neuro-avg"
)

// appPlanner builds one strategy from the prepared inputs of PlanApp; it
// returns a nil plan when the strategy is not defined for the application
// (MEM-ALL-CKPT-V2 when the memory-hungry task is the first, NEURO without
// past runs).
type appPlanner func(ctx context.Context, in *appInputs) (*MemPlan, error)

// appStrategies is the registry of the strategies of Section 4.3, in
// display order.
var appStrategies = registry.New("strategy",
	registry.Entry[appPlanner]{Name: StrategyAllCkpt, Help: "ALL-CKPT: checkpoint every reservation at C(peak), request the peak memory", Value: planAllCkpt},
	registry.Entry[appPlanner]{Name: StrategyMemAllCkpt, Help: "MEM-ALL-CKPT: checkpoint cost and memory request follow M_tau(t) (Section 4.2)", Value: planMemAllCkpt},
	registry.Entry[appPlanner]{Name: StrategyMemAllCkptV2, Help: "MEM-ALL-CKPT-V2: a first reservation that stops before the memory-hungry task (Section 4.3.3)", Value: planV2},
	registry.Entry[appPlanner]{Name: StrategyNeuro, Help: "NEURO: one reservation of the longest past run, then extensions (needs past runs)", Value: neuroPlanner(false)},
	registry.Entry[appPlanner]{Name: StrategyNeuroAvg, Help: "NEURO-AVG: one reservation of the mean past run, then extensions (needs past runs)", Value: neuroPlanner(true)},
)

// AppStrategies lists every strategy in display order.
var AppStrategies = appStrategies.Names()

// CheckAppStrategy returns an error naming the known strategies when name
// is not one of AppStrategies.
func CheckAppStrategy(name string) error {
	_, err := appStrategies.Lookup(name)
	return err
}

// AppPlanOptions are the modelling choices of Section 4.2.
type AppPlanOptions struct {
	// N is the number of equally spaced values of the discretised total
	// walltime (the paper's n = 1000).
	N int
	// TailMass cuts the total's upper tail at Q(1 − TailMass) (10⁻⁷).
	TailMass float64
	// Ckpt is C(V); Restart the constant restart cost R (seconds).
	Ckpt    profile.CheckpointCost
	Restart float64
	// CkptTau is the τ of M_τ used for the checkpoint cost (0.1), MemTau
	// the τ of the memory requests.
	CkptTau, MemTau float64
	// PaperCkpt takes the checkpoint memory from the unconditional
	// M_τ(t) of Eq. (2), as the paper does (see profile.Timeline.Needs).
	PaperCkpt bool
	// V2Eps is the probability that MEM-ALL-CKPT-V2's first reservation
	// reaches the memory-hungry task.
	V2Eps float64
	// Steps is the Timeline grid (0: profile.DefaultSteps).
	Steps int
	// MemMargin adds this fraction to every memory request (0: none), a
	// headroom against peaks a little above the model's M_i.
	MemMargin float64
	// MaxLength, when > 0, is the longest reservation allowed (seconds): the
	// DP strategies plan the optimum under it (MemLaw.MaxLength), and a
	// strategy that cannot keep within it is not planned.
	MaxLength float64
}

// DefaultAppPlanOptions are the paper's settings for app: n = 1000,
// ν = 10⁻⁷, CRIU checkpoint costs, R = the CRIU restart time of the peak
// memory (constant, as the paper assumes), τ = 0.1 for checkpoints and
// memory requests, and ε = 0.02 for MEM-ALL-CKPT-V2.
func DefaultAppPlanOptions(app *profile.App) AppPlanOptions {
	return AppPlanOptions{N: 1000, TailMass: 1e-7, Ckpt: profile.CRIU, Restart: profile.CRIURestart.Cost(app.PeakMemory()),
		CkptTau: 0.1, MemTau: 0.1, V2Eps: 0.02}
}

// AppPlans holds the strategies planned for one application model.
type AppPlans struct {
	Total distribution.Distribution
	Law   MemLaw
	Plans map[string]*MemPlan
}

// PlanApp plans ALL-CKPT (constant checkpoint cost C(peak) and the peak
// memory throughout), MEM-ALL-CKPT and MEM-ALL-CKPT-V2 for app, and NEURO
// and NEURO-AVG when history (past total walltimes) is given. It refuses
// an App profile.App.Validate refuses, options out of range
// (AppPlanOptions.Validate), a model CheckModel refuses, and memory
// requests above MaxMemory, so that every plan it returns is finite. It
// stops with ctx's error when ctx ends.
func PlanApp(ctx context.Context, app *profile.App, history []float64, o AppPlanOptions) (*AppPlans, error) {
	if err := app.Validate(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	total, err := app.Total()
	if err != nil {
		return nil, err
	}
	if err := CheckModel(app, total); err != nil {
		return nil, err
	}
	if err := checkTotal(total); err != nil {
		return nil, err
	}
	if total, err = cutBelowZero(total, o.TailMass); err != nil {
		return nil, err
	}
	x, _, err := reservation.Law(total, o.TailMass)
	if err != nil {
		return nil, err
	}
	disc, ok := x.(*distribution.Discrete)
	if !ok {
		if disc, err = distribution.Discretize(x, o.N); err != nil {
			return nil, err
		}
	}
	tl, err := profile.NewTimeline(ctx, app, o.Steps)
	if err != nil {
		return nil, err
	}
	ck, mem, mem0, err := tl.Needs(ctx, disc.Values, o.CkptTau, o.MemTau, o.PaperCkpt, o.Ckpt)
	if err != nil {
		return nil, err
	}
	grow := 1 + o.MemMargin
	peak := app.PeakMemory()
	if err := checkMemory(peak, grow); err != nil {
		return nil, err
	}
	for i := range mem {
		mem[i] *= grow
	}
	mem0 *= grow
	law := MemLaw{Values: disc.Values, Probs: disc.Probs, Ckpt: ck, Mem: mem, Mem0: mem0, Restart: o.Restart, MaxLength: o.MaxLength}
	in := &appInputs{app: app, tl: tl, law: law, o: o, history: history, peak: peak, request: peak * grow}
	out := &AppPlans{Total: total, Law: law, Plans: map[string]*MemPlan{}}
	for _, e := range appStrategies.Entries() {
		p, err := e.Value(ctx, in)
		if errors.Is(err, reservation.ErrNoPlanWithin) {
			continue // not within the longest reservation: not planned
		}
		if err != nil {
			return nil, err
		}
		if p != nil {
			out.Plans[e.Name] = p
		}
	}
	return out, nil
}

// appInputs are what PlanApp prepares for every strategy: the model, its
// Timeline, the memory-aware law (requests grown by the margin), the
// options, the past walltimes, the peak memory and its request.
type appInputs struct {
	app           *profile.App
	tl            *profile.Timeline
	law           MemLaw
	o             AppPlanOptions
	history       []float64
	peak, request float64
}

// planAllCkpt is ALL-CKPT: the DP with a constant checkpoint cost C(peak),
// then the peak memory (with margin) requested throughout.
func planAllCkpt(ctx context.Context, in *appInputs) (*MemPlan, error) {
	constant := in.law
	constant.Ckpt = make([]float64, len(in.law.Ckpt))
	for i := range constant.Ckpt {
		constant.Ckpt[i] = in.o.Ckpt.Cost(in.peak)
	}
	p, err := MemAllCkpt(ctx, constant)
	if err != nil {
		return nil, err
	}
	p = ConstantMemory(p, in.request)
	p.Name = StrategyAllCkpt
	return p, nil
}

// planMemAllCkpt is MEM-ALL-CKPT on the memory-aware law.
func planMemAllCkpt(ctx context.Context, in *appInputs) (*MemPlan, error) {
	return MemAllCkpt(ctx, in.law)
}

// neuroPlanner is NEURO (avg false) or NEURO-AVG, priced under the law;
// nil without past walltimes.
func neuroPlanner(avg bool) appPlanner {
	return func(_ context.Context, in *appInputs) (*MemPlan, error) {
		if len(in.history) == 0 {
			return nil, nil
		}
		np, err := Neuro(in.history, avg, in.o.Ckpt.Cost(in.peak), in.o.Restart, in.request)
		if err != nil {
			return nil, err
		}
		for _, r := range np.Reservations {
			if in.o.MaxLength > 0 && r.Length > in.o.MaxLength {
				return nil, nil // it needs a longer reservation
			}
		}
		if np.ExpectedTime, np.ExpectedWeightedMemory, err = ExpectedMetrics(np, in.law.Values, in.law.Probs); err != nil {
			return nil, err
		}
		return np, nil
	}
}

// planV2 is MEM-ALL-CKPT-V2 for app (Section 4.3.3), nil when its
// memory-hungry task is its first or the safe milestone lies beyond the
// support.
func planV2(ctx context.Context, in *appInputs) (*MemPlan, error) {
	app, tl, law, o := in.app, in.tl, in.law, in.o
	h := app.HungryTask()
	if h <= 1 {
		return nil, nil
	}
	grow := 1 + o.MemMargin
	t0, err := tl.SafeBefore(h, o.V2Eps)
	if err != nil {
		return nil, err
	}
	// The first milestone t0 becomes a support point of zero mass (the
	// discretised total usually starts far above it).
	at := sort.SearchFloat64s(law.Values, t0)
	if at < len(law.Values) && law.Values[at] == t0 {
		t0 = math.Nextafter(t0, 0)
	}
	ck0, mem0v, _, err := tl.Needs(ctx, []float64{t0}, o.CkptTau, o.MemTau, o.PaperCkpt, o.Ckpt)
	if err != nil {
		return nil, err
	}
	mem0v[0] *= grow
	v2 := MemLaw{Mem0: law.Mem0, Restart: law.Restart, MaxLength: law.MaxLength,
		Values: slices.Insert(slices.Clone(law.Values), at, t0),
		Probs:  slices.Insert(slices.Clone(law.Probs), at, 0),
		Ckpt:   slices.Insert(slices.Clone(law.Ckpt), at, ck0[0]),
		Mem:    slices.Insert(slices.Clone(law.Mem), at, mem0v[0])}
	if at >= len(v2.Values)-1 {
		return nil, nil
	}
	before := 0.0
	for _, t := range app.Tasks[:h-1] {
		before = math.Max(before, t.Mem)
	}
	return MemAllCkptV2(ctx, v2, at, h, before*grow)
}

// MaxChainNegativeMass is the largest probability below 0 that PlanApp
// cuts from an application's total walltime law.
const MaxChainNegativeMass = 0.01

// cutBelowZero conditions the total walltime law of a chain on being >= 0.
// The total is a sum of phase durations, each >= 0, so its mass below 0
// is an artefact of the phase laws' families (a sum of Normals fitted to a
// few runs: k = 5 MaCRUISE runs give 7.5e-6); reservation.Law refuses such
// mass above 1e-6 for a law a user typed, but for a chain the right model
// is the law conditioned on X >= 0. Beyond MaxChainNegativeMass the phase
// laws are too far from the data to plan with, and the total is refused.
// The upper tail is cut at Q(1 − tailMass) as reservation.Law cuts it.
func cutBelowZero(total distribution.Distribution, tailMass float64) (distribution.Distribution, error) {
	lo, hi := total.Support()
	if lo >= 0 {
		return total, nil
	}
	neg := total.CDF(0)
	switch {
	case neg <= reservation.MaxNegativeMass:
		return total, nil
	case neg > MaxChainNegativeMass:
		return nil, fmt.Errorf("total walltime %v puts probability %.3g below 0 (more than %g): the phase laws do not describe non-negative durations", total, neg, MaxChainNegativeMass)
	}
	if math.IsInf(hi, 1) {
		if tailMass == 0 {
			tailMass = distribution.DefaultTailMass
		}
		hi = total.Quantile(1 - tailMass)
	}
	return distribution.Truncate(total, 0, hi)
}
