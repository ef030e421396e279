package reservation

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
)

// Class restricts which checkpoint decisions a dynamic program may take.
type Class int

const (
	// Mixed lets every reservation choose δ_k ∈ {0, 1}: DYN-PROG-COUNT.
	Mixed Class = iota
	// AllCkpt checkpoints every reservation but the last (whose checkpoint
	// could never be used): the ALL-CKPT variant of Section 3.4.
	AllCkpt
	// NoCkpt never checkpoints: the NO-CKPT variant of Section 3.4 (the
	// problem of the authors' earlier IPDPS 2019 paper).
	NoCkpt
)

func (k Class) String() string {
	switch k {
	case Mixed:
		return "dyn-prog-count"
	case AllCkpt:
		return "all-ckpt"
	case NoCkpt:
		return "no-ckpt"
	}
	return fmt.Sprintf("Class(%d)", int(k))
}

// support is a finite discrete law Y ~ (v_i, f_i), 1 ≤ i ≤ n, in the layout
// the dynamic programs use: v[0] = 0 is the start of the job, and
// surv[i] = P(Y > v_i) = Σ_{k>i} f_k, accumulated from the top so that the
// tail keeps its digits.
type support struct {
	v    []float64
	surv []float64
	mean float64
}

func newSupport(values, probs []float64) (*support, error) {
	v, surv, mean, err := SupportLayout(values, probs)
	if err != nil {
		return nil, err
	}
	return &support{v: v, surv: surv, mean: mean}, nil
}

// SupportLayout validates a finite discrete law Y ~ (v_i, f_i) — v_i finite,
// >= 0 and strictly increasing; f_i finite and >= 0, f_n > 0, Σ f_i = 1
// within 10⁻⁶ — and lays it out as the dynamic programs use it: v[0] = 0,
// v[i] = values[i-1], and surv[i] = P(Y > v_i) accumulated from the top with
// the probabilities renormalised to sum 1; mean is E(Y). The memory-aware
// planner (memplan) uses the same layout. O(n).
func SupportLayout(values, probs []float64) (v, surv []float64, mean float64, err error) {
	n := len(values)
	if n == 0 || len(probs) != n {
		return nil, nil, 0, fmt.Errorf("discrete law needs as many probabilities as values (got %d and %d)", n, len(probs))
	}
	v, surv = make([]float64, n+1), make([]float64, n+1)
	prev := 0.0
	for i, x := range values {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, nil, 0, fmt.Errorf("value %d is %v, want finite and >= 0", i+1, x)
		}
		if i > 0 && x <= prev {
			return nil, nil, 0, fmt.Errorf("values must increase strictly: value %d (%v) follows %v", i+1, x, prev)
		}
		p := probs[i]
		if math.IsNaN(p) || p < 0 || math.IsInf(p, 0) {
			return nil, nil, 0, fmt.Errorf("probability %d is %v, want finite and >= 0", i+1, p)
		}
		v[i+1], prev = x, x
	}
	if probs[n-1] <= 0 {
		return nil, nil, 0, fmt.Errorf("the largest value %v has probability %v; the last value must have positive mass", values[n-1], probs[n-1])
	}
	total := 0.0
	for i := n - 1; i >= 0; i-- {
		surv[i+1] = total
		total += probs[i]
	}
	if math.Abs(total-1) > 1e-6 {
		return nil, nil, 0, fmt.Errorf("probabilities sum to %v, want 1", total)
	}
	surv[0] = 1
	for i := 1; i <= n; i++ {
		surv[i] /= total
		mean += values[i-1] * probs[i-1] / total
	}
	return v, surv, mean, nil
}

func (s *support) n() int { return len(s.v) - 1 }

// choice encodes a transition of the dynamic program: the next milestone
// index j, negated when that reservation checkpoints. 0 means none.
type choice int32

func (ch choice) next() (j int, ckpt bool) {
	if ch < 0 {
		return int(-ch), true
	}
	return int(ch), false
}

// DynProgCount returns a strategy of minimal expected cost for the discrete
// law (values[i], probs[i]) within the given class, and that cost. It is
// Theorem 2 evaluated with the speed-ups described in the package
// documentation: O(n²) time for Mixed, O(n) for AllCkpt and NoCkpt, and O(n)
// memory in every case. Milestones are support values; the last one is the
// largest value.
func DynProgCount(values, probs []float64, c Costs, class Class) (Strategy, float64, error) {
	return dynProgCount(context.Background(), values, probs, c, class, nil, 0)
}

// dynProgCount is DynProgCount under ctx (checked before each row), that reports its rows to progress
// (when not nil) and uses at most workers goroutines (0: GOMAXPROCS).
func dynProgCount(ctx context.Context, values, probs []float64, c Costs, class Class, progress func(done, total int), workers int) (Strategy, float64, error) {
	sol, cost, err := solveLaw(ctx, values, probs, c, class, progress, workers)
	if err != nil {
		return nil, 0, err
	}
	return sol.strategy(), cost, nil
}

// solveLaw is dynProgCount without rebuilding the plan: it returns the
// solved dynamic program (its diagonal E(j, j) filled, see solver) and the
// optimum, so that a caller can rebuild the plan and reuse the diagonal
// (sharedLowerBound).
func solveLaw(ctx context.Context, values, probs []float64, c Costs, class Class, progress func(done, total int), workers int) (*solver, float64, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	sup, err := newSupport(values, probs)
	if err != nil {
		return nil, 0, err
	}
	sol := newSolver(sup, c, class)
	sol.ctx, sol.progress = ctx, progress
	if workers > 0 {
		sol.workers = workers
	}
	cost := sol.solve()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return sol, cost, nil
}

// solver evaluates Theorem 2's E_ckpt(i_c, i_l) row by row.
//
// Write S_l = P(Y > v_{i_l}), b = v_{i_c} and ρ = R for i_c > 0 (b = ρ = 0
// for i_c = 0, before any checkpoint). Theorem 2's two options become
//
//	δ=0: min_{j>i_l} [E(i_c, j) + βS_j(v_j − b) + αv_j·S_l] + S_l·(α(ρ − b) + βρ + γ)
//	δ=1: min_{j>i_l} [E(j, j) + βC·S_j + αv_j·S_l]       + S_l·(α(ρ − b + C) + βρ + γ)
//
// Each bracket is the lower envelope of lines of slope αv_j evaluated at
// S_l. As i_l decreases, lines are added in decreasing slope order and S_l
// never decreases, so a monotone convex-hull deque answers each query in
// amortised O(1). The δ=1 envelope does not depend on i_c at all, so it is
// shared by every row (m1, j1). Row i_c needs only E(j, j) for j > i_c, so
// rows are computed from i_c = n−1 down to 0 keeping just the diagonal;
// the plan is rebuilt afterwards by re-running the O(n) rows it visits.
type solver struct {
	sup   *support
	c     Costs
	class Class
	base  float64   // E(·, n) = β·E[Y]
	diag  []float64 // diag[j] = E(j, j)
	m1    []float64 // m1[l] = min_{l<j<n} E(j,j) + βC·S_j + αv_j·S_l
	j1    []int32   // argmin of m1[l], 0 if none
	row   []float64 // E(i_c, ·) of the row being computed
	// slope[j] = αv_j and betaS[j] = βS_j, the row-independent factors of
	// the lines.
	slope, betaS []float64
	// strict says the slopes αv_j of the lines strictly increase with j
	// (1 ≤ j ≤ n), so that no two lines of a row's hull have equal slopes
	// (rowKernelFast).
	strict bool
	hull   hull
	// workers is the number of goroutines solve may use (GOMAXPROCS).
	workers int
	// pipelineMin is the number of rows from which solve pipelines them
	// (parallelRows; tests lower it).
	pipelineMin int
	// chunk is the most steps of a row a worker runs before it takes the
	// next piece of work (rowChunk), and maxOpen the most rows in progress
	// at once (0: as many as pipelineBytes allows, at most pipelineRows);
	// tests lower both.
	chunk, maxOpen int
	stats          pipeStats // of the last solveParallel
	// onPiece, when not nil, is called with the row of each piece a
	// worker takes in solveParallel (not a rescue), before it runs;
	// inPiece after each
	// rowCheck steps of a piece, with whether the piece is a rescue
	// (tests stall a worker before or in the middle of a piece).
	onPiece func(ic int)
	inPiece func(ic int, rescue bool)
	// ctx is checked before each row (each piece of a row in
	// solveParallel); once it is done, solve stops taking
	// rows and its result is meaningless (the caller returns ctx.Err()).
	ctx context.Context
	// progress, when not nil, is told the number of rows done.
	progress func(done, total int)
	rowsDone atomic.Int64
}

// stopped reports whether ctx is done, and counts a row for progress.
func (s *solver) stopped() bool {
	if s.ctx != nil && s.ctx.Err() != nil {
		return true
	}
	if s.progress != nil {
		s.progress(int(s.rowsDone.Add(1)), s.sup.n())
	}
	return false
}

func newSolver(sup *support, c Costs, class Class) *solver {
	n := sup.n()
	slope, betaS := make([]float64, n+1), make([]float64, n+1)
	for j := range slope {
		slope[j], betaS[j] = c.Alpha*sup.v[j], c.Beta*sup.surv[j]
	}
	strict := true
	for j := 1; j < n; j++ {
		strict = strict && slope[j] < slope[j+1]
	}
	return &solver{
		sup: sup, c: c, class: class, base: c.Beta * sup.mean, strict: strict,
		diag: make([]float64, n+1), m1: make([]float64, n+1), j1: make([]int32, n+1),
		row: make([]float64, n+1), slope: slope, betaS: betaS, hull: newHull(n),
		workers: runtime.GOMAXPROCS(0), pipelineMin: parallelRows, chunk: rowChunk,
	}
}

func (s *solver) solve() float64 {
	n := s.sup.n()
	s.diag[n] = s.base
	if s.class == Mixed && s.workers > 1 && n >= s.pipelineMin {
		return s.solveParallel()
	}
	v, S, c := s.sup.v, s.sup.surv, s.c
	var shared hull
	if s.class != NoCkpt {
		shared = newHull(n)
	}
	for ic := n - 1; ic >= 0; ic-- {
		if s.stopped() {
			return math.NaN()
		}
		if s.class != NoCkpt {
			// The final reservation never checkpoints, so j stops at n−1.
			if j := ic + 1; j < n {
				shared.add(c.Alpha*v[j], s.diag[j]+c.Beta*c.C*S[j], int32(j))
			}
			s.m1[ic], s.j1[ic] = math.Inf(1), 0
			if !shared.empty() {
				val, j := shared.query(S[ic])
				s.m1[ic], s.j1[ic] = val, j
			}
		}
		if ic > 0 && s.class == NoCkpt {
			continue // rows after a checkpoint are unreachable
		}
		s.diag[ic] = s.runRow(ic, nil, s.row, &s.hull)
	}
	return s.diag[0]
}

// parallelRows is the size below which pipelining rows does not pay.
const parallelRows = 1500

// runRow computes E(ic, il) for il = n−1 … ic into row (the fast kernels,
// which decide no transition, keep only row[ic]), using the hull scratch
// h, and returns E(ic, ic). When rec is not nil it records the
// optimal transition of every state.
func (s *solver) runRow(ic int, rec []choice, row []float64, h *hull) float64 {
	if s.class == AllCkpt {
		// Only two kinds of move: checkpoint at some j < n, or finish at v_n.
		n, v, x := s.sup.n(), s.sup.v, s.sup.surv[ic]
		_, k0, k1 := s.rowConstants(ic)
		best, ch := s.base+s.c.Alpha*v[n]*x+x*k0, choice(n)
		if s.j1[ic] > 0 {
			if val := s.m1[ic] + x*k1; val < best {
				best, ch = val, -choice(s.j1[ic])
			}
		}
		if rec != nil {
			rec[ic] = ch
		}
		return best
	}
	var t rowTask
	s.openRow(&t, ic, row, h)
	s.stepRow(&t, ic, rec)
	return t.prev
}

// rowConstants returns row i_c's b = v_{i_c} and its terms
// k0 = α(ρ − b) + βρ + γ and k1 = k0 + αC (b = ρ = 0 for i_c = 0).
func (s *solver) rowConstants(ic int) (b, k0, k1 float64) {
	c, rho := s.c, 0.0
	if ic > 0 {
		b, rho = s.sup.v[ic], c.R
	}
	k0 = c.Alpha*(rho-b) + c.Beta*rho + c.Gamma
	return b, k0, k0 + c.Alpha*c.C
}

// rowTask is a row of the dynamic program in progress, so that its steps
// can run in pieces, on any goroutine: the row i_c, its next step i_l (the
// row is done once i_l < i_c), the value of the step before, the hull's
// head and top, the row's constants (b, k0, k1 of runRow) and its scratch.
type rowTask struct {
	ic, il    int
	prev      float64
	head, top int
	b, k0, k1 float64
	row       []float64
	h         *hull
}

// openRow makes t row ic before its first step, with the scratch row
// (nil for the fast kernels, which keep none) and h.
func (s *solver) openRow(t *rowTask, ic int, row []float64, h *hull) {
	n := s.sup.n()
	if row != nil {
		row[n] = s.base
	}
	h.reset()
	t.b, t.k0, t.k1 = s.rowConstants(ic)
	t.ic, t.il, t.prev, t.head, t.top, t.row, t.h = ic, n-1, s.base, 0, 0, row, h
}

// stepRow runs the steps t.il … lo of row t (lo ≥ t.ic; every m1[i_l] they
// read final), recording the transitions into rec when it is not nil. Once
// the row is done, t.prev (and t.row[t.ic] when there is a row) is
// E(i_c, i_c).
func (s *solver) stepRow(t *rowTask, lo int, rec []choice) {
	switch {
	case rec == nil && s.class == Mixed && s.strict && s.c.Beta == 0 && !math.Signbit(s.c.Beta):
		s.rowKernelFastNoBeta(t, lo)
	case rec == nil && s.class == Mixed && s.strict:
		s.rowKernelFast(t, lo)
	default:
		s.rowKernel(t, lo, rec)
	}
	if t.il < t.ic && t.row != nil {
		t.row[t.ic] = t.prev
	}
}

// rowKernelFast is rowKernel for the rows that decide the optimum: the
// mixed class, no transition recorded, and slopes that strictly increase
// (strict). It computes every E(i_c, i_l) with the same arithmetic and
// comparisons in the same order, so every value is rowKernel's, bit for
// bit, but its loop carries no test that is dead in these rows:
//   - the equal-slope path of hull.add: with strict slopes the line of
//     milestone j + 1, added at the step before, has a larger slope than
//     the line of j;
//   - the test j1[i_l] > 0: in the mixed class every solve sets
//     m1[i_l] = +Inf where j1[i_l] = 0 (no checkpoint envelope yet), and
//     then m1[i_l] + x·k1 = +Inf is never below best, as the test would
//     have said;
//   - the recording of transitions;
//
// and it keeps less: the hull's slopes and intercepts in two flat arrays
// (h.fm, h.fq; no milestone ids, which only a recorded row needs), and no
// row but its last value, E(i_c, i_c) (the step before is carried in a
// register). The query keeps the value of the hull's head line at x
// instead of computing it again at each comparison (the same expression,
// so the same value).
func (s *solver) rowKernelFast(t *rowTask, lo int) {
	n := s.sup.n()
	v, S, slope, bS := s.sup.v[:n+1], s.sup.surv[:n+1], s.slope[:n+1], s.betaS[:n+1]
	m1 := s.m1[:n+1]
	lm, lq := t.h.flat(n)
	b, k0, k1 := t.b, t.k0, t.k1
	head, top, prev := t.head, t.top, t.prev
	il := t.il
	for ; il >= lo; il-- {
		j := il + 1
		m, q := slope[j], prev+bS[j]*(v[j]-b)
		// add: the hull's slopes strictly decrease, and all are above m
		// (hull.add without its equal-slope path, the same comparisons
		// in the same order).
		for top-1 > head {
			ma, qa, mb, qb := lm[top-2], lq[top-2], lm[top-1], lq[top-1]
			if (q-qa)*(ma-mb) <= (qb-qa)*(ma-m) {
				top--
				continue
			}
			break
		}
		lm[top], lq[top] = m, q
		top++
		if head > top-1 {
			head = top - 1
		}
		// query at x = S_il, non-decreasing as il decreases: hull.query,
		// the head's value computed once per line (the same
		// expression). The first comparison stands apart from the
		// loop's, so that the branch predictor tells "moves at all"
		// from "moves again".
		x := S[il]
		cur := lm[head]*x + lq[head]
		if head+1 < top {
			if next := lm[head+1]*x + lq[head+1]; next <= cur {
				head, cur = head+1, next
				for head+1 < top {
					next := lm[head+1]*x + lq[head+1]
					if !(next <= cur) {
						break
					}
					head, cur = head+1, next
				}
			}
		}
		best := cur + x*k0
		// Ties go to the reservation without a checkpoint.
		if alt := m1[il] + x*k1; alt < best {
			best = alt
		}
		prev = best
	}
	t.il, t.head, t.top, t.prev = il, head, top, prev
}

// rowKernel is the inner loop of runRow for the mixed and no-checkpoint
// classes: n − ic steps, each adding the line of milestone j = il + 1 to
// the hull, querying it at S_il and comparing with the checkpoint
// envelope m1. It is the hull's add and query written out on flat,
// preallocated arrays held in local variables (no append, no call, no
// pointer chasing in the loop), with the same arithmetic and comparisons
// in the same order as hull.add and hull.query, so that every value is the
// one they would give. The pop and query tests stay branches: a
// branch-free pop (a conditional move on the hull's top) puts the loads of
// the next test behind the comparison and measured twice as slow, while the
// branches are predicted (on smooth laws a step pops one line two times in
// three and the query rarely moves).
func (s *solver) rowKernel(t *rowTask, lo int, rec []choice) {
	n := s.sup.n()
	v, S, slope, bS := s.sup.v[:n+1], s.sup.surv[:n+1], s.slope[:n+1], s.betaS[:n+1]
	m1, j1 := s.m1[:n+1], s.j1[:n+1]
	h := t.h
	lines := h.lines[:n+1]
	row := t.row[:n+1]
	mixed := s.class == Mixed
	b, k0, k1 := t.b, t.k0, t.k1
	head, top, prev := t.head, t.top, t.prev
	il := t.il
	for ; il >= lo; il-- {
		j := il + 1
		m, q := slope[j], prev+bS[j]*(v[j]-b)
		// add: lines[head:top] have strictly decreasing slopes.
		if top > head && m >= lines[top-1].m {
			h.head, h.top = head, top
			h.add(m, q, int32(j)) // equal slopes: rare, the general path
			head, top = h.head, h.top
		} else {
			for top-1 > head {
				l1, l2 := lines[top-2], lines[top-1]
				if (q-l1.q)*(l1.m-l2.m) <= (l2.q-l1.q)*(l1.m-m) {
					top--
					continue
				}
				break
			}
			lines[top] = line{m: m, q: q, id: int32(j)}
			top++
			if head > top-1 {
				head = top - 1
			}
		}
		// query at x = S_il, non-decreasing as il decreases.
		x := S[il]
		for head+1 < top && lines[head+1].m*x+lines[head+1].q <= lines[head].m*x+lines[head].q {
			head++
		}
		best, ch := lines[head].m*x+lines[head].q+x*k0, choice(lines[head].id)
		if mixed && j1[il] > 0 {
			// Ties go to the reservation without a checkpoint.
			if alt := m1[il] + x*k1; alt < best {
				best, ch = alt, -choice(j1[il])
			}
		}
		row[il], prev = best, best
		if rec != nil {
			rec[il] = ch
		}
	}
	h.head, h.top = head, top
	t.il, t.head, t.top, t.prev = il, head, top, prev
}

// rowKernelFastNoBeta is rowKernelFast for β = +0, where the intercept of
// the line of milestone j is E(i_c, j) itself: rowKernelFast's
// prev + βS_j·(v_j − b) adds +0 to prev, which leaves prev unchanged, bit
// for bit, unless prev is −0; and no row value is −0 (row[n] = β·E[Y] =
// +0, and every other is a sum whose first term, m·x + q for a slope
// m = αv_j ≥ 0 and x ≥ 0, is not −0; a float sum is −0 only when both
// terms are). Dropping the term takes two loads and three operations off
// each step.
func (s *solver) rowKernelFastNoBeta(t *rowTask, lo int) {
	n := s.sup.n()
	S, slope := s.sup.surv[:n+1], s.slope[:n+1]
	m1 := s.m1[:n+1]
	lm, lq := t.h.flat(n)
	k0, k1 := t.k0, t.k1
	head, top, prev := t.head, t.top, t.prev
	il := t.il
	for ; il >= lo; il-- {
		m, q := slope[il+1], prev
		// add: the hull's slopes strictly decrease, and all are above m
		// (hull.add without its equal-slope path, the same comparisons
		// in the same order).
		for top-1 > head {
			ma, qa, mb, qb := lm[top-2], lq[top-2], lm[top-1], lq[top-1]
			if (q-qa)*(ma-mb) <= (qb-qa)*(ma-m) {
				top--
				continue
			}
			break
		}
		lm[top], lq[top] = m, q
		top++
		if head > top-1 {
			head = top - 1
		}
		// query at x = S_il, non-decreasing as il decreases: hull.query,
		// the head's value computed once per line (the same
		// expression). The first comparison stands apart from the
		// loop's, so that the branch predictor tells "moves at all"
		// from "moves again".
		x := S[il]
		cur := lm[head]*x + lq[head]
		if head+1 < top {
			if next := lm[head+1]*x + lq[head+1]; next <= cur {
				head, cur = head+1, next
				for head+1 < top {
					next := lm[head+1]*x + lq[head+1]
					if !(next <= cur) {
						break
					}
					head, cur = head+1, next
				}
			}
		}
		best := cur + x*k0
		if alt := m1[il] + x*k1; alt < best {
			best = alt
		}
		prev = best
	}
	t.il, t.head, t.top, t.prev = il, head, top, prev
}

// strategy rebuilds the optimal plan from state (0, 0).
func (s *solver) strategy() Strategy {
	n := s.sup.n()
	rec := make([]choice, n+1)
	s.runRow(0, rec, s.row, &s.hull)
	var out Strategy
	for il := 0; il < n; {
		j, ckpt := rec[il].next()
		out = append(out, Step{Milestone: s.sup.v[j], Checkpoint: ckpt})
		if ckpt && j < n {
			clear(rec)
			s.runRow(j, rec, s.row, &s.hull)
		}
		il = j
	}
	return out
}

// line is y = m·x + q, the transition to milestone id.
type line struct {
	m, q float64
	id   int32
}

// hull is a lower envelope of lines y = m·x + q for minimum queries, with
// lines added in strictly decreasing slope and queries at non-decreasing x:
// lines[head:top], in a flat array allocated once.
type hull struct {
	lines     []line
	head, top int
	// fm and fq are the fast kernels' scratch (rowKernelFast): the
	// slopes and intercepts of their hull, without ids, allocated on
	// first use.
	fm, fq []float64
}

func newHull(n int) hull { return hull{lines: make([]line, n+1)} }

// flat returns the fast kernels' scratch for n + 1 lines.
func (h *hull) flat(n int) (lm, lq []float64) {
	if len(h.fm) < n+1 {
		h.fm, h.fq = make([]float64, n+1), make([]float64, n+1)
	}
	return h.fm[:n+1], h.fq[:n+1]
}

func (h *hull) reset() { h.head, h.top = 0, 0 }

func (h *hull) empty() bool { return h.head >= h.top }

func (h *hull) add(m, q float64, id int32) {
	for h.top > h.head {
		last := h.top - 1
		if m >= h.lines[last].m { // equal slopes: keep the lower intercept
			if q >= h.lines[last].q {
				return
			}
			h.top--
			continue
		}
		if last == h.head {
			break
		}
		// The middle line is useless if the new line overtakes the first
		// one no later than the middle one does.
		m1, q1, m2, q2 := h.lines[last-1].m, h.lines[last-1].q, h.lines[last].m, h.lines[last].q
		if (q-q1)*(m1-m2) <= (q2-q1)*(m1-m) {
			h.top--
			continue
		}
		break
	}
	h.lines[h.top] = line{m: m, q: q, id: id}
	h.top++
	if h.head > h.top-1 {
		h.head = h.top - 1
	}
}

func (h *hull) query(x float64) (float64, int32) {
	for h.head+1 < h.top && h.lines[h.head+1].m*x+h.lines[h.head+1].q <= h.lines[h.head].m*x+h.lines[h.head].q {
		h.head++
	}
	return h.lines[h.head].m*x + h.lines[h.head].q, h.lines[h.head].id
}
