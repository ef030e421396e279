package iosim

import "slices"

// The waiting requests (Token sharing) are kept in arrival order, which
// FCFS's grant and the arbiters' ties read. An FCFS grant, and any grant of
// the oldest request, removes the first: dropWaiting then advances the
// slice's start over its backing array (wbuf), O(1) where moving the W − 1
// requests behind it was O(W), and pushWaiting moves the requests back to
// the array's start when an arrival finds its end with at least W free
// slots before the start (O(W) once per W or more grants), and grows the
// array otherwise: O(1) amortised. Any other removal moves the requests behind it, as
// slices.Delete does. shiftWaiting, set by tests alone, removes the first
// that way too: the oracle of TestWaitingQueueMatchesSlice and
// TestFrontDropRunsEqualShiftRuns.
var shiftWaiting = false

// pushWaiting appends a request to the waiting requests and returns it,
// for the caller to set every field in place (a literal was built on the
// stack and copied, as transfer.reset explains).
func (s *simulator) pushWaiting() *pending {
	w := s.waiting
	if len(w) == cap(w) {
		if h := cap(s.wbuf) - cap(w); h > 0 && h >= len(w) { // w starts h requests into wbuf
			full := s.wbuf[:cap(s.wbuf)]
			n := copy(full, w)
			clear(full[n:]) // no stale job pointers past the requests
			w = full[:n]
		} else {
			w = append(w, pending{})
			s.waiting, s.wbuf = w, w[:0]
			return &w[len(w)-1]
		}
	}
	w = w[:len(w)+1]
	s.waiting = w
	return &w[len(w)-1]
}

// dropWaiting removes the waiting request i, keeping the others' order.
func (s *simulator) dropWaiting(i int) {
	if i == 0 && !shiftWaiting {
		s.waiting[0] = pending{}
		s.waiting = s.waiting[1:]
		return
	}
	s.waiting = slices.Delete(s.waiting, i, i+1)
}

// dropJobWaiting removes j's waiting requests (j.waits bounds how many:
// the scan stops once that many are gone), keeping the others' order.
func (s *simulator) dropJobWaiting(j *job) {
	n := j.waits
	for i := 0; n > 0 && i < len(s.waiting); {
		if s.waiting[i].j != j {
			i++
			continue
		}
		s.dropWaiting(i)
		n--
	}
}
