package des

import (
	"fmt"
	"math"
)

// Event is a scheduled call. Its fields are read-only for callers; an
// Event is cancelled with Sim.Cancel. An Event made by NewEvent can be
// scheduled again and again (Sim.Schedule) without allocation.
type Event struct {
	time  float64
	seq   uint64
	index int // position in the heap; -1 once fired or cancelled
	fn    func()
}

// Pending reports whether the event is still queued (neither fired nor
// cancelled).
func (e *Event) Pending() bool { return e != nil && e.index >= 0 }

// Sim is a discrete-event simulator: a clock and a queue of events. The
// zero value is ready to use, with the clock at 0.
type Sim struct {
	now       float64
	seq       uint64
	q         []*Event // binary min-heap on (time, seq)
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
	e := &Event{index: -1, fn: fn}
	s.Schedule(e, t)
	return e
}

// After schedules fn d seconds from now (d >= 0).
func (s *Sim) After(d float64, fn func()) *Event { return s.At(s.now+d, fn) }

// NewEvent returns an event calling fn, not scheduled: Schedule queues it.
func (s *Sim) NewEvent(fn func()) *Event { return &Event{index: -1, fn: fn} }

// Schedule (re)schedules e at time t, exactly as cancelling it and
// scheduling its call anew with At would (it takes the next sequence
// number), but without allocation. The same panics as At.
func (s *Sim) Schedule(e *Event, t float64) {
	s.ScheduleSeq(e, t, s.seq)
	s.seq++
}

// Reserve takes n sequence numbers, as n calls of At would, and returns
// the first; ScheduleSeq queues an event with one of them. A simulator
// that keeps many tentative events outside the queue (rescheduled
// together, only the earliest of them queued) orders them exactly as if
// each had been scheduled with At.
func (s *Sim) Reserve(n int) uint64 {
	first := s.seq
	s.seq += uint64(n)
	return first
}

// ScheduleSeq (re)schedules e at time t with sequence number seq, which
// must come from Reserve (or, for a second queuing of the same tentative
// event, be the one it had). The same panics as At.
func (s *Sim) ScheduleSeq(e *Event, t float64, seq uint64) {
	if math.IsNaN(t) || t < s.now {
		panic(fmt.Sprintf("des: event scheduled at %v, before now %v", t, s.now))
	}
	if e.index >= 0 {
		later := t > e.time || (t == e.time && seq > e.seq)
		e.time, e.seq = t, seq
		if later {
			s.down(e.index)
		} else {
			s.up(e.index)
		}
		return
	}
	e.time, e.seq = t, seq
	e.index = len(s.q)
	s.q = append(s.q, e)
	s.up(e.index)
}

// Cancel removes e from the queue. It reports whether e was pending;
// cancelling a fired, cancelled or nil event is a no-op.
func (s *Sim) Cancel(e *Event) bool {
	if e == nil || e.index < 0 {
		return false
	}
	i := e.index
	n := len(s.q) - 1
	if i != n {
		s.swap(i, n)
	}
	s.q[n] = nil
	s.q = s.q[:n]
	e.index = -1
	if i != n {
		s.down(i)
		s.up(i)
	}
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
	e := s.q[0]
	n := len(s.q) - 1
	if n > 0 {
		s.q[0] = s.q[n]
		s.q[0].index = 0
	}
	s.q[n] = nil
	s.q = s.q[:n]
	if n > 1 {
		s.down(0)
	}
	e.index = -1
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

// before orders events by (time, seq).
func before(a, b *Event) bool {
	return a.time < b.time || (a.time == b.time && a.seq < b.seq)
}

func (s *Sim) swap(i, j int) {
	q := s.q
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

// up moves the event at i towards the root until its parent is earlier.
func (s *Sim) up(i int) {
	q := s.q
	e := q[i]
	for i > 0 {
		p := (i - 1) / 2
		if !before(e, q[p]) {
			break
		}
		q[i] = q[p]
		q[i].index = i
		i = p
	}
	q[i] = e
	e.index = i
}

// down moves the event at i towards the leaves until its children are later.
func (s *Sim) down(i int) {
	q := s.q
	n := len(q)
	e := q[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && before(q[r], q[c]) {
			c = r
		}
		if !before(q[c], e) {
			break
		}
		q[i] = q[c]
		q[i].index = i
		i = c
	}
	q[i] = e
	e.index = i
}
