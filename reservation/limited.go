package reservation

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/units"
)

// ErrNoPlanWithin is wrapped by the error of a plan that no strategy can
// make within the longest reservation allowed.
var ErrNoPlanWithin = fmt.Errorf("no plan fits the longest reservation allowed")

// DynProgCountLimited is DynProgCount under a scheduler's limits: every
// reservation at most maxLength seconds (0: no bound), each request
// rounded up to c.Granularity and a checkpoint reserving C + c.Margin
// (Costs.Limited). It returns a strategy of least expected cost among the
// strategies of the class whose milestones are values of the law and
// whose every reservation, so rounded, is at most maxLength — the optimum
// under the bound, not a clipped optimum — and that cost, priced as
// ExpectedCost prices the strategy with c.
//
// It is Theorem 2 with two changes. A transition from state (i_c, i_l) to
// milestone v_j with checkpoint δ needs W = g⌈(ρ + v_j − b + δ(C + M))/g⌉
// seconds (b = v_{i_c}, ρ = R after a checkpoint, 0 before), and is allowed
// only if W ≤ maxLength; and the slope of its line is αW, which now depends
// on i_c, so the checkpoint envelope can no longer be shared between rows:
// each row i_c keeps two monotone convex-hull deques, one per δ (slopes αW
// are non-decreasing in j, queries S_{i_l} non-decreasing as i_l falls).
// W grows with j, so the transitions allowed from row i_c are those to
// j ≤ J(i_c), the last milestone within the bound, and the states
// (i_c, i_l) with i_l > J(i_c) are never reached: row i_c costs
// O(J(i_c) − i_c) and the whole program O(n·K) time, where K ≤ n is the
// largest number of the law's values in a window of maxLength seconds
// (O(n²) without a bound), and O(n) memory; the plan is rebuilt by
// re-running the O(K) rows it visits. A state from which no allowed
// transition reaches the end costs +Inf and adds no line.
//
// Milestones are the law's values, as in Theorem 2: a plan for Slurm whose
// rounded request leaves Slack does not plan to use it, and the runner,
// which signals the app at end − C − margin, saves at least the planned
// milestone (the slack only adds progress), so the plan's cost bounds what
// it really costs from above. Ties go to the transition without a
// checkpoint.
func DynProgCountLimited(values, probs []float64, c Costs, class Class, maxLength float64) (Strategy, float64, error) {
	return dynProgCountLimited(context.Background(), values, probs, c, class, maxLength, nil)
}

// dynProgCountLimited is DynProgCountLimited under ctx (checked before
// each row), reporting its rows to progress when not nil.
func dynProgCountLimited(ctx context.Context, values, probs []float64, c Costs, class Class, maxLength float64, progress func(done, total int)) (Strategy, float64, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	if math.IsNaN(maxLength) || maxLength < 0 {
		return nil, 0, fmt.Errorf("longest reservation must be >= 0 (0: no bound), got %v", maxLength)
	}
	sup, err := newSupport(values, probs)
	if err != nil {
		return nil, 0, err
	}
	ls := newLimitedSolver(sup, c, class, maxLength)
	n := sup.n()
	ls.diag[n] = ls.base
	for ic := n - 1; ic >= 0; ic-- {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if progress != nil {
			progress(n-ic, n)
		}
		if ic > 0 && class == NoCkpt {
			continue // rows after a checkpoint are unreachable
		}
		ls.diag[ic] = ls.runRow(ic, nil)
	}
	cost := ls.diag[0]
	if math.IsInf(cost, 1) {
		margin := ""
		if c.Margin > 0 {
			margin = ", margin " + units.FormatSeconds(c.Margin)
		}
		return nil, 0, fmt.Errorf("%w: no %s plan keeps every reservation within %s with C = %s, R = %s%s (the law's values reach %s); allow longer reservations",
			ErrNoPlanWithin, class, units.FormatSeconds(maxLength), units.FormatSeconds(c.C), units.FormatSeconds(c.R), margin, units.FormatSeconds(sup.v[n]))
	}
	return ls.strategy(), cost, nil
}

// limitedSolver holds the limited dynamic program's diagonal E(j, j), the
// row being computed and its two hulls.
type limitedSolver struct {
	sup      *support
	c        Costs
	class    Class
	maxLen   float64 // +Inf when unbounded
	base     float64
	diag     []float64
	row      []float64
	h0, h1   hull
	ckptCost float64 // C + Margin
}

func newLimitedSolver(sup *support, c Costs, class Class, maxLength float64) *limitedSolver {
	n := sup.n()
	if maxLength == 0 {
		maxLength = math.Inf(1)
	}
	return &limitedSolver{sup: sup, c: c, class: class, maxLen: maxLength, base: c.Beta * sup.mean,
		diag: make([]float64, n+1), row: make([]float64, n+1), h0: newHull(n), h1: newHull(n), ckptCost: c.C + c.Margin}
}

// last is J(ic): the largest milestone index a reservation without
// checkpoint may reach from checkpoint ic within the bound (ic when none).
func (ls *limitedSolver) last(ic int, b, rho float64) int {
	v, n := ls.sup.v, ls.sup.n()
	// W(j) is non-decreasing in j: the first j above the bound, minus one.
	k := sort.Search(n-ic, func(k int) bool { return ls.c.RoundUp(rho+v[ic+1+k]-b) > ls.maxLen })
	return ic + k
}

// runRow computes E(ic, il) for the reachable il, top down, into ls.row
// and returns E(ic, ic); rec, when not nil, records each state's choice.
func (ls *limitedSolver) runRow(ic int, rec []choice) float64 {
	n := ls.sup.n()
	v, S, c := ls.sup.v, ls.sup.surv, ls.c
	b, rho := 0.0, 0.0
	if ic > 0 {
		b, rho = v[ic], c.R
	}
	ls.h0.reset()
	ls.h1.reset()
	ls.row[n] = ls.base
	top := ls.last(ic, b, rho) // lines beyond top are out of bounds
	constant := c.Gamma + c.Beta*rho
	for il := min(top, n-1); il >= ic; il-- {
		j := il + 1
		if j <= top && (ls.class != AllCkpt || j == n) && !math.IsInf(ls.row[j], 1) {
			raw := rho + v[j] - b
			w := c.RoundUp(raw)
			ls.h0.add(c.Alpha*w, ls.row[j]+c.Beta*S[j]*(v[j]-b+math.Max(0, w-raw)), int32(j))
		}
		if ls.class != NoCkpt && j < n && !math.IsInf(ls.diag[j], 1) {
			raw := rho + v[j] - b + ls.ckptCost
			if w := c.RoundUp(raw); w <= ls.maxLen {
				ls.h1.add(c.Alpha*w, ls.diag[j]+c.Beta*S[j]*(ls.ckptCost+math.Max(0, w-raw)), int32(j))
			}
		}
		x := S[il]
		best, ch := math.Inf(1), choice(0)
		if !ls.h0.empty() {
			val, id := ls.h0.query(x)
			best, ch = val, choice(id)
		}
		if !ls.h1.empty() {
			// Ties go to the reservation without a checkpoint.
			if val, id := ls.h1.query(x); val < best {
				best, ch = val, -choice(id)
			}
		}
		ls.row[il] = best + x*constant
		if rec != nil {
			rec[il] = ch
		}
	}
	return ls.row[ic]
}

// strategy rebuilds the optimal plan from state (0, 0).
func (ls *limitedSolver) strategy() Strategy {
	n := ls.sup.n()
	rec := make([]choice, n+1)
	ls.runRow(0, rec)
	var out Strategy
	for il := 0; il < n; {
		j, ckpt := rec[il].next()
		out = append(out, Step{Milestone: ls.sup.v[j], Checkpoint: ckpt})
		if ckpt && j < n {
			clear(rec)
			ls.runRow(j, rec)
		}
		il = j
	}
	return out
}

// exceeds reports the first reservation of s longer than maxLength (0:
// no bound), 1-based, and its length; 0 when none is.
func exceeds(s Strategy, c Costs, maxLength float64) (int, float64) {
	if maxLength <= 0 {
		return 0, 0
	}
	for k, r := range Reservations(s, c) {
		if r.Length > maxLength {
			return k + 1, r.Length
		}
	}
	return 0, 0
}

// approximateLimited is Algorithm 1 under the limits: the law discretised
// on n points by Eq. (9) (with withCheckpointPoints), the limited dynamic
// program on that grid, and the
// plan priced on x itself. No lower bound is given: moving the grid down a
// cell (approximate's bound) shortens reservations the bound and the
// rounding would not allow, so that argument does not carry over.
func approximateLimited(ctx context.Context, x distribution.Distribution, c Costs, class Class, n int, maxLength float64, progress func(done, total int)) (Strategy, float64, error) {
	if n < 1 {
		return nil, 0, fmt.Errorf("number of grid points must be >= 1, got %d", n)
	}
	y, err := distribution.Discretize(x, n)
	if err != nil {
		return nil, 0, err
	}
	// The checkpoint points matter most below the grid's first value: a
	// law whose support starts beyond one bounded reservation's reach
	// (uniform on [1 h, 3 h] under a 30 min bound) has no plan without them.
	values, probs := withCheckpointPoints(y.Values, y.Probs, c, maxLength)
	s, _, err := dynProgCountLimited(ctx, values, probs, c, class, maxLength, progress)
	if err != nil {
		return nil, 0, err
	}
	cost, err := expectedCostOn(s, x, c)
	return s, cost, err
}

// checkpointPointsPerReach is how many checkpoint points
// withCheckpointPoints puts in the work one bounded reservation can do.
const checkpointPointsPerReach = 64

// withCheckpointPoints adds to a discrete law's values, under a bound
// maxLength > 0, points of zero probability every step seconds inside each
// gap between two values (step = min(max(g, reach/64), reach/2), reach =
// maxLength − R − C − margin the work one reservation can do after a
// restart and before a checkpoint, doubled until at most MaxDistinctValues
// values remain; the cap reach/2 keeps points within a reservation's
// reach when the granularity g exceeds it), so
// that a checkpoint may fall between two runtimes: without them a law
// whose runtimes are further apart than a reservation can reach has no
// plan at all. The limited dynamic program is then exact over milestones
// at the law's values and at these points. Without a bound (or when no
// reservation can reach anything) the law is returned as it is.
func withCheckpointPoints(values, probs []float64, c Costs, maxLength float64) ([]float64, []float64) {
	reach := maxLength - c.R - c.C - c.Margin
	if maxLength <= 0 || !(reach > 0) || len(values) == 0 {
		return values, probs
	}
	step := math.Min(math.Max(c.Granularity, reach/checkpointPointsPerReach), reach/2)
	for {
		extra := 0.0
		prev := 0.0
		for _, v := range values {
			extra += math.Max(0, math.Ceil((v-prev)/step)-1)
			prev = v
		}
		if float64(len(values))+extra <= MaxDistinctValues {
			break
		}
		step *= 2
	}
	var vs, ps []float64
	prev := 0.0
	for i, v := range values {
		for p := prev + step; p < v-step/2; p += step {
			vs, ps = append(vs, p), append(ps, 0)
		}
		vs, ps = append(vs, v), append(ps, probs[i])
		prev = v
	}
	return vs, ps
}
