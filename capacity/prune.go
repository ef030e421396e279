package capacity

// Pruning of DP1 by a lower bound on its answer (issue 18).
//
// Along the traceback from the answer G'_m(A), a state Π of layer j has a
// value v with v ⊕ (the gains of J_{j+1}..J_m on the traceback) = the
// answer. A state or a case that cannot reach a lower bound LB of the
// answer (the work of any feasible assignment) by more than a margin is
// therefore never on the traceback, and every candidate built on it loses
// at every state of the traceback by more than the tie tolerance. Leaving
// such states and cases out changes no value and no choice on the
// traceback, hence no decision (TestPrunedUnchanged runs both on random
// instances); what it saves is the table.
//
//   - DPYIELD (⊕ = min): the work x of a value is the least gain of its
//     cases, so a case of gain below LB is dropped (pruneYield), LB being
//     the largest threshold every job can meet at once (yieldLowerBound,
//     exact). The jobs behind in work are left with active cases only, and
//     a job all of whose cases take p_j from a capacity narrows every
//     layer's box by p_j there (knap.boxes, Σ dmin).
//   - The goodput programs (⊕ = +): a state passes if the fractional
//     bound of J_1..J_j at Π plus that of the rest at A − Π reaches LB, a
//     greedy solution's work (goodputLowerBound); knap.narrow keeps the
//     interval of states that pass in each capacity.
//
// The margin is 8·(m + 2) tie tolerances: the tolerance of the comparisons
// lets a value drift by at most one tolerance per layer from the exact
// lexicographic maximum, so a margin of many layers' worth keeps every
// dropped candidate strictly below every candidate of the traceback.

import (
	"cmp"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/optimize"
)

// yieldLowerBound returns the work x of a feasible assignment of DP1 under
// ⊕ = min (the least gain over the jobs of one case each, fitting the
// capacities a1 = Π_1 and a2 = Π_2): the largest gain τ such that every
// job has a case of gain ≥ τ and these fit, found by bisection over the
// gains, first with a greedy feasibility test (O(k) for k cases), then
// above its answer with the exact one (fitsAbove, O(k·a1)); ok is false
// when none was found. Time O(k log k + k·a1·log k).
func yieldLowerBound(opts [][]option, a1, a2 int, vals []float64, f *[]int) (lb float64, ok bool, scratch []float64) {
	vals = vals[:0]
	for _, os := range opts {
		for _, o := range os {
			if !math.IsInf(o.g.x, 0) && !math.IsNaN(o.g.x) {
				vals = append(vals, o.g.x)
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	lo, hi := 0, len(vals)-1 // the answer's index lies in [lo, hi]
	lb = math.Inf(-1)
	for lo <= hi {
		mid := (lo + hi) / 2
		if x, fit := greedyAbove(opts, a1, a2, vals[mid]); fit {
			lb, ok = math.Max(lb, x), true
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if !ok {
		return lb, ok, vals
	}
	// The greedy test may refuse a feasible threshold: the values above
	// its bound are tried with the exact one, up to the least over the
	// jobs of their best gain.
	ub := math.Inf(1)
	for _, os := range opts {
		mx := math.Inf(-1)
		for _, o := range os {
			if o.d[0] <= a1 && o.d[1] <= a2 && o.d[2] == 0 {
				mx = math.Max(mx, o.g.x)
			}
		}
		ub = math.Min(ub, mx)
	}
	lo = slices.Index(vals, lb) + 1
	hi, found := slices.BinarySearch(vals, ub)
	if !found {
		hi--
	}
	for lo <= hi {
		mid := (lo + hi) / 2
		if fitsAbove(opts, a1, a2, vals[mid], f) {
			lb = vals[mid]
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return lb, ok, vals
}

// fitsAbove reports whether every job can take one case of gain ≥ tau
// within the capacities: f[s] is the least Π_2 taken by the jobs so far
// with at most s of Π_1. Time O(k·a1) for k cases.
func fitsAbove(opts [][]option, a1, a2 int, tau float64, f *[]int) bool {
	if cap(*f) < 2*(a1+1) {
		*f = make([]int, 2*(a1+1))
	}
	cur, next := (*f)[:a1+1], (*f)[a1+1:2*(a1+1)]
	for s := range cur {
		cur[s] = 0
	}
	const none = math.MaxInt / 2
jobs:
	for _, os := range opts {
		for _, o := range os {
			// f is non-increasing in s, so a case that takes nothing
			// leaves it as it is.
			if o.g.x >= tau && o.d == [3]int{} {
				continue jobs
			}
		}
		for s := range next {
			next[s] = none
		}
		any := false
		for _, o := range os {
			if !(o.g.x >= tau) || o.d[2] != 0 || o.d[0] > a1 || o.d[1] > a2 {
				continue
			}
			any = true
			for s := o.d[0]; s <= a1; s++ {
				next[s] = min(next[s], cur[s-o.d[0]]+o.d[1])
			}
		}
		if !any || next[a1] > a2 {
			return false
		}
		cur, next = next, cur
	}
	return cur[a1] <= a2
}

// greedyAbove tries to give every job one case of gain ≥ tau within the
// capacities, preferring the cases that take least (none, then Π_2 only,
// then Π_1 only, then both); it returns the least gain of the assignment.
func greedyAbove(opts [][]option, a1, a2 int, tau float64) (float64, bool) {
	x := math.Inf(1)
	for _, os := range opts {
		best, rank := -1, 4
		for oi, o := range os {
			if !(o.g.x >= tau) || o.d[2] != 0 {
				continue
			}
			r := 3
			switch {
			case o.d[0] == 0 && o.d[1] == 0:
				r = 0
			case o.d[0] == 0:
				r = 1
			case o.d[1] == 0:
				r = 2
			}
			if r < rank && o.d[0] <= a1 && o.d[1] <= a2 {
				best, rank = oi, r
			}
		}
		if best < 0 {
			return 0, false
		}
		o := os[best]
		a1, a2 = a1-o.d[0], a2-o.d[1]
		x = math.Min(x, o.g.x)
	}
	return x, true
}

// pruneYield drops from tp.opts the DP1 cases of DPYIELD whose gain is
// below the lower bound of yieldLowerBound by more than the margin, on
// capacities (a1, a2); nothing is dropped without a bound.
func (tp *twoPart) pruneYield(a1, a2 int, init vec) {
	lb, ok, vals := yieldLowerBound(tp.opts, a1, a2, tp.vals, &tp.fit)
	tp.vals = vals
	if !ok {
		return
	}
	cut := lb - 8*float64(len(tp.opts)+2)*tieTolerance(tp.opts, init, true)
	tp.kept = tp.kept[:0]
	n := 0
	for _, os := range tp.opts {
		n += len(os)
	}
	if cap(tp.kept) < n {
		tp.kept = make([]option, 0, n)
	}
	for j, os := range tp.opts {
		start := len(tp.kept)
		for _, o := range os {
			if o.g.x >= cut {
				tp.kept = append(tp.kept, o)
			}
		}
		tp.opts[j] = tp.kept[start:len(tp.kept):len(tp.kept)]
	}
}

// goodputLowerBound returns the work x of a feasible assignment of DP1
// under ⊕ = + (the sum of the gains of one case per job, fitting the
// capacities a1 = Π_1 and a2 = Π_2): every job first takes its cheapest
// case (least processors, then most gain), then the jobs in decreasing
// order of gain per processor of their best case move to the case of most
// gain that still fits. ok is false when the cheapest cases do not fit.
// Time O(k + m log m) for k cases.
func goodputLowerBound(opts [][]option, a1, a2 int, pick []int, order []int) (lb float64, ok bool, _, _ []int) {
	pick, order = pick[:0], order[:0]
	for j, os := range opts {
		best := -1
		for oi, o := range os {
			if o.d[2] != 0 || o.d[0] > a1 || o.d[1] > a2 {
				continue
			}
			if best < 0 {
				best = oi
				continue
			}
			b := os[best]
			if c, cb := o.d[0]+o.d[1], b.d[0]+b.d[1]; c < cb || (c == cb && o.g.x > b.g.x) {
				best = oi
			}
		}
		if best < 0 {
			return 0, false, pick, order
		}
		pick = append(pick, best)
		order = append(order, j)
		a1 -= os[best].d[0]
		a2 -= os[best].d[1]
	}
	if a1 < 0 || a2 < 0 {
		return 0, false, pick, order
	}
	ratio := func(j int) float64 {
		os, b := opts[j], opts[j][pick[j]]
		r := 0.0
		for _, o := range os {
			if w := o.d[0] + o.d[1] - b.d[0] - b.d[1]; w > 0 {
				r = math.Max(r, (o.g.x-b.g.x)/float64(w))
			}
		}
		return r
	}
	rs := make([]float64, len(opts))
	for j := range opts {
		rs[j] = ratio(j)
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case rs[i] > rs[j]:
			return -1
		case rs[i] < rs[j]:
			return 1
		}
		return 0
	})
	for _, j := range order {
		os, c := opts[j], opts[j][pick[j]]
		for oi, o := range os {
			b := os[pick[j]]
			if o.d[2] == 0 && o.g.x > b.g.x && o.d[0]-c.d[0] <= a1 && o.d[1]-c.d[1] <= a2 {
				pick[j] = oi
			}
		}
		n := os[pick[j]]
		a1 -= n.d[0] - c.d[0]
		a2 -= n.d[1] - c.d[1]
	}
	for j, os := range opts {
		lb += os[pick[j]].g.x
	}
	return lb, true, pick, order
}

// narrow shrinks the boxes of a solve under ⊕ = + by the bound k.lb ≤ the
// answer's work (knap.lbOn): a state Π of layer j can be on the traceback
// only if UB_{≤j}(Π) + UB_{>j}(A − Π) ≥ lb − margin. For each capacity q
// the bound is fractional (LP) on q alone, with the other capacity q' priced
// by a multiplier λ ≥ 0 (Lagrangian relaxation): UB_{≤j}(Π) ≤ λ·Π_q' +
// LP_λ(Π_q) with gains g − λ·d_q', and so the test reads λ·A_q' +
// LP_{λ,≤j}(Π_q) + LP_{λ,>j}(A_q − Π_q) ≥ lb − margin. Both curves are
// concave in Π_q, so the states that pass form an interval, which replaces
// the box's; λ = 0 and the λ of a small grid that gives the least bound at
// A are both applied. A state cut at the top is read clamped, as a
// saturated one: G_j is non-decreasing in Π, so the value read is no better
// than the true one, which loses anyway. Capacities whose cases take other
// than 0 or one p_q are left as they are. Time O(m·(m + A_q)) per pass.
func (k *knap) narrow(l layout, flat []flatOpt, start []int, init vec, margin float64) {
	k.nlo = append(k.nlo[:0], k.lo...)
	k.nhi = append(k.nhi[:0], k.hi...)
	for q := range 3 {
		if l.a[q] == 0 {
			continue
		}
		qo := -1
		for r := range 3 {
			if r != q && l.a[r] > 0 {
				qo = r
			}
		}
		lams := []float64{0}
		if qo >= 0 {
			if bl := k.bestLambda(l, flat, start, init, q, qo); bl > 0 {
				lams = append(lams, bl)
			}
		}
		for _, lam := range lams {
			if !k.narrowPass(l, flat, start, init, q, qo, lam, k.lb-margin) {
				return // no state passes: lb was no bound; keep the boxes
			}
		}
	}
	copy(k.lo, k.nlo)
	copy(k.hi, k.nhi)
}

// bestLambda returns the multiplier of capacity qo that gives about the
// least bound at A on capacity q: the bound is convex in λ (a Lagrangian
// dual), searched by golden section over [0, lb/A_q] in 10 steps.
func (k *knap) bestLambda(l layout, flat []flatOpt, start []int, init vec, q, qo int) float64 {
	f := func(lam float64) float64 { return k.lpBound(l, flat, start, init, q, qo, lam) }
	b := optimize.Golden{Steps: 10, Ties: optimize.TiesLeft}.Minimize(f, 0, math.Max(k.lb, 0)/float64(l.a[q]))
	best, lam := f(0), 0.0
	if m := (b.Lo + b.Hi) / 2; f(m) < best {
		lam = m
	}
	return lam
}

// lpJobs fills k.jobs with the jobs of the bound on capacity q, the other
// capacity qo priced at lam; false when a job does not fit lpJob.
func (k *knap) lpJobs(flat []flatOpt, start []int, q, qo int, lam float64) bool {
	k.jobs = k.jobs[:0]
	for j := range len(start) - 1 {
		lj, ok := lpJobOf(flat[start[j]:start[j+1]], q, qo, lam)
		if !ok {
			return false
		}
		k.jobs = append(k.jobs, lj)
	}
	return true
}

// lpBound is the bound of all the jobs at A: λ·A_qo + LP_λ(A_q) (+∞ when
// the jobs do not fit lpJob).
func (k *knap) lpBound(l layout, flat []flatOpt, start []int, init vec, q, qo int, lam float64) float64 {
	if !k.lpJobs(flat, start, q, qo, lam) {
		return math.Inf(1)
	}
	k.segs = k.segs[:0]
	base, fixed := init.x, 0
	for _, j := range k.jobs {
		base += j.b
		switch {
		case !j.free:
			fixed += j.w
		case j.w > 0:
			k.segs = append(k.segs, lpSeg{w: j.w, dg: j.dg, r: j.dg / float64(j.w)})
		}
	}
	slices.SortFunc(k.segs, func(s, t lpSeg) int { return cmp.Compare(t.r, s.r) })
	if fixed > l.a[q] {
		return math.Inf(-1)
	}
	v, c := base, l.a[q]-fixed
	for _, s := range k.segs {
		if c >= s.w {
			v, c = v+s.dg, c-s.w
			continue
		}
		v += s.dg * float64(c) / float64(s.w)
		break
	}
	return v + lam*float64(l.a[qo])
}

// narrowPass narrows k.nlo, k.nhi on capacity q with the multiplier lam of
// capacity qo (−1: none); false when no state of a layer passes. The
// curves of the prefixes and suffixes are built one job at a time
// (lpInsert, O(A_q + m) each).
func (k *knap) narrowPass(l layout, flat []flatOpt, start []int, init vec, q, qo int, lam, thr float64) bool {
	m, a := len(start)-1, l.a[q]
	if !k.lpJobs(flat, start, q, qo, lam) {
		return true
	}
	if qo >= 0 {
		thr -= lam * float64(l.a[qo])
	}
	// suffix curves: suf[j] = LP over jobs j..m−1 (0-based), j = 0..m.
	need := (m + 1) * (a + 1)
	if need > maxBoundCurves {
		return true // the bound is skipped rather than its memory spent
	}
	if cap(k.suf) < need {
		k.suf = make([]float64, need)
	}
	k.suf = k.suf[:need]
	last := k.suf[m*(a+1):]
	for c := range last {
		last[c] = 0
	}
	k.segs = k.segs[:0]
	fixed := 0
	for j := m - 1; j >= 0; j-- {
		row := k.suf[j*(a+1) : (j+1)*(a+1)]
		copy(row, k.suf[(j+1)*(a+1):(j+2)*(a+1)])
		fixed = lpInsert(row, &k.segs, fixed, k.jobs[j])
	}
	if cap(k.pre) < a+1 {
		k.pre = make([]float64, a+1)
	}
	pre := k.pre[:a+1]
	for c := range pre {
		pre[c] = init.x
	}
	k.segs = k.segs[:0]
	fixed = 0
	for j := 0; j <= m; j++ {
		if j > 0 {
			fixed = lpInsert(pre, &k.segs, fixed, k.jobs[j-1])
		}
		suf := k.suf[j*(a+1) : (j+1)*(a+1)]
		lo, hi := k.nlo[j][q], k.nhi[j][q]
		for lo <= hi && !(pre[lo]+suf[a-lo] >= thr) {
			lo++
		}
		for hi >= lo && !(pre[hi]+suf[a-hi] >= thr) {
			hi--
		}
		if lo > hi {
			return false
		}
		k.nlo[j][q], k.nhi[j][q] = lo, hi
	}
	return true
}

// maxBoundCurves bounds the suffix curves of narrowPass (entries, 8 bytes
// each): beyond, a layer is not narrowed on that capacity.
const maxBoundCurves = 1 << 24

// lpInsert adds job j to the fractional bound curve (curve[c] at capacity
// c, −∞ below fixed; segs its increments in decreasing order of gain per
// processor) and returns the new fixed. A job that always takes w shifts
// the curve right by w; an increment of slope r inserted where the taken
// increments of slope ≥ r end (at capacity pos) leaves the curve below pos,
// rises at r over [pos, pos + w], and shifts the rest right by w.
func lpInsert(curve []float64, segs *[]lpSeg, fixed int, j lpJob) int {
	a := len(curve) - 1
	if !j.free {
		for c := a; c >= 0; c-- {
			if c >= j.w {
				curve[c] = curve[c-j.w] + j.b
			} else {
				curve[c] = math.Inf(-1)
			}
		}
		return fixed + j.w
	}
	if j.w > 0 {
		s := lpSeg{w: j.w, dg: j.dg, r: j.dg / float64(j.w)}
		r := s.r
		pos, i := fixed, 0
		for i < len(*segs) && (*segs)[i].r >= r {
			pos += (*segs)[i].w
			i++
		}
		*segs = slices.Insert(*segs, i, s)
		for c := a; c >= pos; c-- {
			if c >= pos+s.w {
				curve[c] = curve[c-s.w] + s.dg
			} else {
				curve[c] = curve[pos] + float64(c-pos)*r
			}
		}
	}
	if j.b != 0 {
		for c := fixed; c <= a; c++ {
			curve[c] += j.b
		}
	}
	return fixed
}

// lpJob is a job of the fractional bound on one capacity: it takes w (or
// nothing, when free) and gains b without it, b + dg with it.
type lpJob struct {
	w     int
	b, dg float64
	free  bool // a case takes nothing from the capacity
}

// lpJobOf reads job's cases on capacity q, their gains less lam per
// processor of capacity qo (−1: none); ok is false when they take other
// amounts than 0 and one w.
func lpJobOf(os []flatOpt, q, qo int, lam float64) (lpJob, bool) {
	var j lpJob
	b, a := math.Inf(-1), math.Inf(-1)
	for _, o := range os {
		d, x := o.d[q], o.x
		if qo >= 0 {
			x -= lam * float64(o.d[qo])
		}
		switch {
		case d == 0:
			b = math.Max(b, x)
		case j.w == 0 || d == j.w:
			j.w = d
			a = math.Max(a, x)
		default:
			return j, false
		}
	}
	if len(os) == 0 {
		return j, false
	}
	j.free = !math.IsInf(b, -1)
	switch {
	case !j.free:
		j.b = a
	case math.IsInf(a, -1) || a <= b:
		j.b, j.w = b, 0
	default:
		j.b, j.dg = b, a-b
	}
	return j, true
}

// lpSeg is an increment of the fractional bound: dg more for w processors.
type lpSeg struct {
	w     int
	dg, r float64 // r = dg/w
}
