package iosim

import (
	"fmt"
	"math"
	"slices"
)

// checkQueueMirror, set by tests alone, makes every scheduler pass check
// that qinfo holds what the jobs themselves hold (checkMirror).
var checkQueueMirror = false

// checkMirror fails the run unless every entry of qinfo has its job's
// nodes and plan, bit for bit: what the scan read from the jobs before
// the mirror.
func (s *simulator) checkMirror() {
	if len(s.qinfo) != len(s.queue) {
		s.err = fmt.Errorf("internal error: queue of %d jobs, mirror of %d", len(s.queue), len(s.qinfo))
		return
	}
	for i, j := range s.queue {
		e := s.qinfo[i]
		if int(e.q) != j.q || e.planSet != j.planSet || (j.planSet && math.Float64bits(e.plan) != math.Float64bits(j.plan)) {
			s.err = fmt.Errorf("internal error: queue entry %d: job %d has nodes %d, plan %v (%v); mirror %+v", i, j.id, j.q, j.plan, j.planSet, e)
			return
		}
	}
}

// The job queue is a deque on qbuf: s.queue is qbuf[qhead:qhead+len], so
// a start pops the head and a failure pushes its restart back at the head
// in O(1) (a slice shifted on every start cost O(queued jobs), thousands
// on a 60-day list). Deletions inside the queue (backfilling) keep its
// start and shift only its tail.

//
// qinfo mirrors the queue entry for entry (qinfo[i] describes queue[i],
// on its own backing array qibuf with the same head): a job's nodes and
// its plan, once computed, in 16 contiguous bytes. The EASY pass reads
// only these for the jobs it passes over, where reading them from the jobs
// themselves cost a pointer chase and two cache lines per queued job (Q
// of them a pass: 1 470 on Cielo ×8). Every change of the queue goes
// through pushBack, popFront, pushFront and deleteAt.

// queued is a queued job's entry in qinfo: its nodes and its plan (see
// planned), valid once planSet.
type queued struct {
	plan    float64
	q       int32
	planSet bool
}

// infoOf is j's entry in qinfo.
func infoOf(j *job) queued {
	return queued{plan: j.plan, q: int32(j.q), planSet: j.planSet}
}

// pushBack puts j at the queue's end.
func (s *simulator) pushBack(j *job) {
	s.queue = append(s.queue, j)
	if s.cq != nil {
		s.enqueued(j, false)
	}
	s.qinfo = append(s.qinfo, infoOf(j))
	if s.qbuf != nil { // append may have moved either array
		s.rebaseQueue()
	}
}

// rebaseQueue moves the queue and its mirror to the start of fresh
// backing arrays, so that both share head 0.
func (s *simulator) rebaseQueue() {
	s.queue = slices.Clone(s.queue)
	s.qinfo = slices.Clone(s.qinfo)
	s.qbuf, s.qibuf, s.qhead = s.queue[:cap(s.queue)], s.qinfo[:cap(s.qinfo)], 0
}

// popFront removes and returns the queue's head.
func (s *simulator) popFront() *job {
	if s.qbuf == nil {
		s.qbuf, s.qhead = s.queue[:cap(s.queue)], 0
		s.qibuf = s.qinfo[:cap(s.qinfo)]
	}
	j := s.queue[0]
	if s.cq != nil {
		s.cq[j.class].remove(j)
	}
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.qinfo = s.qinfo[1:]
	s.qhead++
	return j
}

// pushFront puts r at the queue's head.
func (s *simulator) pushFront(r *job) {
	if s.cq != nil {
		s.enqueued(r, true)
	}
	if s.qhead > 0 && s.qbuf != nil {
		s.qhead--
		s.qbuf[s.qhead] = r
		s.qibuf[s.qhead] = infoOf(r)
		s.queue = s.qbuf[s.qhead : s.qhead+1+len(s.queue)]
		s.qinfo = s.qibuf[s.qhead : s.qhead+1+len(s.qinfo)]
		return
	}
	s.queue = slices.Insert(s.queue, 0, r)
	s.qinfo = slices.Insert(s.qinfo, 0, infoOf(r))
	s.qbuf, s.qhead = s.queue[:cap(s.queue)], 0
	s.qibuf = s.qinfo[:cap(s.qinfo)]
}

// deleteAt removes the queue's i-th job and returns it.
func (s *simulator) deleteAt(i int) *job {
	j := s.queue[i]
	if s.cq != nil {
		s.cq[j.class].remove(j)
	}
	s.queue = slices.Delete(s.queue, i, i+1)
	s.qinfo = slices.Delete(s.qinfo, i, i+1)
	return j
}

// takeJob returns the memory of a new job: a failed job's (spare), else
// the next of the slab made for the job list, else one allocation.
func (s *simulator) takeJob() *job {
	if j := s.spare; j != nil {
		s.spare = nil
		return j
	}
	if len(s.slab) > 0 {
		j := &s.slab[0]
		s.slab = s.slab[1:]
		return j
	}
	return new(job)
}

// Nodes to jobs. A start writes on each of its nodes its slot and a mark
// (a number new to this start), and a release leaves the entries as they
// are, stale on the nodes it frees — unless the start takes back, under
// the same slot, exactly the nodes the last release freed with nothing
// popped or pushed in between (a restart after a failure, the common
// case): those entries are already right, and the job takes over the
// released job's mark. jobOn reads a node's entry and checks the slot's
// job has that mark, so a stale entry reads as free. A restart thus costs
// O(1) instead of two passes over its nodes, and a failure's look-up O(1).

// freeMark is a release: the count of free-list operations after it, the
// slot it freed, the number of nodes and their mark.
type freeMark struct {
	ops  uint64
	slot int32
	q    int
	mark uint32
}

// markNodes writes j's slot and mark on its nodes (see above); called by
// start once j has its nodes and slot, before anything else touches free.
func (s *simulator) markNodes(j *job) {
	same := s.freeOps == s.lastFree.ops && j.slot == s.lastFree.slot && j.q == s.lastFree.q
	s.freeOps++
	if same {
		j.mark = s.lastFree.mark
		return
	}
	s.marks++
	j.mark = s.marks
	v := uint64(j.mark)<<32 | uint64(j.slot+1)
	for _, n := range j.nodes {
		s.nodeJob[n] = v
	}
}

// jobOn is the job running on node k, or nil.
func (s *simulator) jobOn(k int32) *job {
	v := s.nodeJob[k]
	slot := uint32(v)
	if slot == 0 {
		return nil
	}
	if j := s.slots[slot-1]; j != nil && j.mark == uint32(v>>32) {
		return j
	}
	return nil
}

// reusable reports whether a job that failed, once released and withdrawn,
// is referred to by nothing: its restart then takes its memory and its two
// events (fail sets spare; at Cielo ×1 a restart's allocation was 40 % of
// the bytes a trial allocated). Not so under the AuthorsModel switches
// that keep a failed job's transfer (KeepReservations: a phantom holds the
// job's transfer memory; StaleRates), with a Remote arbiter (freed keeps
// the job) or a timeline being recorded.
func (s *simulator) reusable() bool {
	return s.opt.Remote == nil && s.rec == nil && !s.opt.Authors.KeepReservations && !s.opt.Authors.StaleRates
}

// checkWaitingOrder, set by tests alone, makes every FCFS grant check that
// the waiting requests are in increasing sequence numbers (checkOrder), so
// that the first is FCFS.Pick's choice.
var checkWaitingOrder = false

// checkOrder fails the run unless waiting is in increasing Seq.
func (s *simulator) checkOrder() {
	for k := 1; k < len(s.waiting); k++ {
		if s.waiting[k].seq <= s.waiting[k-1].seq {
			s.err = fmt.Errorf("internal error: waiting request %d has seq %d after %d", k, s.waiting[k].seq, s.waiting[k-1].seq)
			return
		}
	}
}
