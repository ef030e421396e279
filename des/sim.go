package des

import (
	"container/heap"
	"fmt"
	"math"
)

// Event is a scheduled call. Its fields are read-only for callers; an
// Event is cancelled with Sim.Cancel.
type Event struct {
	time  float64
	seq   uint64
	index int // position in the heap; -1 once fired or cancelled
	fn    func()
}

// Time is the simulated time at which the event fires.
func (e *Event) Time() float64 { return e.time }

// Pending reports whether the event is still queued (neither fired nor
// cancelled).
func (e *Event) Pending() bool { return e != nil && e.index >= 0 }

// Sim is a discrete-event simulator: a clock and a queue of events. The
// zero value is ready to use, with the clock at 0.
type Sim struct {
	now       float64
	seq       uint64
	q         eventHeap
	processed uint64
}

// New returns a simulator whose clock starts at 0.
func New() *Sim { return &Sim{} }

// Now is the current simulated time.
func (s *Sim) Now() float64 { return s.now }

// Len is the number of pending events.
func (s *Sim) Len() int { return len(s.q) }

// Processed is the number of events fired so far.
func (s *Sim) Processed() uint64 { return s.processed }

// At schedules fn at time t. Scheduling in the past or at a NaN time is a
// programming error and panics; t = Now() is allowed and fires after every
// event already queued for Now().
func (s *Sim) At(t float64, fn func()) *Event {
	if math.IsNaN(t) || t < s.now {
		panic(fmt.Sprintf("des: event scheduled at %v, before now %v", t, s.now))
	}
	e := &Event{time: t, seq: s.seq, fn: fn}
	s.seq++
	heap.Push(&s.q, e)
	return e
}

// After schedules fn d seconds from now (d >= 0).
func (s *Sim) After(d float64, fn func()) *Event { return s.At(s.now+d, fn) }

// Cancel removes e from the queue. It reports whether e was pending;
// cancelling a fired, cancelled or nil event is a no-op.
func (s *Sim) Cancel(e *Event) bool {
	if e == nil || e.index < 0 {
		return false
	}
	heap.Remove(&s.q, e.index)
	return true
}

// Peek is the time of the next event, or +Inf when the queue is empty.
func (s *Sim) Peek() float64 {
	if len(s.q) == 0 {
		return math.Inf(1)
	}
	return s.q[0].time
}

// Step fires the next event, advancing the clock to its time. It reports
// false when the queue was empty.
func (s *Sim) Step() bool {
	if len(s.q) == 0 {
		return false
	}
	e := heap.Pop(&s.q).(*Event)
	s.now = e.time
	s.processed++
	e.fn()
	return true
}

// RunUntil fires every event whose time is at most t, then sets the clock
// to t (if t is later than the last event fired). It returns the number of
// events fired.
func (s *Sim) RunUntil(t float64) uint64 {
	start := s.processed
	for len(s.q) > 0 && s.q[0].time <= t {
		s.Step()
	}
	if t > s.now && !math.IsInf(t, 1) {
		s.now = t
	}
	return s.processed - start
}

// Run fires events until the queue is empty.
func (s *Sim) Run() uint64 { return s.RunUntil(math.Inf(1)) }

// eventHeap orders events by (time, seq).
type eventHeap []*Event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].time != h[j].time {
		return h[i].time < h[j].time
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *eventHeap) Push(x any) {
	e := x.(*Event)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *eventHeap) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}
