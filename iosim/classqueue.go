package iosim

import (
	"fmt"
	"math"
	"sort"
)

// The queue by class (issue 25: touch only the jobs whose state changes).
//
// Both passes pick, in queue order, the first job that fits, start it and
// go on from its position: Greedy from the head, q ≤ free nodes; EASY
// from the second job, q ≤ free and (now + plan ≤ shadow or q ≤ extra).
// Within a pass a start only lowers the free nodes and extra, and the
// shadow time is fixed, so a job passed over never fits later in the
// pass: each pick is the earliest-positioned job that fits now. A job's
// nodes are its class's, so per class c with q_c ≤ free the earliest
// fitting job is, when q_c ≤ extra (or under Greedy), the class's first
// queued job, else the class's first job with now + plan ≤ shadow; the
// pick is the earliest of these C candidates. A pass is then O(C log Q)
// per start, O(C) when no class fits the free nodes and O(C log Q) when
// one does but none of its jobs passes, where the scan was O(Q).
//
// "The first job with now + plan ≤ shadow" is found exactly in a min-tree
// of plans: fl(now + p), the rounded sum, is non-decreasing in p (the
// exact sum is, and rounding to nearest is monotone; an overflow gives
// +Inf, still ordered), so some plan of a subtree passes iff the
// subtree's least plan does, and the least plan is then one that passes.
// ±0 plans give equal sums (now ≥ 0). A NaN plan never passes (NaN ≤ x
// is false), nor is it any subtree's least: the tree ignores NaNs, and a
// subtree without a plan holds NaN, which fails the test.
//
// Queue order: jobs enter only at the back (the job list) and at the head
// (a failed job's restart), so a counter at each end gives every queued
// job an order key (qkey) and each class's jobs sit in its tree in key
// order. A job's plan is a function of its own fields, set before it is
// queued and unchanged while it waits (planned), so it is computed when
// it enters.
//
// A start inside a pass can end with a nested pass (a restart with
// nothing left to do completes at once under AuthorsModel.RestartFromStop):
// the outer pass then goes on with the scan from the started job's
// position, as the scan did. The greedy pass reaches it at every such
// restart it starts (it has no separate loop for the head):
// TestClassQueueNestedPass counts them; there the scan that follows
// starts nothing (the nested pass scanned the whole queue and the free
// nodes have not grown since), as in the scan. The EASY pass's backfilling does
// not in any run we know of (such a restart is queued at the head and
// started there, before the backfilling); its fallback is the same code.

// onNestedPass, set by tests alone, is called when a pass over the queue
// by class falls back to the scan after a nested pass.
var onNestedPass func()

// classQueueMin is the least job list (the queue at the first pass) that
// gets a queue by class; a shorter one is scanned. The scan of Q jobs
// reads a contiguous mirror, about a nanosecond a job, while the queue by
// class pays a tree update of O(log Q) at every start and restart, and
// its build at every run. CPU per event with it against without, medians
// of alternated pairs on Cielo scaled ×k (jobs in the list): ×1 (232)
// 1.08, ×2 (437) 1.01, ×4 (819) 0.94, ×8 (1 668) 0.90, ×16 (3 284) 0.88
// (docs/performance.md). The tests set it to 0.
var classQueueMin = 640

// scanQueue, set by tests alone, makes every pass scan the queue (the
// way before the queue by class: the tests' oracle).
var scanQueue = false

// classQueue is one class's queued jobs in key order: leaves [lo, hi) of
// size, each a job (nil once it left; leaves lo and hi − 1 hold jobs), under a
// segment tree holding per node the least plan (NaN for none).
type classQueue struct {
	q      int
	size   int
	lo, hi int
	jobs   []*job
	minP   []float64
}

// minPlan is the least of a and b, ignoring NaN (NaN if both are).
func minPlan(a, b float64) float64 {
	if a != a || b < a {
		return b
	}
	return a
}

// rebuild lays cq's jobs out again with room for grow more at each end.
func (cq *classQueue) rebuild(grow int) {
	var live []*job
	for p := cq.lo; p < cq.hi; p++ {
		if j := cq.jobs[p]; j != nil {
			live = append(live, j)
		}
	}
	room := max(len(live)/2, grow, 16)
	size := 1
	for size < len(live)+2*room {
		size *= 2
	}
	cq.size, cq.lo, cq.hi = size, room, room+len(live)
	cq.jobs = make([]*job, size)
	cq.minP = make([]float64, 2*size)
	for i := range cq.minP {
		cq.minP[i] = math.NaN()
	}
	for k, j := range live {
		p := cq.lo + k
		cq.jobs[p], j.cpos = j, int32(p)
		cq.minP[size+p] = j.plan
	}
	for i := size - 1; i >= 1; i-- {
		cq.minP[i] = minPlan(cq.minP[2*i], cq.minP[2*i+1])
	}
}

// set puts j (nil: none) at leaf p and updates the tree above it, up to
// the first node whose least plan does not change (nor then any above).
func (cq *classQueue) set(p int, j *job) {
	cq.jobs[p] = j
	i := cq.size + p
	if j != nil {
		j.cpos = int32(p)
		cq.minP[i] = j.plan
	} else {
		cq.minP[i] = math.NaN()
	}
	for i >>= 1; i >= 1; i >>= 1 {
		m := minPlan(cq.minP[2*i], cq.minP[2*i+1])
		if math.Float64bits(m) == math.Float64bits(cq.minP[i]) {
			return
		}
		cq.minP[i] = m
	}
}

func (cq *classQueue) pushFront(j *job) {
	if cq.lo == 0 {
		cq.rebuild(0)
	}
	cq.lo--
	cq.set(cq.lo, j)
}

func (cq *classQueue) pushBack(j *job) {
	if cq.hi == cq.size {
		cq.rebuild(0)
	}
	cq.hi++
	cq.set(cq.hi-1, j)
}

func (cq *classQueue) remove(j *job) {
	cq.set(int(j.cpos), nil)
	for cq.lo < cq.hi && cq.jobs[cq.lo] == nil {
		cq.lo++
	}
	for cq.hi > cq.lo && cq.jobs[cq.hi-1] == nil {
		cq.hi--
	}
}

// first is the class's first job, or nil.
func (cq *classQueue) first() *job {
	if cq.lo == cq.hi {
		return nil
	}
	return cq.jobs[cq.lo]
}

// firstPassing is the class's first job at leaf ≥ from whose plan p
// passes now + p ≤ shadow (see above), or nil.
func (cq *classQueue) firstPassing(from int, now, shadow float64) *job {
	if from >= cq.hi {
		return nil
	}
	i := cq.size + from
	for m := cq.minP[i]; !(now+m <= shadow); m = cq.minP[i] {
		for i&1 == 1 {
			if i == 1 {
				return nil
			}
			i >>= 1
		}
		i++
	}
	for i < cq.size {
		i *= 2
		if m := cq.minP[i]; !(now+m <= shadow) {
			i++
		}
	}
	return cq.jobs[i-cq.size]
}

// indexQueue builds the queue by class from the queue: every queued job
// gets its plan and its key.
func (s *simulator) indexQueue() {
	s.cq = make([]classQueue, len(s.cfg.Classes))
	for c := range s.cq {
		s.cq[c].q = s.cfg.Classes[c].Nodes
	}
	for i, j := range s.queue {
		s.planned(j)
		s.qinfo[i] = infoOf(j)
	}
	s.renumber()
	per := make([][]*job, len(s.cq))
	for _, j := range s.queue {
		per[j.class] = append(per[j.class], j)
	}
	for c := range s.cq {
		cq := &s.cq[c]
		cq.jobs = per[c]
		cq.lo, cq.hi = 0, len(per[c])
		cq.rebuild(0)
	}
}

// renumber gives the queued jobs the keys 0, 1, … in queue order.
func (s *simulator) renumber() {
	for i, j := range s.queue {
		j.qkey = int32(i)
	}
	s.keyFront, s.keyBack = -1, int32(len(s.queue))
}

// enqueued books j, just queued at the head (front) or the back, in the
// queue by class.
func (s *simulator) enqueued(j *job, front bool) {
	if s.keyFront == math.MinInt32 || s.keyBack == math.MaxInt32 {
		s.renumber() // 2³¹ restarts: the keys start again (the trees keep their leaves)
	}
	s.planned(j)
	cq := &s.cq[j.class]
	if front {
		j.qkey = s.keyFront
		s.keyFront--
		cq.pushFront(j)
		return
	}
	j.qkey = s.keyBack
	s.keyBack++
	cq.pushBack(j)
}

// queueIndex is j's position in the queue (ordered by key).
func (s *simulator) queueIndex(j *job) int {
	k := j.qkey
	return sort.Search(len(s.queue), func(i int) bool { return s.queue[i].qkey >= k })
}

// pickIndexed is the earliest queued job that fits: of a class whose
// width q fits the free nodes, its first job when q ≤ extra, else its
// first whose now + plan ≤ shadow. O(C log Q).
func (s *simulator) pickIndexed(now, shadow float64, extra int) *job {
	var pick *job
	for c := range s.cq {
		cq := &s.cq[c]
		if cq.q > s.nFree || cq.lo == cq.hi {
			continue
		}
		var j *job
		if cq.q <= extra {
			j = cq.first()
		} else {
			j = cq.firstPassing(cq.lo, now, shadow)
		}
		if j != nil && (pick == nil || j.qkey < pick.qkey) {
			pick = j
		}
	}
	return pick
}

// greedyIndexed is Greedy's pass over the queue by class.
func (s *simulator) greedyIndexed() {
	n := s.passes
	for {
		pick := s.pickIndexed(0, 0, math.MaxInt) // any width fits "extra": a class's first job
		if pick == nil {
			return
		}
		i := s.queueIndex(pick)
		s.start(s.deleteAt(i))
		if s.passes != n { // a nested pass: go on as the scan would
			if onNestedPass != nil {
				onNestedPass()
			}
			s.greedyScan(i)
			return
		}
	}
}

// easyIndexed is the EASY pass's backfilling (after the head's starts)
// over the queue by class.
func (s *simulator) easyIndexed() {
	n := s.passes
	head := s.queue[0]
	// The head did not fit (the head's starts stopped at it), and the free
	// nodes only decrease: no job of its class fits in this pass, so every
	// class that fits is searched from its first job.
	fits := false
	for c := range s.cq {
		if cq := &s.cq[c]; cq.q <= s.nFree && cq.lo < cq.hi {
			fits = true
			break
		}
	}
	if !fits {
		return
	}
	// The reservation, as the scan computes it at the first queued job
	// that fits: nothing has started since the head's starts.
	shadow, extra := s.reservation(head.q)
	now := s.sim.Now()
	for {
		pick := s.pickIndexed(now, shadow, extra)
		if pick == nil {
			return
		}
		if !(now+pick.plan <= shadow) { // on nodes the reserved job will not need
			extra -= pick.q
		}
		i := s.queueIndex(pick)
		s.start(s.deleteAt(i))
		if s.passes != n {
			if onNestedPass != nil {
				onNestedPass()
			}
			s.easyScan(i, shadow, extra, true)
			return
		}
	}
}

// checkClassQueue fails the run unless the queue by class holds the
// queue's jobs, in key order, each with the plan planned computes afresh.
func (s *simulator) checkClassQueue() {
	total := 0
	for c := range s.cq {
		cq := &s.cq[c]
		last := int64(math.MinInt64)
		for p := cq.lo; p < cq.hi; p++ {
			j := cq.jobs[p]
			if j == nil {
				continue
			}
			total++
			if j.class != c || j.q != cq.q || int(j.cpos) != p || int64(j.qkey) <= last {
				s.err = fmt.Errorf("internal error: class %d leaf %d: job %d (class %d, nodes %d, leaf %d, key %d after %d)", c, p, j.id, j.class, j.q, j.cpos, j.qkey, last)
				return
			}
			last = int64(j.qkey)
		}
	}
	if total != len(s.queue) {
		s.err = fmt.Errorf("internal error: queue of %d jobs, %d by class", len(s.queue), total)
		return
	}
	for i, j := range s.queue {
		if i > 0 && j.qkey <= s.queue[i-1].qkey || s.cq[j.class].jobs[j.cpos] != j {
			s.err = fmt.Errorf("internal error: queue entry %d (job %d, key %d) out of order or not by class", i, j.id, j.qkey)
			return
		}
		plan := j.plan
		j.planSet = false
		if p := s.planned(j); math.Float64bits(p) != math.Float64bits(plan) {
			s.err = fmt.Errorf("internal error: queued job %d: plan %v when queued, %v now", j.id, plan, p)
			return
		}
	}
}
