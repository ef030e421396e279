package iosim

import "slices"

// The job queue is a deque on qbuf: s.queue is qbuf[qhead:qhead+len], so
// a start pops the head and a failure pushes its restart back at the head
// in O(1) (a slice shifted on every start cost O(queued jobs), thousands
// on a 60-day list). Deletions inside the queue (backfilling) keep its
// start and shift only its tail.

// popFront removes and returns the queue's head.
func (s *simulator) popFront() *job {
	if s.qbuf == nil {
		s.qbuf, s.qhead = s.queue[:cap(s.queue)], 0
	}
	j := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.qhead++
	return j
}

// pushFront puts r at the queue's head.
func (s *simulator) pushFront(r *job) {
	if s.qhead > 0 && s.qbuf != nil {
		s.qhead--
		s.qbuf[s.qhead] = r
		s.queue = s.qbuf[s.qhead : s.qhead+1+len(s.queue)]
		return
	}
	s.queue = slices.Insert(s.queue, 0, r)
	s.qbuf, s.qhead = s.queue[:cap(s.queue)], 0
}

// takeJob returns the memory of a new job: the next of the slab made for
// the job list, then one allocation per restart.
func (s *simulator) takeJob() *job {
	if len(s.slab) > 0 {
		j := &s.slab[0]
		s.slab = s.slab[1:]
		return j
	}
	return new(job)
}
