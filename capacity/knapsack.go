package capacity

// Glossary of knapsack.go, from the code's names to the paper's symbols
// (Section 4.2, Appendix D):
//
//	A, a        the capacities of the answer: (Π_1, Π_2, Π_3) at the top of
//	            the table, e.g. (P_i − Σ_{Run^(0)} p_j, P_i) for DP1 and
//	            max(P_i − δ, P_min) for DP2; a is A in loop order (perm)
//	x0, x1, x2  a state Π in loop order (x2 innermost)
//	G_j         the value layer of jobs J_1..J_j: G'_j of DP1, H_j of DP2,
//	            G_j of DPGOODPUTSLOW; cur is G_j, prev is G_{j−1}
//	init, leaf  G_0 (leaf: G_0 depending on Π, the una test of D.4)
//	opts[j], os the cases (1)–(10) (or (1)–(15), or the two of H) of J_j
//	d           the processors a case takes from (Π_1, Π_2, Π_3): p_j or 0
//	g, (x,y,z)  the gain of a case, ⊕-added to G_{j−1}(Π − d): work
//	            p_j·l_j (x) then the tie-breaking counts (y, z) of App. D
//	useMin      ⊕ = (min, +, +) of DPYIELD instead of +
//	lo, hi      the box of states computed in a layer: L_j and U_j
//	plo, phi    the box of G_{j−1} (lo and hi of the previous layer): a
//	            predecessor below plo is −∞ (skipped); a state above phi
//	            reads G_{j−1} at phi (G_{j−1} is constant there)
//	base, pbase the flat index of a row of G_j and of its predecessor row
//	            Π − d in G_{j−1}
//	s0, s1      strides of the flat table for x0 and x1
//	choice, ch  the traceback: the case chosen for J_j at each state
//	tolAbs      the tie tolerance on work (1e-9 of the largest value)

import (
	"errors"
	"math"
)

// vec is the value of a dynamic program: compared lexicographically on
// (x, y, z), x with a relative tolerance (it is a float sum whose order of
// summation differs between equivalent solutions), y and z exactly. The
// goodput programs use (work, active jobs, checkpointed jobs); DPYIELD uses
// (minimum work, processors of min-yield jobs, processors used).
type vec struct{ x, y, z float64 }

func feq(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*(1+math.Max(math.Abs(a), math.Abs(b)))
}

// better reports a >_lex b.
func better(a, b vec) bool {
	if !feq(a.x, b.x) {
		return a.x > b.x
	}
	if a.y != b.y {
		return a.y > b.y
	}
	return a.z > b.z
}

// option is one case of a job in a knapsack DP: the processors it takes
// from each capacity and its gain.
type option struct {
	d    [3]int
	g    vec
	code uint8 // the case number reported back
}

// knap is the multi-capacity knapsack shared by every dynamic program of
// Section 4 and Appendix D: G_j(Π) = max_lex over the options o of job j of
// g_o ⊕ G_{j−1}(Π − d_o), G_0(Π) = init for Π ≥ 0, −∞ outside. With a
// capacity vector of up to three entries (Π_1, Π_2, Π_3) it is the
// DPGOODPUTSLOW table; (Π_1, Π_2) is DP1 and (Π_3) is DP2. ⊕ is + (goodput,
// DPBiC) or (min, +, +) (DPYIELD).
//
// Only the states that matter are computed, which changes no value and no
// choice:
//   - above U_j = Σ_{i≤j} max_o d_o (per capacity) every assignment of
//     J_1..J_j fits, so G_j(Π) = G_j(min(Π, U_j)): layer j is stored up to
//     U_j and read clamped (not with leaf, whose G_0 depends on Π);
//   - below L_j = A − Σ_{i>j} max_o d_o no state is reachable from the
//     answer at A, so layer j starts at L_j;
//   - below Σ_{i≤j} min_o d_o no assignment fits and above A − Σ_{i>j}
//     min_o d_o no state is reachable (jobs that must take processors);
//   - with a lower bound on the answer (lbOn, prune.go), the states whose
//     fractional bound cannot reach it are left out (narrow).
//
// With Load = 2 (Σ_j p_j ≈ 2·P_max) DP1 computes 46–65% of the (Π_1, Π_2)
// square on the workloads of `ckpt repro capacity`. Values are a float x
// and the pair (y, z) of non-negative integers packed as y·2³² + z, so that
// the lexicographic comparison of (y, z) is one integer comparison. The
// innermost loop runs over the last capacity that is not zero (Π_2 in
// DP1), a row at a time: the first option of the job that applies to the
// row assigns, the next ones relax in the order of Appendix D (ties keep
// the earliest), so every state sees its options in the same order as a
// plain state-by-state program and the results are bit-identical to it
// (TestPlansUnchanged). Scratch memory is kept between calls: two value
// layers of Π(A_k+1) entries and one byte of traceback per job and state.
// Time O(m · options · Π(A_k+1)), about half of it in practice.
type knap struct {
	prev, cur []cell
	choice    []uint8
	lo, hi    [][3]int // per job layer (index j+1; 0 is G_0): computed box
	live      [][]option
	liveIdx   []int
	// leaf, when set, replaces init: G_0 at capacity (x0, x1, x2).
	leaf func(x0, x1, x2 int) vec
	// tooBig reports that the last solve was refused for its memory.
	tooBig bool
	// lb, when lbOn, is a lower bound on the answer's work (a feasible
	// assignment's) by which narrow shrinks the boxes under ⊕ = +; the
	// rest is its scratch (prune.go).
	lb       float64
	lbOn     bool
	jobs     []lpJob
	segs     []lpSeg
	suf, pre []float64
	nlo, nhi [][3]int
	// cells counts the cell updates of every solve (states of a layer's
	// box × the job's options, summed): the work the benchmarks report.
	cells int64
}

// cell is a DP value: x and the packed pair k = y·2³² + z. A state that no
// assignment reaches keeps x = −∞ (and k = −1); it is never read as a
// predecessor.
type cell struct {
	x float64
	k int64
}

func pack(v vec) int64 { return int64(v.y)<<32 | int64(v.z) }

func unpack(c cell) vec {
	if math.IsInf(c.x, -1) {
		return negInf
	}
	return vec{c.x, float64(c.k >> 32), float64(c.k & (1<<32 - 1))}
}

// maxTable bounds the memory a solve allocates (bytes): the traceback, one
// byte per job and state, and the two value layers, cellBytes per state
// each (tableBytes). A solve above it is refused before allocating.
const maxTable = 1 << 31

// cellBytes is the size of a cell (unsafe.Sizeof(cell{})).
const cellBytes = 16

// tableBytes is the memory of a solve over m job layers of n states:
// m·n bytes of traceback and two layers of n cells.
func tableBytes(m int, n float64) float64 { return n * (float64(m) + 2*cellBytes) }

// tableStates is the number of states of the largest table the dynamic
// program of spec fills on pl at P_i = P_max with no job running (every
// section may be such): (P_max+1)² for DP1, times Keep(P_max)+1 for
// DPGOODPUTSLOW and times unaLevels+1 for TARGETGOODPUT; 0 for the greedy
// algorithms and for a bad spec.
func tableStates(spec string, pl Platform) float64 {
	a, err := New(spec)
	if err != nil {
		return 0
	}
	p := float64(pl.PMax + 1)
	switch a.(type) {
	case *GreedyGoodput, *GreedyYield:
		return 0
	case *DPGoodputSlow:
		return p * p * float64(pl.Keep(pl.PMax)+1)
	case *TargetGoodput:
		return p * p * (unaLevels + 1)
	}
	return p * p
}

// MaxPMax returns the largest P_max (at most MaxProcessors) on which the
// dynamic program of spec fits its tables of one job in 2 GiB, the other
// parameters as in pr: above it every section at P_i = P_max is refused
// (DP1 stops near 8 000 processors, TARGETGOODPUT near 1 000,
// DPGOODPUTSLOW near 400). Binary search over P_max, O(log P_max).
func MaxPMax(spec string, pr Params) int {
	fits := func(pmax int) bool {
		q := pr
		q.PMax = pmax
		return tableBytes(1, tableStates(spec, q.Platform())) <= maxTable
	}
	lo, hi := 1, MaxProcessors // fits(lo) is assumed; the answer is in [lo, hi]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

var errTooLarge = errors.New("instance too large: the dynamic program would need more than 2 GiB of tables (m + 32 bytes per state for m jobs: about P² states on P processors, P³ for dp-goodput-slow)")

var negInf = vec{math.Inf(-1), 0, 0}

// solve returns the best value at capacity A and the chosen option code of
// every job, or ok = false when no assignment fits. opts[j] lists job j's
// options; ties keep the earliest option. The y and z of init, leaf and
// the gains must be non-negative integers below 2³¹ (counts of jobs or
// processors).
//
// A job whose only option takes nothing and gains the neutral element (a
// finite job that is done or not yet released: gain 0, or +∞ under min)
// leaves every value unchanged, so its layer is skipped: with finite jobs
// most of the instance's jobs are such, and the time no longer grows with
// the number of jobs completed.
func (k *knap) solve(A [3]int, opts [][]option, init vec, useMin bool) (vec, []uint8, bool) {
	for i := range A {
		if A[i] < 0 {
			return negInf, nil, false
		}
	}
	neutral := func(os []option) bool {
		if len(os) != 1 || os[0].d != [3]int{} || os[0].g.y != 0 || os[0].g.z != 0 {
			return false
		}
		if useMin {
			return math.IsInf(os[0].g.x, 1)
		}
		return os[0].g.x == 0
	}
	skip := 0
	for _, os := range opts {
		if neutral(os) {
			skip++
		}
	}
	if skip == 0 {
		return k.solveLayers(A, opts, init, useMin)
	}
	// The tie tolerance below depends on the gains' magnitudes, to which
	// neutral layers add nothing.
	k.live, k.liveIdx = k.live[:0], k.liveIdx[:0]
	for j, os := range opts {
		if !neutral(os) {
			k.live, k.liveIdx = append(k.live, os), append(k.liveIdx, j)
		}
	}
	best, lc, ok := k.solveLayers(A, k.live, init, useMin)
	if !ok {
		return best, nil, false
	}
	codes := make([]uint8, len(opts))
	for j, os := range opts {
		codes[j] = os[0].code
	}
	for i, j := range k.liveIdx {
		codes[j] = lc[i]
	}
	return best, codes, true
}

// layout is the geometry of one solve: the capacities in loop order and
// the strides of the flat table.
type layout struct {
	perm   [3]int // perm[q]: the capacity (index into Π) at loop depth q
	a      [3]int // a[q] = A[perm[q]]: the answer's capacities in loop order
	s0, s1 int    // strides of depths 0 and 1 (depth 2 has stride 1)
	n      int    // states per layer, Π(a[q]+1)
}

// newLayout puts the capacities that are 0 outermost, so that the
// innermost loop is long.
func newLayout(A [3]int) layout {
	var l layout
	l.perm = [3]int{0, 1, 2}
	if A[2] == 0 {
		l.perm = [3]int{2, 0, 1}
		if A[1] == 0 {
			l.perm = [3]int{1, 2, 0}
		}
	}
	for q := range l.a {
		l.a[q] = A[l.perm[q]]
	}
	l.s1 = l.a[2] + 1
	l.s0 = (l.a[1] + 1) * l.s1
	l.n = (l.a[0] + 1) * l.s0
	return l
}

// flatOpt is an option in loop order, its gain packed as in cell.
type flatOpt struct {
	d    [3]int
	x    float64
	k    int64
	code uint8 // index of the option in the job's list
}

// flatten keeps the options that fit in the answer's capacities, in loop
// order: job j's are flat[start[j]:start[j+1]]; dmax[j] and dmin[j] are the
// most and the least job j takes from each capacity.
func flatten(opts [][]option, l layout) (flat []flatOpt, start []int, dmax, dmin [][3]int) {
	m := len(opts)
	start = make([]int, m+1)
	for j, os := range opts {
		start[j] = len(flat)
		var dm [3]int
		dn := [3]int{-1, -1, -1}
		for oi, o := range os {
			var d [3]int
			fit := true
			for q := range d {
				d[q] = o.d[l.perm[q]]
				fit = fit && d[q] <= l.a[q]
			}
			if !fit {
				continue
			}
			flat = append(flat, flatOpt{d, o.g.x, pack(o.g), uint8(oi)})
			for q := range dm {
				dm[q] = max(dm[q], d[q])
				if dn[q] < 0 || d[q] < dn[q] {
					dn[q] = d[q]
				}
			}
		}
		for q := range dn {
			dn[q] = max(dn[q], 0)
		}
		dmax, dmin = append(dmax, dm), append(dmin, dn)
	}
	start[m] = len(flat)
	return flat, start, dmax, dmin
}

// boxes sets k.lo[j], k.hi[j], the states computed in layer j (0 is G_0):
// from L_j = max(A − Σ_{i>j} dmax_i, Σ_{i≤j} dmin_i) up to U_j =
// min(Σ_{i≤j} dmax_i, A − Σ_{i>j} dmin_i) (from the whole range with a
// leaf, whose G_0 depends on every capacity). Below Σ_{i≤j} dmin_i no
// assignment of J_1..J_j fits (G_j = −∞, and the next layer reads no state
// below L_j); above A − Σ_{i>j} dmin_i no state is reachable from the
// answer. It reports false when Σ_j dmin_j exceeds A: nothing fits.
func (k *knap) boxes(l layout, dmax, dmin [][3]int) bool {
	m := len(dmax)
	k.lo, k.hi = k.lo[:0], k.hi[:0]
	var up, rest, below, above [3]int
	for j := range m {
		for q := range rest {
			rest[q] += dmax[j][q]
			above[q] += dmin[j][q]
		}
	}
	for q := range above {
		if above[q] > l.a[q] {
			return false
		}
	}
	for j := 0; j <= m; j++ {
		if j > 0 {
			for q := range up {
				up[q] += dmax[j-1][q]
				rest[q] -= dmax[j-1][q]
				below[q] += dmin[j-1][q]
				above[q] -= dmin[j-1][q]
			}
		}
		var lo, hi [3]int
		for q := range lo {
			hi[q] = min(l.a[q], up[q])
			if k.leaf != nil {
				hi[q] = l.a[q]
			}
			hi[q] = min(hi[q], l.a[q]-above[q])
			lo[q] = max(0, below[q], min(l.a[q]-rest[q], hi[q]))
		}
		k.lo, k.hi = append(k.lo, lo), append(k.hi, hi)
	}
	return true
}

// initLayer writes G_0 (init, or the leaf) into k.prev over box 0.
func (k *knap) initLayer(l layout, init vec) {
	lo, hi := k.lo[0], k.hi[0]
	ik := pack(init)
	for x0 := lo[0]; x0 <= hi[0]; x0++ {
		for x1 := lo[1]; x1 <= hi[1]; x1++ {
			row := k.prev[x0*l.s0+x1*l.s1:]
			for x2 := lo[2]; x2 <= hi[2]; x2++ {
				if k.leaf == nil {
					row[x2] = cell{init.x, ik}
					continue
				}
				var x [3]int
				x[l.perm[0]], x[l.perm[1]], x[l.perm[2]] = x0, x1, x2
				v := k.leaf(x[0], x[1], x[2])
				row[x2] = cell{v.x, pack(v)}
			}
		}
	}
}

// tieTolerance is the absolute tolerance of the work comparisons: 1e-9 of
// the largest magnitude a value can reach (the sum of the jobs' largest
// gains, or their maximum under min).
func tieTolerance(opts [][]option, init vec, useMin bool) float64 {
	scale := 0.0
	if !math.IsInf(init.x, 0) {
		scale = math.Abs(init.x)
	}
	for _, os := range opts {
		mx := 0.0
		for _, o := range os {
			if !math.IsInf(o.g.x, 0) {
				mx = math.Max(mx, math.Abs(o.g.x))
			}
		}
		if useMin {
			scale = math.Max(scale, mx)
		} else {
			scale += mx
		}
	}
	return 1e-9 * (1 + scale)
}

// solveLayers is solve over every layer of opts.
func (k *knap) solveLayers(A [3]int, opts [][]option, init vec, useMin bool) (vec, []uint8, bool) {
	l := newLayout(A)
	m, n := len(opts), l.n
	if tableBytes(m, float64(n)) > maxTable {
		k.tooBig = true
		return negInf, nil, false
	}
	k.tooBig = false
	k.prev = growCells(k.prev, n)
	k.cur = growCells(k.cur, n)
	if cap(k.choice) < m*n {
		k.choice = make([]uint8, m*n)
	}
	k.choice = k.choice[:m*n]
	flat, start, dmax, dmin := flatten(opts, l)
	if !k.boxes(l, dmax, dmin) {
		return negInf, nil, false
	}
	k.initLayer(l, init)
	tolAbs := tieTolerance(opts, init, useMin)
	if k.lbOn && !useMin && k.leaf == nil {
		k.narrow(l, flat, start, init, 8*float64(m+2)*tolAbs)
	}
	for j := range m {
		lo, hi := k.lo[j+1], k.hi[j+1]
		k.cells += int64(start[j+1]-start[j]) * int64(hi[0]-lo[0]+1) * int64(hi[1]-lo[1]+1) * int64(hi[2]-lo[2]+1)
		k.layer(l, j, flat[start[j]:start[j+1]], tolAbs, useMin)
		k.prev, k.cur = k.cur, k.prev
	}
	return k.traceback(l, opts)
}

// layer computes G_j (j is 0-based: layer j+1) into k.cur from G_{j−1} in
// k.prev, over box j+1, one row of the innermost capacity at a time: the
// predecessor row of option o is (x0 − d0, x1 − d1) clamped to the
// previous box phi. (One function: a call per row and option would slow
// the innermost loop measurably.)
func (k *knap) layer(l layout, j int, os []flatOpt, tolAbs float64, useMin bool) {
	ch := k.choice[j*l.n : (j+1)*l.n]
	cur, prev := k.cur, k.prev
	lo, hi, plo, phi := k.lo[j+1], k.hi[j+1], k.lo[j], k.hi[j]
	unset := cell{math.Inf(-1), -1}
	for x0 := lo[0]; x0 <= hi[0]; x0++ {
		for x1 := lo[1]; x1 <= hi[1]; x1++ {
			base := x0*l.s0 + x1*l.s1
			// The first option that applies assigns (the relaxation of an
			// unset state takes any reachable candidate); the next ones
			// relax. States no option reaches stay −∞.
			first := true
			for oi := range os {
				o := &os[oi]
				if x0-o.d[0] < plo[0] || x1-o.d[1] < plo[1] {
					continue
				}
				p0, p1 := min(x0-o.d[0], phi[0]), min(x1-o.d[1], phi[1])
				pbase := p0*l.s0 + p1*l.s1
				// Direct part: x2 − d2 ≤ phi[2]; beyond, G_{j−1} is
				// constant at phi[2].
				a2, b2 := max(lo[2], o.d[2]+plo[2]), min(hi[2], phi[2]+o.d[2])
				c2 := max(lo[2], o.d[2], phi[2]+o.d[2]+1)
				if first {
					first = false
					for i := lo[2]; i < min(a2, hi[2]+1); i++ {
						cur[base+i] = unset
					}
					if a2 <= b2 {
						assignRun(cur[base+a2:base+b2+1], prev[pbase+a2-o.d[2]:pbase+b2+1-o.d[2]], ch[base+a2:base+b2+1], o.x, o.k, o.code, useMin)
					}
					if c2 <= hi[2] {
						assignRun(cur[base+c2:base+hi[2]+1], prev[pbase+phi[2]:pbase+phi[2]+1], ch[base+c2:base+hi[2]+1], o.x, o.k, o.code, useMin)
					}
					continue
				}
				if a2 <= b2 {
					if useMin {
						relaxMin(cur[base+a2:base+b2+1], prev[pbase+a2-o.d[2]:pbase+b2+1-o.d[2]], ch[base+a2:base+b2+1], o.x, o.k, o.code, tolAbs)
					} else {
						relaxAdd(cur[base+a2:base+b2+1], prev[pbase+a2-o.d[2]:pbase+b2+1-o.d[2]], ch[base+a2:base+b2+1], o.x, o.k, o.code, tolAbs)
					}
				}
				if c2 <= hi[2] {
					relaxConst(cur[base+c2:base+hi[2]+1], prev[pbase+phi[2]], ch[base+c2:base+hi[2]+1], o.x, o.k, o.code, tolAbs, useMin)
				}
			}
			if first {
				for i := lo[2]; i <= hi[2]; i++ {
					cur[base+i] = unset
				}
			}
		}
	}
}

// traceback reads the answer G_m(A) in k.prev and the option of every job,
// from J_m down, clamping each state to its layer's box.
func (k *knap) traceback(l layout, opts [][]option) (vec, []uint8, bool) {
	m, a := len(opts), l.a
	hiM := k.hi[m]
	best := unpack(k.prev[min(a[0], hiM[0])*l.s0+min(a[1], hiM[1])*l.s1+min(a[2], hiM[2])])
	if math.IsInf(best.x, -1) {
		return best, nil, false
	}
	codes := make([]uint8, m)
	x := a
	for j := m - 1; j >= 0; j-- {
		hi := k.hi[j+1]
		for q := range x {
			x[q] = min(x[q], hi[q])
		}
		idx := x[0]*l.s0 + x[1]*l.s1 + x[2]
		o := opts[j][k.choice[j*l.n+idx]]
		codes[j] = o.code
		for q := range x {
			x[q] -= o.d[l.perm[q]]
		}
	}
	return best, codes, true
}

func growCells(s []cell, n int) []cell {
	if cap(s) < n {
		return make([]cell, n)
	}
	return s[:n]
}

// assignRun is the first option of a row: cur[i] = g ⊕ prev[i] (or ⊕
// prev[0] for all i when prev has one entry: the clamped part), −∞ where
// prev is −∞.
func assignRun(cur, prev []cell, ch []uint8, gx float64, gk int64, code uint8, useMin bool) {
	ninf := math.Inf(-1)
	ch = ch[:len(cur)]
	if len(prev) == 1 && len(cur) > 1 {
		p := prev[0]
		c := cell{ninf, -1}
		if p.x != ninf {
			c = cell{p.x + gx, p.k + gk}
			if useMin {
				c.x = min(p.x, gx)
			}
		}
		for i := range cur {
			cur[i] = c
			ch[i] = code
		}
		return
	}
	prev = prev[:len(cur)]
	for i := range cur {
		p := prev[i]
		if p.x == ninf {
			cur[i] = cell{ninf, -1}
			continue
		}
		cx := p.x + gx
		if useMin {
			cx = min(p.x, gx)
		}
		cur[i] = cell{cx, p.k + gk}
		ch[i] = code
	}
}

// relaxAdd is the inner loop of knap.solve for ⊕ = +:
// cur[i] = max_lex(cur[i], g ⊕ prev[i]), recording code on a strict gain.
// Work is compared within tolAbs, then the packed (y, z).
func relaxAdd(cur, prev []cell, ch []uint8, gx float64, gk int64, code uint8, tolAbs float64) {
	prev = prev[:len(cur)]
	ch = ch[:len(cur)]
	ninf := math.Inf(-1)
	for i := range cur {
		p := prev[i]
		if p.x == ninf {
			continue
		}
		cx, ck := p.x+gx, p.k+gk
		d := cx - cur[i].x
		if d > tolAbs || (d >= -tolAbs && ck > cur[i].k) {
			cur[i] = cell{cx, ck}
			ch[i] = code
		}
	}
}

// relaxMin is relaxAdd for ⊕ = (min, +, +) (DPYIELD); the builtin min
// is math.Min (NaN and −0 included).
func relaxMin(cur, prev []cell, ch []uint8, gx float64, gk int64, code uint8, tolAbs float64) {
	prev = prev[:len(cur)]
	ch = ch[:len(cur)]
	ninf := math.Inf(-1)
	for i := range cur {
		p := prev[i]
		if p.x == ninf {
			continue
		}
		cx, ck := min(p.x, gx), p.k+gk
		d := cx - cur[i].x
		if d > tolAbs || (d >= -tolAbs && ck > cur[i].k) {
			cur[i] = cell{cx, ck}
			ch[i] = code
		}
	}
}

// relaxConst is the relaxation against one previous value p (the clamped
// part of a layer).
func relaxConst(cur []cell, p cell, ch []uint8, gx float64, gk int64, code uint8, tolAbs float64, useMin bool) {
	if math.IsInf(p.x, -1) {
		return
	}
	ch = ch[:len(cur)]
	cx, ck := p.x+gx, p.k+gk
	if useMin {
		cx = min(p.x, gx)
	}
	for i := range cur {
		d := cx - cur[i].x
		if d > tolAbs || (d >= -tolAbs && ck > cur[i].k) {
			cur[i] = cell{cx, ck}
			ch[i] = code
		}
	}
}
