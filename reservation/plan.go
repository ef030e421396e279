package reservation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/units"
)

// Algorithm names accepted by Plan (and by `ckpt reserve --strategy`).
const (
	AlgoDynProgCount = "dyn-prog-count"
	AlgoAllCkpt      = "all-ckpt"
	AlgoNoCkpt       = "no-ckpt"
	AlgoAllCkptPer   = "all-ckpt-per"
	AlgoNoCkptPer    = "no-ckpt-per"
)

// planner computes one algorithm's plan for the prepared law x (disc is x
// when it is discrete, else nil) and its expected cost; tau is the number
// of chunks of a periodic plan. With wantLB it also sets res.LowerBound.
type planner func(ctx context.Context, x distribution.Distribution, disc *distribution.Discrete, o Options, res *Result, wantLB bool) (s Strategy, cost float64, tau int, err error)

// algorithms is the registry of planning algorithms, in display order.
var algorithms = registry.New("strategy",
	registry.Entry[planner]{Name: AlgoDynProgCount, Help: "DYN-PROG-COUNT: checkpoint where it pays (Theorem 2, Algorithm 1)", Value: dpPlanner(Mixed)},
	registry.Entry[planner]{Name: AlgoAllCkpt, Help: "ALL-CKPT: the best plan that checkpoints every reservation", Value: dpPlanner(AllCkpt)},
	registry.Entry[planner]{Name: AlgoNoCkpt, Help: "NO-CKPT: the best plan without checkpoints", Value: dpPlanner(NoCkpt)},
	registry.Entry[planner]{Name: AlgoAllCkptPer, Help: "ALL-CKPT-PER: the best of tau equal chunks, all checkpointed (Algorithm 2)", Value: periodicPlanner(true)},
	registry.Entry[planner]{Name: AlgoNoCkptPer, Help: "NO-CKPT-PER: the best of tau equal chunks, no checkpoint (Algorithm 2)", Value: periodicPlanner(false)},
)

// Algorithms lists the planning algorithms in display order.
var Algorithms = algorithms.Names()

// CheckAlgorithm returns an error naming the known algorithms when name is
// not one of them.
func CheckAlgorithm(name string) error {
	_, err := algorithms.Lookup(name)
	return err
}

// dpPlanner plans with the dynamic program of the class: exactly on a
// discrete law, by Algorithm 1 on res.N grid points otherwise.
func dpPlanner(class Class) planner {
	return func(ctx context.Context, x distribution.Distribution, disc *distribution.Discrete, o Options, res *Result, wantLB bool) (Strategy, float64, int, error) {
		if o.limited() {
			return limitedPlan(ctx, x, disc, o, class, res)
		}
		if disc != nil {
			s, cost, err := dynProgCount(ctx, disc.Values, disc.Probs, o.Costs, class, o.progress(class.String()), 0)
			if err == nil && wantLB {
				res.LowerBound = cost // exact optimum for a discrete law
			}
			return s, cost, 0, err
		}
		ap, err := approximate(ctx, x, o.Costs, class, res.N, wantLB, o.Progress)
		if err != nil {
			return nil, 0, 0, err
		}
		if wantLB {
			res.LowerBound = ap.LowerBound
		}
		return ap.Strategy, ap.Cost, 0, nil
	}
}

// periodicPlanner is Algorithm 2 with τ = 1 … MaxTau.
func periodicPlanner(ckpt bool) planner {
	return func(ctx context.Context, x distribution.Distribution, _ *distribution.Discrete, o Options, _ *Result, _ bool) (Strategy, float64, int, error) {
		maxTau := o.MaxTau
		if maxTau == 0 {
			maxTau = DefaultMaxTau
		}
		tau, s, cost, err := bestPeriodic(ctx, x, o.Costs, ckpt, maxTau, o.MaxLength)
		return s, cost, tau, err
	}
}

// Baseline names reported beside a plan.
const (
	BaselineMax       = "max-walltime"
	BaselineNeuro     = "neuro-last5-plus50"
	BaselineMaxOfLast = "max-of-last5-x1.5"
)

// Options configures Plan and Evaluate.
type Options struct {
	Costs Costs
	// Algorithm is one of Algorithms; empty means dyn-prog-count.
	Algorithm string
	// Epsilon is Algorithm 1's ε, used to size the grid when N is 0.
	Epsilon float64
	// N, when > 0, is the number of grid points, overriding Epsilon.
	N int
	// MaxN caps the grid derived from Epsilon (0 means DefaultMaxN). The
	// result's Epsilon always reports the guarantee the grid achieves.
	MaxN int
	// MinN is the smallest grid used when it is derived from Epsilon (0
	// means DefaultMinN, a negative value means no floor): a finer grid
	// than Algorithm 1 asks for only tightens the guarantee, at little
	// cost below DefaultMinN points.
	MinN int
	// TailMass ν cuts an unbounded support at Q(1 − ν) (0 means
	// distribution.DefaultTailMass).
	TailMass float64
	// MaxTau is the largest number of chunks tried by the periodic
	// strategies (0 means DefaultMaxTau, 1000 as in the paper; at most
	// MaxTauLimit).
	MaxTau int
	// History holds past walltimes, oldest first, for the practitioners'
	// baselines ("last 5 runs"); without it they use the law's moments.
	History []float64
	// Baselines asks for every other algorithm and practitioners' policy to
	// be priced beside the plan.
	Baselines bool
	// LowerBound asks for the certified lower bound on the optimum.
	LowerBound bool
	// MaxLength, when > 0, is the longest reservation allowed, in seconds
	// (a partition's MaxTime): the DP classes plan the optimum under it
	// (DynProgCountLimited), the periodic search keeps the τ within it, and
	// a strategy priced beside the plan that needs a longer reservation
	// costs +Inf.
	MaxLength float64
	// Progress, when not nil, is called by the dynamic programs as rows
	// complete: step names the solve, done of total rows are finished. It
	// is called from the planning goroutines (the plan's and the lower
	// bound's solves may run side by side), one call at a time, at most
	// once per row; a lower bound read off the plan's solve reports all its
	// rows at once.
	Progress func(step string, done, total int)
}

// serialised returns progress guarded by a mutex, so that the solves that
// run side by side call it one at a time (nil stays nil).
func serialised(progress func(step string, done, total int)) func(step string, done, total int) {
	if progress == nil {
		return nil
	}
	var mu sync.Mutex
	return func(step string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		progress(step, done, total)
	}
}

// progress returns the row callback of one solve, or nil.
func (o Options) progress(step string) func(done, total int) {
	if o.Progress == nil {
		return nil
	}
	return func(done, total int) { o.Progress(step, done, total) }
}

// DefaultMaxTau is the default MaxTau, the paper's τ ≤ 1000.
const DefaultMaxTau = 1000

// MaxTauLimit is the largest MaxTau accepted: the periodic search costs
// O(MaxTau²) survival evaluations, a hundred times the paper's τ ≤ 1000.
const MaxTauLimit = 10000

// MaxDistinctValues is the largest number of distinct values of a discrete
// (or empirical) law Plan accepts: the exact dynamic program takes O(n²)
// time, like a grid of MaxGridPoints points.
const MaxDistinctValues = MaxGridPoints

// DefaultMinN is the default floor of the grid derived from Epsilon.
const DefaultMinN = 2000

// MaxGridPoints is the largest grid Plan uses: a larger Options.N is an
// error, a larger Options.MaxN is lowered to it. The solver needs O(n)
// memory and O(n²) time, and Plan solves the mixed class once (twice when
// β > 0: the plan and its lower bound) besides the O(n) classes; the bound
// keeps a plan
// with baselines within tens of seconds (measured in BENCHMARKS.md).
const MaxGridPoints = 50000

// DefaultMaxN bounds the grid Algorithm 1 may ask for (O(n²) time).
const DefaultMaxN = 20000

// PlannedReservation is a reservation of the plan with the probability that
// it is needed at all, P(X > t_{k−1}).
type PlannedReservation struct {
	Reservation
	ProbNeeded float64 `json:"prob_needed"`
}

// Priced is a named strategy with its expected cost.
type Priced struct {
	Name         string  `json:"name"`
	ExpectedCost float64 `json:"expected_cost"`
	Reservations int     `json:"reservations"`
	Tau          int     `json:"tau,omitempty"`
}

// Result is a plan, its exact expected cost, and the references it is
// compared with.
type Result struct {
	Algorithm    string               `json:"algorithm"`
	Strategy     Strategy             `json:"-"`
	Reservations []PlannedReservation `json:"reservations"`
	ExpectedCost float64              `json:"expected_cost"`
	// Omniscient is (α+β)E[X] + γ, the cost with perfect foresight.
	Omniscient float64 `json:"omniscient_cost"`
	// LowerBound is a certified lower bound on the optimum of the chosen
	// class (NaN if not computed or not applicable).
	LowerBound float64  `json:"lower_bound,omitempty"`
	Baselines  []Priced `json:"baselines,omitempty"`
	// Lo and Hi bound the support planned for; TailMass is the probability
	// above Hi that truncation discarded (0 for bounded laws).
	Lo, Hi   float64 `json:"-"`
	TailMass float64 `json:"tail_mass"`
	// N is the grid size for continuous laws (0 for discrete ones).
	// Epsilon is the guarantee the N points achieve (see Guarantee: the
	// smallest ε with ⌈c0(ε)/ε⌉ ≤ N, +Inf if none), at most
	// Options.Epsilon unless MaxN capped the grid, and C0 is c0 at that ε.
	// Capped says MaxN cut the grid below the n = ⌈c0/ε⌉ of Options.Epsilon
	// (cutting only the DefaultMinN floor does not count). The
	// guarantee is for the DP classes (dyn-prog-count and, within their
	// class, all-ckpt and no-ckpt); the periodic strategies have none.
	N       int     `json:"n,omitempty"`
	C0      float64 `json:"c0,omitempty"`
	Epsilon float64 `json:"epsilon,omitempty"`
	Capped  bool    `json:"capped,omitempty"`
	Tau     int     `json:"tau,omitempty"`
	// Limited says the plan was made under Options.MaxLength or a limited
	// cost model (Costs.Limited), where Theorem 3's guarantee is not
	// proven; MaxLength is the bound (0: none).
	Limited   bool    `json:"-"`
	MaxLength float64 `json:"-"`
}

// Law prepares a distribution for planning: bounded laws on [0, ∞) are
// used as they are; an unbounded upper tail is cut at Q(1 − ν) and a lower
// tail reaching below 0 (a Normal) is cut at 0, with renormalisation. cut is
// the probability removed. A law that puts more than MaxNegativeMass on
// negative walltimes is rejected: cutting it would plan for another law.
func Law(d distribution.Distribution, tailMass float64) (x distribution.Distribution, cut float64, err error) {
	if tailMass == 0 {
		tailMass = distribution.DefaultTailMass
	}
	if !(tailMass > 0 && tailMass < 1) {
		return nil, 0, fmt.Errorf("tail mass must be in (0, 1), got %v", tailMass)
	}
	lo, hi := d.Support()
	if lo >= 0 && !math.IsInf(hi, 1) {
		if err := checkTop(d, hi, 0); err != nil {
			return nil, 0, err
		}
		return d, 0, nil
	}
	if lo < 0 {
		if neg := d.CDF(0); neg > MaxNegativeMass {
			return nil, 0, fmt.Errorf("%v puts probability %.3g on negative walltimes; use a law on [0, ∞) such as truncnormal", d, neg)
		}
	}
	x, err = distribution.Bound(d, tailMass)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot cut %v at its quantile Q(1 - %g): %w", d, tailMass, err)
	}
	xlo, xhi := x.Support()
	if err := checkTop(d, xhi, tailMass); err != nil {
		return nil, 0, err
	}
	cut = 1 - (d.CDF(xhi) - d.CDF(xlo))
	if math.IsInf(hi, 1) {
		cut = d.Survival(xhi) + d.CDF(xlo)
	}
	return x, cut, nil
}

// MaxWalltime is the largest walltime, in seconds, a law may reach once
// truncated: 10¹⁰ s, about 317 years. Beyond it durations leave what
// schedulers and time.Duration (±292 years) represent, and a law that
// reaches it is almost certainly given in the wrong unit (a rate per hour
// read as per second) or so heavy-tailed that the cut at Q(1 − ν) decides
// the plan; Law rejects it.
const MaxWalltime = 1e10

// checkTop rejects a law whose planned support ends above MaxWalltime, or
// at 0 (every walltime 0: there is nothing to plan).
func checkTop(d distribution.Distribution, hi, tailMass float64) error {
	if hi <= 0 {
		return fmt.Errorf("%v puts all its probability on a walltime of 0", d)
	}
	if hi <= MaxWalltime {
		return nil
	}
	if tailMass > 0 {
		return fmt.Errorf("%v reaches %.3g s at its quantile Q(1 - %g), beyond the limit of %.0e s (%.0f years) on walltimes; check the units (plain numbers are seconds, rates are per second) or cut more of the tail (--tail-mass)",
			d, hi, tailMass, MaxWalltime, MaxWalltime/(365*86400))
	}
	return fmt.Errorf("%v reaches %.3g s, beyond the limit of %.0e s (%.0f years) on walltimes; check the units (plain numbers are seconds, rates are per second)",
		d, hi, MaxWalltime, MaxWalltime/(365*86400))
}

// MaxNegativeMass is the largest probability of a negative walltime Law
// cuts off silently.
const MaxNegativeMass = 1e-6

// PlanContext computes the reservation plan for law d with the chosen
// algorithm, prices it exactly (Theorem 1 on d, truncated if unbounded)
// and, on request, prices the other strategies beside it. The dynamic
// programs check ctx once per row and the periodic search once per τ, so a
// cancelled ctx returns ctx.Err() promptly.
//
// The costs are normalised first (see Costs.Normalize): the plan is made
// with α = 1 and every cost is scaled back by α, then the plan's cost is
// checked against Theorem 1 evaluated with the costs as given; a cost model
// whose evaluation disagrees (α so small or large that α·W leaves float64's
// range) is refused rather than certified.
func PlanContext(ctx context.Context, d distribution.Distribution, o Options) (*Result, error) {
	if err := o.Costs.Validate(); err != nil {
		return nil, err
	}
	norm, scale, err := o.Costs.Normalize()
	if err != nil {
		return nil, err
	}
	orig := o.Costs
	o.Costs = norm
	res, err := planNormalized(ctx, d, o)
	if err != nil {
		return nil, err
	}
	return res, res.denormalize(d, o.TailMass, orig, scale)
}

// planNormalized is PlanContext on normalised costs.
func planNormalized(ctx context.Context, d distribution.Distribution, o Options) (*Result, error) {
	o.Progress = serialised(o.Progress)
	if o.Algorithm == "" {
		o.Algorithm = AlgoDynProgCount
	}
	if err := CheckAlgorithm(o.Algorithm); err != nil {
		return nil, err
	}
	if o.MaxTau < 0 || o.MaxTau > MaxTauLimit {
		return nil, fmt.Errorf("the largest number of periodic chunks must be in [1, %d] (the search takes O(tau²) time), got %d", MaxTauLimit, o.MaxTau)
	}
	x, disc, res, err := prepare(d, o)
	if err != nil {
		return nil, err
	}
	all := map[string]Priced{}
	run := func(name string) (Strategy, error) {
		p, err := algorithms.Lookup(name)
		if err != nil {
			return nil, err
		}
		s, cost, tau, err := p(ctx, x, disc, o, res, o.LowerBound && name == o.Algorithm)
		if errors.Is(err, ErrNoPlanWithin) && name != o.Algorithm {
			s, cost, err = nil, math.Inf(1), nil // priced beside the plan: it cannot keep within the bound
		}
		if err != nil {
			return nil, err
		}
		if s == nil && name == o.Algorithm {
			return nil, fmt.Errorf("%w: no %s plan keeps every reservation within %s", ErrNoPlanWithin, name, units.FormatSeconds(o.MaxLength))
		}
		all[name] = Priced{Name: name, ExpectedCost: cost, Reservations: len(s), Tau: tau}
		return s, nil
	}
	s, err := run(o.Algorithm)
	if err != nil {
		return nil, err
	}
	res.Tau = all[o.Algorithm].Tau
	res.fill(s, x, o.Costs, all[o.Algorithm].ExpectedCost)
	if err := res.checkFinite(o.Costs); err != nil {
		return nil, err
	}
	// The omniscient cost bounds every strategy's from below too, and beats
	// the grid's bound when the grid is coarse (a capped heavy tail).
	if !math.IsNaN(res.LowerBound) && res.LowerBound < res.Omniscient {
		res.LowerBound = math.Min(res.Omniscient, res.ExpectedCost)
	}
	if o.Baselines {
		for _, name := range Algorithms {
			if name != o.Algorithm {
				if _, err := run(name); err != nil {
					return nil, err
				}
			}
			res.Baselines = append(res.Baselines, all[name])
		}
		res.Baselines = append(res.Baselines, practitioners(x, o)...)
	}
	return res, nil
}

// prepare truncates d (Law), starts the result and sizes the grid of a
// continuous law; disc is the truncated law when it is discrete, else nil.
func prepare(d distribution.Distribution, o Options) (distribution.Distribution, *distribution.Discrete, *Result, error) {
	x, cut, err := Law(d, o.TailMass)
	if err != nil {
		return nil, nil, nil, err
	}
	res := &Result{Algorithm: o.Algorithm, TailMass: cut, LowerBound: math.NaN(), Limited: o.limited(), MaxLength: o.MaxLength}
	res.Lo, res.Hi = x.Support()
	res.Omniscient = Omniscient(x, o.Costs)
	if err := res.checkFinite(o.Costs); err != nil { // before any work
		return nil, nil, nil, err
	}
	disc, isDiscrete := x.(*distribution.Discrete)
	if isDiscrete && len(disc.Values) > MaxDistinctValues {
		return nil, nil, nil, fmt.Errorf("the law has %d distinct values, more than the %d the exact O(n²) planner accepts; fit a family to the runs, or round them (to the minute, say) so that fewer values remain", len(disc.Values), MaxDistinctValues)
	}
	if !isDiscrete {
		disc = nil
		if err := res.sizeGrid(x, o); err != nil {
			return nil, nil, nil, err
		}
	}
	return x, disc, res, nil
}

// EvaluateContext prices a given strategy on d (truncated like Plan does)
// and, on request, the baselines beside it, with the costs normalised as
// PlanContext does.
func EvaluateContext(ctx context.Context, d distribution.Distribution, s Strategy, o Options) (*Result, error) {
	if err := o.Costs.Validate(); err != nil {
		return nil, err
	}
	norm, scale, err := o.Costs.Normalize()
	if err != nil {
		return nil, err
	}
	orig := o.Costs
	o.Costs = norm
	res, err := evaluateNormalized(ctx, d, s, o)
	if err != nil {
		return nil, err
	}
	return res, res.denormalize(d, o.TailMass, orig, scale)
}

func evaluateNormalized(ctx context.Context, d distribution.Distribution, s Strategy, o Options) (*Result, error) {
	x, cut, err := Law(d, o.TailMass)
	if err != nil {
		return nil, err
	}
	cost, err := expectedCostOn(s, x, o.Costs)
	if errors.Is(err, ErrNotCovered) {
		_, hi := x.Support()
		return nil, fmt.Errorf("%w; the law planned for reaches %.6g s, so the last milestone must be at least that", err, hi)
	}
	if err != nil {
		return nil, err
	}
	if k, w := exceeds(s, o.Costs, o.MaxLength); k > 0 {
		return nil, fmt.Errorf("%w: reservation %d of the plan given needs %s, beyond the longest allowed, %s", ErrNoPlanWithin, k, units.FormatSeconds(w), units.FormatSeconds(o.MaxLength))
	}
	res := &Result{Algorithm: "given", TailMass: cut, LowerBound: math.NaN(), Limited: o.limited(), MaxLength: o.MaxLength}
	res.Lo, res.Hi = x.Support()
	res.fill(s, x, o.Costs, cost)
	if err := res.checkFinite(o.Costs); err != nil {
		return nil, err
	}
	if o.Baselines || o.LowerBound {
		o.Algorithm = AlgoDynProgCount
		ref, err := planNormalized(ctx, d, o)
		if err != nil {
			return nil, err
		}
		res.N, res.C0, res.Epsilon, res.Capped = ref.N, ref.C0, ref.Epsilon, ref.Capped
		res.LowerBound = ref.LowerBound
		if o.Baselines {
			res.Baselines = ref.Baselines
		}
	}
	return res, nil
}

// denormalize scales the costs of a result planned with normalised costs
// back by scale (α) and checks the plan's cost against Theorem 1 evaluated
// with the costs c as given. With scale 1 nothing changes.
func (r *Result) denormalize(d distribution.Distribution, tailMass float64, c Costs, scale float64) error {
	if scale == 1 {
		return nil
	}
	r.ExpectedCost *= scale
	r.Omniscient *= scale
	r.LowerBound *= scale
	for i := range r.Baselines {
		r.Baselines[i].ExpectedCost *= scale
	}
	if err := r.checkFinite(c); err != nil {
		return err
	}
	x, _, err := Law(d, tailMass)
	if err != nil {
		return err
	}
	direct, err := expectedCostOn(r.Strategy, x, c)
	if err != nil {
		return err
	}
	if !(math.Abs(direct-r.ExpectedCost) <= 1e-9*math.Abs(r.ExpectedCost)) {
		return fmt.Errorf("the cost model (alpha %g, beta %g, gamma %g) cannot be evaluated in float64 on walltimes up to %.3g s: the plan costs %.6g in units of alpha but %.6g evaluated directly; rescale it", c.Alpha, c.Beta, c.Gamma, r.Hi, r.ExpectedCost, direct)
	}
	return nil
}

// checkFinite refuses a result whose costs overflowed float64 (an α, β or
// γ near 1e308): its comparisons would be meaningless.
func (r *Result) checkFinite(c Costs) error {
	for _, v := range []float64{r.ExpectedCost, r.Omniscient} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the expected cost is %v: the cost model (alpha %g, beta %g, gamma %g) overflows on walltimes up to %.3g s; rescale it", v, c.Alpha, c.Beta, c.Gamma, r.Hi)
		}
	}
	return nil
}

func (r *Result) sizeGrid(x distribution.Distribution, o Options) error {
	maxN := o.MaxN
	if maxN == 0 {
		maxN = DefaultMaxN
	}
	if o.N < 0 {
		return fmt.Errorf("number of grid points must be >= 1, got %d", o.N)
	}
	if o.N > MaxGridPoints {
		return fmt.Errorf("at most %d grid points are supported (the solver takes O(n) memory and O(n²) time), got %d", MaxGridPoints, o.N)
	}
	maxN = min(maxN, MaxGridPoints)
	n := o.N
	if n == 0 {
		want, _, err := GridSize(x, o.Costs, o.Epsilon)
		if err != nil {
			return err
		}
		minN := o.MinN
		if minN == 0 {
			minN = DefaultMinN
		}
		n = min(max(want, minN), maxN)
		r.Capped = n < want
	}
	// The guarantee is the one the n points actually achieve, not c0(ε)/n:
	// c0 depends on ε, and a grid that is finer (the MinN floor, --n) or
	// coarser (MaxN) than ⌈c0(ε)/ε⌉ reaches another ε.
	r.N = n
	eps, c0, err := Guarantee(x, o.Costs, n)
	if err != nil {
		eps, c0 = math.Inf(1), math.Inf(1)
	}
	r.Epsilon, r.C0 = eps, c0
	return nil
}

func (r *Result) fill(s Strategy, x distribution.Distribution, c Costs, cost float64) {
	r.Strategy = s
	r.ExpectedCost = cost
	r.Omniscient = Omniscient(x, c)
	p := 1.0
	for i, rv := range Reservations(s, c) {
		if i > 0 {
			p = x.Survival(s[i-1].Milestone)
		}
		r.Reservations = append(r.Reservations, PlannedReservation{Reservation: rv, ProbNeeded: p})
	}
}

func practitioners(x distribution.Distribution, o Options) []Priced {
	_, b := x.Support()
	out := []Priced{{Name: BaselineMax, Reservations: 1}}
	out[0].ExpectedCost, _ = expectedCostWithin(MaxReservation(b), x, o)
	for _, p := range []struct {
		name  string
		first float64
	}{{BaselineNeuro, NeuroFirst(o.History, x)}, {BaselineMaxOfLast, MaxOfLastFirst(o.History, 5, x)}} {
		s, err := Escalating(p.first, 1.5, b)
		if err != nil {
			continue
		}
		cost, err := expectedCostWithin(s, x, o)
		if err != nil {
			continue
		}
		out = append(out, Priced{Name: p.name, ExpectedCost: cost, Reservations: len(s)})
	}
	return out
}

// limited says whether the plan is made under limits: a longest
// reservation or a limited cost model.
func (o Options) limited() bool { return o.MaxLength > 0 || o.Costs.Limited() }

// expectedCostWithin is expectedCostOn, +Inf for a strategy that needs a
// reservation longer than o.MaxLength.
func expectedCostWithin(s Strategy, x distribution.Distribution, o Options) (float64, error) {
	if k, _ := exceeds(s, o.Costs, o.MaxLength); k > 0 {
		return math.Inf(1), nil
	}
	return expectedCostOn(s, x, o.Costs)
}

// limitedPlan is dpPlanner under limits (Options.limited): the limited
// dynamic program on a discrete law's values (with withCheckpointPoints),
// on res.N grid points otherwise (approximateLimited); neither certifies a
// lower bound.
func limitedPlan(ctx context.Context, x distribution.Distribution, disc *distribution.Discrete, o Options, class Class, res *Result) (Strategy, float64, int, error) {
	progress := o.progress(class.String())
	if disc != nil {
		values, probs := withCheckpointPoints(disc.Values, disc.Probs, o.Costs, o.MaxLength)
		// Exact over its milestones, but a checkpoint between two of them
		// could do better, so no lower bound is certified.
		s, cost, err := dynProgCountLimited(ctx, values, probs, o.Costs, class, o.MaxLength, progress)
		return s, cost, 0, err
	}
	s, cost, err := approximateLimited(ctx, x, o.Costs, class, res.N, o.MaxLength, progress)
	return s, cost, 0, err
}
