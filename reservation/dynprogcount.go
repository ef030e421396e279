package reservation

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
	// lagLimit is the share of their time the pipelined workers may spend
	// blocked before the solve goes on with one (maxBlockedShare; tests
	// make it negative to force the fallback), judged over windows of
	// lagWindow (tests make it 0).
	lagLimit  float64
	lagWindow time.Duration
	// ctx is checked before each row; once it is done, solve stops taking
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
		workers: runtime.GOMAXPROCS(0), pipelineMin: parallelRows, lagLimit: maxBlockedShare, lagWindow: lagWindow,
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
		s.diag[ic] = s.runRow(ic, nil, s.row, &s.hull, nil)
	}
	return s.diag[0]
}

// parallelRows is the size below which pipelining rows does not pay.
const parallelRows = 1500

// solveParallel pipelines the rows over s.workers goroutines. Row i_c needs
// m1[i_l] for i_l ≥ i_c, and m1[i_l] needs the diagonal of the rows above
// i_l only; so consecutive rows run side by side and a worker waits only
// when it reaches a step whose m1 is not yet published. Rows finish in
// decreasing order; the worker that finishes row r adds its diagonal to the
// shared envelope, publishes m1[r−1] and moves the published mark. The
// result is bit-for-bit the sequential one.
//
// The rows run in lockstep, so a worker whose partner is descheduled (a
// core busy elsewhere) waits for it. When, past the first eighth of the
// rows (the shortest, where waiting is inherent), the workers have spent
// more than maxBlockedShare of their time blocked in lagStrikes windows of
// at least lagWindow in a row (lagMeter), all but the first stop taking
// rows and the solve finishes sequentially: two workers are never much
// slower than one. A partner descheduled once for a while (a few time
// slices of another process) makes one window lag, not three: falling
// back then would not help (the rows run in order, so its row must finish
// anyway) and would leave the rest of the solve to one worker.
func (s *solver) solveParallel() float64 {
	n := s.sup.n()
	v, S, c := s.sup.v, s.sup.surv, s.c
	shared := newHull(n)
	s.m1[n-1], s.j1[n-1] = math.Inf(1), 0
	published := newMark(int64(n - 1)) // m1[il] is final for every il ≥ mark
	var next atomic.Int64
	next.Store(int64(n))
	var solo atomic.Bool
	meter := lagMeter{window: s.lagWindow}
	warm := n - n/8 // the rows past the first eighth
	var wg sync.WaitGroup
	for w := range s.workers {
		wg.Go(func() {
			row, h := make([]float64, n+1), newHull(n)
			for {
				// Stopping before taking a row is safe: every row taken
				// earlier has a larger index, so the rows still running
				// wait only on rows that finish.
				if s.stopped() || w > 0 && solo.Load() {
					return
				}
				r := int(next.Add(-1))
				if r < 0 {
					return
				}
				s.diag[r] = s.runRow(r, nil, row, &h, published)
				if r == 0 {
					return
				}
				// Row r is done and m1[r] was published (its last step
				// waited for it), so this worker alone extends the envelope.
				shared.add(c.Alpha*v[r], s.diag[r]+c.Beta*c.C*S[r], int32(r))
				val, j := shared.query(S[r-1])
				s.m1[r-1], s.j1[r-1] = val, j
				published.lower(int64(r - 1))
				// The first rows are the shortest (row r has n − r steps):
				// the workers wait on each other there by construction, so
				// the blocked share is measured from the first check past
				// them.
				if r%lagCheckRows == 0 && r <= warm && !solo.Load() &&
					meter.lagging(published.blocked.Load(), s.workers, s.lagLimit) {
					solo.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return s.diag[0]
}

// maxBlockedShare is the share of their time the pipelined workers may
// spend blocked on each other before the solve falls back to one worker.
const maxBlockedShare = 0.25

// lagCheckRows is how often (in rows) the pipeline checks its workers'
// blocked time.
const lagCheckRows = 16

// lagWindow is the shortest span over which the pipeline judges its
// workers' blocked share, and lagStrikes the number of such spans in a row
// that must exceed the limit before it falls back to one worker.
const (
	lagWindow  = 10 * time.Millisecond
	lagStrikes = 3
)

// lagMeter judges the pipelined workers' blocked share window by window.
type lagMeter struct {
	window time.Duration
	mu     sync.Mutex
	armed  bool
	start  time.Time // of the current window
	base   int64     // the mark's blocked time at its start
	// strikes is the number of windows in a row over the limit.
	strikes int
}

// lagging is called at each check with the mark's total blocked time. The
// first call opens a window; a later one closes it once it lasted at least
// window, counts a strike if the workers were blocked more than limit of
// their time in it (none otherwise), and opens the next. It reports
// lagStrikes strikes in a row.
func (l *lagMeter) lagging(blocked int64, workers int, limit float64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.armed {
		l.armed, l.start, l.base = true, now, blocked
		return false
	}
	span := now.Sub(l.start)
	if span < l.window {
		return false
	}
	if float64(blocked-l.base) > limit*float64(span)*float64(workers) {
		l.strikes++
	} else {
		l.strikes = 0
	}
	l.start, l.base = now, blocked
	return l.strikes >= lagStrikes
}

// runRow computes E(ic, il) for il = n−1 … ic into row (the fast kernels,
// which decide no transition, keep only row[ic]), using the hull scratch
// h, and returns E(ic, ic). When rec is not nil it records the
// optimal transition of every state. When published is not nil, m1[il] is
// read only once published has reached il.
func (s *solver) runRow(ic int, rec []choice, row []float64, h *hull, published *mark) float64 {
	n := s.sup.n()
	v, S, c := s.sup.v, s.sup.surv, s.c
	b, rho := 0.0, 0.0
	if ic > 0 {
		b, rho = v[ic], c.R
	}
	k0 := c.Alpha*(rho-b) + c.Beta*rho + c.Gamma
	k1 := k0 + c.Alpha*c.C
	if s.class == AllCkpt {
		// Only two kinds of move: checkpoint at some j < n, or finish at v_n.
		x := S[ic]
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
	row[n] = s.base
	h.reset()
	if rec == nil && s.class == Mixed && s.strict {
		if s.c.Beta == 0 && !math.Signbit(s.c.Beta) {
			return s.rowKernelFastNoBeta(ic, k0, k1, row, h, published)
		}
		return s.rowKernelFast(ic, b, k0, k1, row, h, published)
	}
	return s.rowKernel(ic, b, k0, k1, rec, row, h, published)
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
//   - the recording of transitions, and the published mark, which is
//     waited on once per run of published steps rather than tested at
//     each step;
//
// and it keeps less: the hull's slopes and intercepts in two flat arrays
// (h.fm, h.fq; no milestone ids, which only a recorded row needs), and no
// row but its last value, E(i_c, i_c) (the step before is carried in a
// register). The query keeps the value of the hull's head line at x
// instead of computing it again at each comparison (the same expression,
// so the same value).
func (s *solver) rowKernelFast(ic int, b, k0, k1 float64, row []float64, h *hull, published *mark) float64 {
	n := s.sup.n()
	v, S, slope, bS := s.sup.v[:n+1], s.sup.surv[:n+1], s.slope[:n+1], s.betaS[:n+1]
	m1 := s.m1[:n+1]
	lm, lq := h.flat(n)
	head, top := 0, 0
	prev := row[n]
	for il := n - 1; il >= ic; {
		lo := ic // the steps il … lo read published values of m1 only
		if published != nil {
			lo = max(ic, int(published.wait(int64(il))))
		}
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
	}
	row[ic] = prev
	return prev
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
func (s *solver) rowKernel(ic int, b, k0, k1 float64, rec []choice, row []float64, h *hull, published *mark) float64 {
	n := s.sup.n()
	v, S, slope, bS := s.sup.v[:n+1], s.sup.surv[:n+1], s.slope[:n+1], s.betaS[:n+1]
	m1, j1 := s.m1[:n+1], s.j1[:n+1]
	lines := h.lines[:n+1]
	row = row[:n+1]
	mixed := s.class == Mixed
	seen := int64(math.MinInt64) // published mark last seen (≤ it is final)
	if published != nil {
		seen = math.MaxInt64
	}
	head, top := h.head, h.top
	prev := row[n]
	for il := n - 1; il >= ic; il-- {
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
		if int64(il) < seen {
			seen = published.wait(int64(il))
		}
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
	return row[ic]
}

// rowKernelFastNoBeta is rowKernelFast for β = +0, where the intercept of
// the line of milestone j is E(i_c, j) itself: rowKernelFast's
// prev + βS_j·(v_j − b) adds +0 to prev, which leaves prev unchanged, bit
// for bit, unless prev is −0; and no row value is −0 (row[n] = β·E[Y] =
// +0, and every other is a sum whose first term, m·x + q for a slope
// m = αv_j ≥ 0 and x ≥ 0, is not −0; a float sum is −0 only when both
// terms are). Dropping the term takes two loads and three operations off
// each step.
func (s *solver) rowKernelFastNoBeta(ic int, k0, k1 float64, row []float64, h *hull, published *mark) float64 {
	n := s.sup.n()
	S, slope := s.sup.surv[:n+1], s.slope[:n+1]
	m1 := s.m1[:n+1]
	lm, lq := h.flat(n)
	head, top := 0, 0
	prev := row[n]
	for il := n - 1; il >= ic; {
		lo := ic // the steps il … lo read published values of m1 only
		if published != nil {
			lo = max(ic, int(published.wait(int64(il))))
		}
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
	}
	row[ic] = prev
	return prev
}

// mark is a decreasing index that goroutines wait on: a cheap atomic check
// on the fast path, a short spin, then a condition variable, so that a
// waiting worker does not burn the core its partner needs. It adds up the
// time its waiters spend off the fast path.
type mark struct {
	v       atomic.Int64
	blocked atomic.Int64 // nanoseconds spent waiting beyond the fast path
	mu      sync.Mutex
	cond    *sync.Cond
}

func newMark(v int64) *mark {
	m := &mark{}
	m.v.Store(v)
	m.cond = sync.NewCond(&m.mu)
	return m
}

// wait returns the mark once it is ≤ x.
func (m *mark) wait(x int64) int64 {
	if v := m.v.Load(); v <= x {
		return v
	}
	t0 := time.Now()
	defer func() { m.blocked.Add(int64(time.Since(t0))) }()
	for range 64 {
		runtime.Gosched()
		if v := m.v.Load(); v <= x {
			return v
		}
	}
	m.mu.Lock()
	v := m.v.Load()
	for v > x {
		m.cond.Wait()
		v = m.v.Load()
	}
	m.mu.Unlock()
	return v
}

// lower moves the mark down to x and wakes the waiters.
func (m *mark) lower(x int64) {
	m.mu.Lock()
	m.v.Store(x)
	m.cond.Broadcast()
	m.mu.Unlock()
}

// strategy rebuilds the optimal plan from state (0, 0).
func (s *solver) strategy() Strategy {
	n := s.sup.n()
	rec := make([]choice, n+1)
	s.runRow(0, rec, s.row, &s.hull, nil)
	var out Strategy
	for il := 0; il < n; {
		j, ckpt := rec[il].next()
		out = append(out, Step{Milestone: s.sup.v[j], Checkpoint: ckpt})
		if ckpt && j < n {
			clear(rec)
			s.runRow(j, rec, s.row, &s.hull, nil)
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
