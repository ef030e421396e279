package arbiter

import (
	"math"
	"sync"
)

// LeastWaste is the arbiter of Section III-E: at each token release it
// grants the token to the request whose selection minimises the expected
// waste W_i inflicted on the other candidates.
//
// Derivation (per candidate j ≠ i, in node-seconds, if i holds the token
// for v = v_i, or v = C_i for a checkpoint):
//
//   - j waits for an input/output/recovery/regular transfer (C_IO): it
//     is idle for its d_j = now − request time already spent plus v, so
//     W_i(j) = q_j (d_j + v)                               [node·s]
//   - j waits for a checkpoint token and keeps computing (C_Ckpt): it
//     fails during v with probability v/μ_j = v q_j/μ_ind and then loses
//     R_j + d_j + v/2 seconds (recovery, the work since its last
//     checkpoint d_j = now − last checkpoint, half the wait) on q_j nodes:
//     W_i(j) = (v q_j/μ_ind) · q_j (R_j + d_j + v/2)       [node·s]
//
// W_i = Σ_{j≠i} W_i(j). This is the sum of the per-job wastes that the
// paper states in the text. Its Equations (1) and (2) factor v out of both
// sums — W_i = v (Σ q_j (d_j + v) + Σ q_j²/μ_ind (R_j + d_j + v/2)) — which
// is right for the checkpoint sum (v · q²/μ · s = node·s, q counted
// dimensionless) but multiplies the idle term by a time: v · q_j (d_j+v)
// has dimension node·s², so the two sums are added in different units and
// the idle term is over-weighted by the factor v (seconds, so by ~10³
// for Cielo's checkpoints). We implement the consistent form; Printed
// selects Equations (1)–(2) exactly as printed (iosim's strategy and the
// coordinator's policy "least-waste-printed").
//
// Ties go to the earlier request (smaller Seq). Cost O(n) per candidate;
// Pick's decision O(n) for n waiting requests (pickFiltered: O(n) sums
// rule out all but the candidates within rounding of the least W_i, which
// are scored exactly), O(n²) under Swapped.
//
// Swapped ranks as the authors' simulator does
// (SimOrderedIOCoop::heuristic, src/Simulation.C lines 510–538 of
// SMURFSorg/InterferingCheckpoints): the terms are swapped — a job waiting
// for a checkpoint costs the idle term q_j (d_j + v) with d_j = now − its
// last checkpoint (line 531), a job waiting for any other transfer the
// risk term q_j²/μ_ind (C_j + d_j + v/2) with d_j = now − its request
// (line 533) — and neither sum is multiplied by v.
type LeastWaste struct {
	// Printed evaluates Equations (1)–(2) as printed.
	Printed bool
	// Swapped evaluates the authors' heuristic (see above); it takes
	// precedence over Printed.
	Swapped bool
	// IntegerRisk, with Swapped, computes the heuristic as the authors'
	// code does: the risk coefficient of a waiting non-checkpoint request
	// is ⌊q_j²/⌈1000·μ_ind⌉⌋ rather than q_j²/μ_ind, because it is an
	// integer division there (nb_nodes is an int and mtbf_ind an int64 in
	// milliseconds, src/Simulation.C line 533), so it is 0 for any
	// q_j² < μ_ind in ms (every platform of the paper), and ties go to the
	// smaller Order, as their strict "<" over a std::set ordered by job
	// index and run (operator<, line 473; select_next_io_task, lines 545–558)
	// gives them. With
	// no checkpoint waiting every candidate scores 0 and the request of
	// the job earliest in the list is served first.
	IntegerRisk bool
}

// Pick returns the index of the request with least expected waste.
func (lw LeastWaste) Pick(now float64, w []Request, env Env) int {
	if !lw.Swapped {
		return lw.pick(now, w, env.NodeMTBF)
	}
	best, bestW := 0, 0.0
	for i := range w {
		wi := lw.Waste(now, w, i, env.NodeMTBF)
		if i == 0 || wi < bestW || (wi == bestW && lw.before(w[i], w[best])) {
			best, bestW = i, wi
		}
	}
	return best
}

// Waste is W_i, the expected waste inflicted on the other waiting requests
// if request i gets the token at time now, for node MTBF mu.
func (lw LeastWaste) Waste(now float64, w []Request, i int, mu float64) float64 {
	v := w[i].Duration
	if lw.Swapped {
		return swappedWaste(now, w, i, v, mu, lw.IntegerRisk)
	}
	var idle, risk float64
	for j := range w {
		if j == i {
			continue
		}
		q := float64(w[j].Nodes)
		if w[j].Kind == Checkpoint {
			d := now - w[j].LastCheckpoint
			risk += q * q / mu * (w[j].Recovery + d + v/2)
		} else {
			d := now - w[j].Since
			idle += q * (d + v)
		}
	}
	if lw.Printed {
		return v * (idle + risk) // Eqs. (1)–(2) as printed
	}
	return idle + v*risk
}

// lwTerm is what a waiting request adds to another candidate's W_i,
// apart from that candidate's v: for a checkpoint a = q²/μ and b = R + d,
// for another transfer a = q and b = d.
type lwTerm struct {
	a, b float64
	ckpt bool
}

// pick is Pick for the paper's W_i (not Swapped). From filterMin waiting
// requests on it filters first (pickFiltered): the same index, in O(n)
// unless many scores lie within the filter's tolerance of the least.
func (lw LeastWaste) pick(now float64, w []Request, mu float64) int {
	if len(w) >= filterMin {
		if i, _, ok := lw.pickFiltered(now, w, mu); ok {
			return i
		}
	}
	var buf [64]float64
	ws := lw.scores(now, w, mu, buf[:0])
	best := 0
	for i, wi := range ws {
		if wi < ws[best] || (wi == ws[best] && lw.before(w[i], w[best])) {
			best = i
		}
	}
	return best
}

// terms appends each request's lwTerm to dst, by the expressions Waste
// uses (so the same bits).
func terms(now float64, w []Request, mu float64, dst []lwTerm) []lwTerm {
	for j := range w {
		q := float64(w[j].Nodes)
		if w[j].Kind == Checkpoint {
			d := now - w[j].LastCheckpoint
			dst = append(dst, lwTerm{a: q * q / mu, b: w[j].Recovery + d, ckpt: true})
		} else {
			dst = append(dst, lwTerm{a: q, b: now - w[j].Since})
		}
	}
	return dst
}

// score is W_i from the terms, summed in the requests' order as Waste
// sums it: the one expression scores and pickFiltered both evaluate.
func (lw LeastWaste) score(ts []lwTerm, i int, v float64) float64 {
	var idle, risk float64
	for j, t := range ts {
		switch {
		case j == i:
		case t.ckpt:
			risk += t.a * (t.b + v/2)
		default:
			idle += t.a * (t.b + v)
		}
	}
	if lw.Printed {
		return v * (idle + risk)
	}
	return idle + v*risk
}

// scores appends every request's W_i (not Swapped) to dst: each request's
// terms are computed once, by the same expressions as Waste's (so the
// same bits, and the same sums in the same order), and the O(n²) loop
// reads them from a compact slice instead of the requests.
func (lw LeastWaste) scores(now float64, w []Request, mu float64, dst []float64) []float64 {
	var buf [64]lwTerm
	ts := terms(now, w, mu, buf[:0])
	for i := range w {
		dst = append(dst, lw.score(ts, i, w[i].Duration))
	}
	return dst
}

const (
	// filterMin is the number of waiting requests from which pick
	// filters: below it the O(n²) scores cost about as much.
	filterMin = 8
	// filterMax bounds n for filterTol's error bound.
	filterMax = 1 << 16
	// filterTol bounds, relative to M_i (see pickFiltered), how far both
	// the decomposed estimate and the summed W_i lie from the exact
	// W_i: every step of either is a product, a sum or a difference of
	// non-negative numbers bounded by M_i, at most n + 8 of them, each
	// off by at most u = 2⁻⁵³ of M_i: (2¹⁶ + 8)·2⁻⁵³ ≈ 7.3e-12, so 1e-9
	// holds a margin above 100.
	filterTol = 1e-9
	// filterAbs covers rounding below the normal range, where an
	// operation may be off by 2⁻¹⁰⁷⁴ absolutely rather than relatively:
	// (2¹⁶ + 8)·2⁻¹⁰⁷⁴ ≈ 3e-319.
	filterAbs = 1e-300
)

// scratch is pickFiltered's buffers, reused across calls (an Arbiter is
// a value that concurrent simulations share, hence the pool).
type scratch struct {
	ts    []lwTerm
	lower []float64
}

var filterScratch = sync.Pool{New: func() any { return new(scratch) }}

// pickFiltered is pick in O(n): W_i decomposes as
//
//	idle_i = Σ_{j≠i} a_j b_j + v_i Σ_{j≠i} a_j        (j not a checkpoint)
//	risk_i = Σ_{j≠i} a_j b_j + v_i/2 Σ_{j≠i} a_j      (j a checkpoint)
//
// so four sums over every request, less i's own term, estimate every W_i
// in O(1). The estimate rounds differently from score's ordered sum, so it
// only rules out: with every a, b and v non-negative and finite, both lie
// within filterTol·M_i of the exact W_i, where M_i is the estimate's
// expression with i's own term kept (an upper bound of every partial sum).
// A request whose estimate minus 2·filterTol·M_i exceeds the least of
// (estimate + 2·filterTol·M) cannot have the least summed W_i; the others
// (usually one, then the pick; their number is survivors) are scored
// exactly by score and compared as pick compares them, in index order:
// the same index as the O(n²) loop. ok is false,
// and pick falls back, for a negative or non-finite term or n > filterMax.
func (lw LeastWaste) pickFiltered(now float64, w []Request, mu float64) (best, survivors int, ok bool) {
	if len(w) > filterMax {
		return 0, 0, false
	}
	sc := filterScratch.Get().(*scratch)
	defer filterScratch.Put(sc)
	ts := terms(now, w, mu, sc.ts[:0])
	sc.ts = ts
	var ia, iab, ra, rab float64
	for j, t := range ts {
		if !(t.a >= 0 && t.b >= 0 && w[j].Duration >= 0) ||
			math.IsInf(t.a, 0) || math.IsInf(t.b, 0) || math.IsInf(w[j].Duration, 0) {
			return 0, 0, false
		}
		if t.ckpt {
			ra += t.a
			rab += t.a * t.b
		} else {
			ia += t.a
			iab += t.a * t.b
		}
	}
	if math.IsInf(ia+iab+ra+rab, 0) {
		return 0, 0, false
	}
	est := func(i int) (e, m float64) {
		v, t := w[i].Duration, ts[i]
		ia1, iab1, ra1, rab1 := ia, iab, ra, rab
		if t.ckpt {
			ra1, rab1 = ra-t.a, rab-t.a*t.b
		} else {
			ia1, iab1 = ia-t.a, iab-t.a*t.b
		}
		idle, risk := iab1+v*ia1, rab1+v/2*ra1
		mIdle, mRisk := iab+v*ia, rab+v/2*ra
		if lw.Printed {
			return v * (idle + risk), v * (mIdle + mRisk)
		}
		return idle + v*risk, mIdle + v*mRisk
	}
	lower := sc.lower[:0]
	upper := math.Inf(1)
	for i := range w {
		e, m := est(i)
		if math.IsInf(m, 0) {
			return 0, 0, false
		}
		upper = math.Min(upper, e+2*filterTol*m+filterAbs)
		lower = append(lower, e-2*filterTol*m-filterAbs)
	}
	sc.lower = lower
	best, bestW := -1, 0.0
	for i, lo := range lower {
		if lo > upper {
			continue
		}
		if survivors++; survivors == 1 {
			best = i // scored only if another survives
			continue
		}
		if survivors == 2 {
			bestW = lw.score(ts, best, w[best].Duration)
		}
		wi := lw.score(ts, i, w[i].Duration)
		if wi < bestW || (wi == bestW && lw.before(w[i], w[best])) {
			best, bestW = i, wi
		}
	}
	return best, survivors, best >= 0
}

// swappedWaste is the authors' W_i (LeastWaste.Swapped).
func swappedWaste(now float64, w []Request, i int, v, mu float64, integerRisk bool) float64 {
	W := 0.0
	for j := range w {
		if j == i {
			continue
		}
		q := float64(w[j].Nodes)
		switch {
		case w[j].Kind == Checkpoint:
			W += q * (now - w[j].LastCheckpoint + v)
		case integerRisk:
			// nb_nodes*nb_nodes / mtbf_ind in their integer milliseconds
			// (mtbf_ind = ⌈μ·1000⌉, src/System.C line 30): 0 whenever
			// q² < μ in ms, as on every platform of the paper.
			if c := math.Floor(q * q / math.Ceil(mu*1000)); c > 0 {
				W += c * (w[j].Recovery + now - w[j].Since + v/2)
			}
		default:
			W += q * q / mu * (w[j].Recovery + now - w[j].Since + v/2)
		}
	}
	return W
}

// before is the tie-break: the smaller Order under the authors' integer
// heuristic, else the earlier request.
func (lw LeastWaste) before(a, b Request) bool {
	if lw.Swapped && lw.IntegerRisk {
		return a.Order < b.Order
	}
	return a.Seq < b.Seq
}
