package des

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"

	"pgregory.net/rapid"
)

func TestOrderAndTies(t *testing.T) {
	s := New()
	var got []int
	s.At(2, func() { got = append(got, 3) })
	s.At(1, func() { got = append(got, 1) })
	s.At(1, func() { got = append(got, 2) }) // same time: after the first scheduled
	s.At(5, func() {
		got = append(got, 4)
		s.At(5, func() { got = append(got, 5) }) // scheduled at now: still fires
	})
	if n := s.Run(); n != 5 {
		t.Fatalf("fired %d events, want 5", n)
	}
	if !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("order %v", got)
	}
	if s.Now() != 5 {
		t.Fatalf("now = %v", s.Now())
	}
}

func TestCancel(t *testing.T) {
	s := New()
	fired := map[int]bool{}
	evs := make([]*Event, 10)
	for i := range evs {
		evs[i] = s.At(float64(i), func() { fired[i] = true })
	}
	if !s.Cancel(evs[3]) || !s.Cancel(evs[7]) {
		t.Fatal("cancel of pending event returned false")
	}
	if s.Cancel(evs[3]) {
		t.Fatal("second cancel returned true")
	}
	if s.Cancel(nil) {
		t.Fatal("cancel(nil) returned true")
	}
	s.Run()
	for i := range 10 {
		if fired[i] == (i == 3 || i == 7) {
			t.Fatalf("event %d fired=%v", i, fired[i])
		}
	}
	if s.Cancel(evs[0]) || evs[0].Pending() {
		t.Fatal("fired event still cancellable")
	}
}

func TestRunUntil(t *testing.T) {
	s := New()
	n := 0
	for i := 1; i <= 10; i++ {
		s.At(float64(i), func() { n++ })
	}
	if k := s.RunUntil(4.5); k != 4 || n != 4 || s.Now() != 4.5 {
		t.Fatalf("RunUntil fired %d (n=%d) now=%v", k, n, s.Now())
	}
	if s.Peek() != 5 || s.Len() != 6 {
		t.Fatalf("peek %v len %d", s.Peek(), s.Len())
	}
}

func TestPastPanics(t *testing.T) {
	s := New()
	s.At(3, func() {})
	s.Step()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an event in the past")
		}
	}()
	s.At(2, func() {})
}

// Property: whatever the schedule and cancellations, events fire in
// (time, scheduling order) order and exactly the non-cancelled ones fire.
func TestHeapProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := New()
		times := rapid.SliceOfN(rapid.IntRange(0, 20), 1, 200).Draw(t, "times")
		type rec struct {
			time float64
			id   int
		}
		var fired []rec
		evs := make([]*Event, len(times))
		for i, tm := range times {
			evs[i] = s.At(float64(tm), func() { fired = append(fired, rec{float64(tm), i}) })
		}
		cancel := rapid.SliceOfN(rapid.Bool(), len(times), len(times)).Draw(t, "cancel")
		var want []rec
		for i, c := range cancel {
			if c {
				s.Cancel(evs[i])
			} else {
				want = append(want, rec{float64(times[i]), i})
			}
		}
		slices.SortStableFunc(want, func(a, b rec) int {
			if a.time != b.time {
				if a.time < b.time {
					return -1
				}
				return 1
			}
			return a.id - b.id
		})
		s.Run()
		if !slices.Equal(fired, want) {
			t.Fatalf("fired %v, want %v", fired, want)
		}
	})
}

func TestStreamPerEntity(t *testing.T) {
	// The stream of entity (1, 7) is the same whoever else draws: on a
	// platform of 10 or 10 000 nodes, with every node's stream drawn in
	// turn (interleaved), node 7 sees the values it sees alone.
	a := Stream(42, 1, 7)
	var x [5]float64
	for i := range x {
		x[i] = a.ExpFloat64()
	}
	for _, n := range []int{10, 10000} {
		streams := make([]*rand.Rand, n)
		for k := range n {
			streams[k] = Stream(42, 1, uint64(k))
		}
		for i := range x {
			for k, r := range streams {
				v := r.ExpFloat64()
				if k == 7 && v != x[i] {
					t.Fatalf("n = %d: draw %d of node 7 is %v, alone %v", n, i, v, x[i])
				}
			}
		}
		// The others really are other streams.
		if Stream(42, 1, uint64(n-1)).ExpFloat64() == x[0] {
			t.Fatalf("n = %d: node %d draws node 7's values", n, n-1)
		}
	}
	// des.Stream is the one derivation, rng.Stream.
	if Stream(42, 1, 7).Uint64() != rng.Stream(42, 1, 7).Uint64() {
		t.Fatal("des.Stream differs from rng.Stream")
	}
	// Different ids, kinds and seeds differ.
	if Stream(42, 1, 7).Uint64() == Stream(42, 1, 8).Uint64() ||
		Stream(42, 1, 7).Uint64() == Stream(42, 2, 7).Uint64() ||
		Stream(42, 1, 7).Uint64() == Stream(43, 1, 7).Uint64() {
		t.Fatal("streams collide")
	}
	// Crude independence check: mean of 1e5 uniforms from 1000 streams.
	sum := 0.0
	for k := range 1000 {
		r := Stream(1, uint64(k))
		for range 100 {
			sum += r.Float64()
		}
	}
	if m := sum / 1e5; math.Abs(m-0.5) > 0.005 {
		t.Fatalf("mean %v", m)
	}
}

// BenchmarkScheduleStep fires events from a queue holding 1000 pending
// events, each of which reschedules itself (one Pop + one Push per op).
func BenchmarkScheduleStep(b *testing.B) {
	s := New()
	var fn func()
	fn = func() { s.After(1000, fn) }
	for i := range 1000 {
		s.At(float64(i), fn)
	}
	for b.Loop() {
		s.Step()
	}
}

// Property: any interleaving of At, Schedule (rescheduling a reused
// event), Reserve + ScheduleSeq, Cancel and Step fires exactly what an
// oracle — a plain list scanned for its least (time, seq) — fires, in the
// same order, and Schedule orders an event exactly as Cancel + At would.
func TestScheduleMatchesOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := New()
		type key struct {
			time float64
			seq  uint64
		}
		n := rapid.IntRange(1, 12).Draw(t, "events")
		evs := make([]*Event, n)
		var fired []int
		for i := range evs {
			evs[i] = s.NewEvent(func() { fired = append(fired, i) })
		}
		oracle := map[int]key{} // pending events by id
		var seq uint64          // the oracle's own sequence counter
		var want []int
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			i := rapid.IntRange(0, n-1).Draw(t, "i")
			at := s.Now() + float64(rapid.IntRange(0, 5).Draw(t, "dt"))
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0: // Schedule a reused event
				s.Schedule(evs[i], at)
				oracle[i] = key{at, seq}
				seq++
			case 1: // Reserve a few numbers, queue with one of them
				k := rapid.IntRange(1, 4).Draw(t, "k")
				first := s.Reserve(k)
				if first != seq {
					t.Fatalf("Reserve gave %d, oracle %d", first, seq)
				}
				pick := first + uint64(rapid.IntRange(0, k-1).Draw(t, "pick"))
				s.ScheduleSeq(evs[i], at, pick)
				oracle[i] = key{at, pick}
				seq += uint64(k)
			case 2:
				if got := s.Cancel(evs[i]); got != hasKey(oracle, i) {
					t.Fatalf("Cancel(%d) = %v", i, got)
				}
				delete(oracle, i)
			default: // Step
				best := -1
				for id, k := range oracle {
					if b, ok := oracle[best]; best < 0 || !ok || k.time < b.time || (k.time == b.time && k.seq < b.seq) {
						best = id
					}
				}
				if got := s.Step(); got != (best >= 0) {
					t.Fatalf("Step() = %v with %d pending", got, len(oracle))
				}
				if best >= 0 {
					if s.Now() != oracle[best].time {
						t.Fatalf("clock %v, want %v", s.Now(), oracle[best].time)
					}
					delete(oracle, best)
					want = append(want, best)
				}
			}
			if s.Len() != len(oracle) {
				t.Fatalf("Len %d, oracle %d", s.Len(), len(oracle))
			}
			for id, e := range evs {
				if e.Pending() != hasKey(oracle, id) {
					t.Fatalf("event %d pending %v", id, e.Pending())
				}
			}
		}
		if !slices.Equal(fired, want) {
			t.Fatalf("fired %v, oracle %v", fired, want)
		}
	})
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// BenchmarkReschedule moves one of 1000 pending reused events to a later
// time (one Schedule of a queued event per op, no allocation).
func BenchmarkReschedule(b *testing.B) {
	s := New()
	evs := make([]*Event, 1000)
	for i := range evs {
		evs[i] = s.NewEvent(func() {})
		s.Schedule(evs[i], float64(i))
	}
	i := 0
	for b.Loop() {
		e := evs[i%len(evs)]
		s.Schedule(e, e.Time()+1000)
		i++
	}
}

// Peek is Stream's generator in its initial state, for any seed and ids,
// whatever was peeked before.
func TestPeekIsStream(t *testing.T) {
	var p Peeker
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		ids := rapid.SliceOfN(rapid.Uint64(), 0, 3).Draw(t, "ids")
		a, b := Stream(seed, ids...), p.Peek(seed, ids...)
		for i := range 4 {
			if x, y := a.ExpFloat64(), b.ExpFloat64(); x != y {
				t.Fatalf("draw %d: Stream %v, Peek %v", i, x, y)
			}
		}
	})
	if n := testing.AllocsPerRun(100, func() { p.Peek(1, 2, 3).ExpFloat64() }); n != 0 {
		t.Fatalf("Peek allocates %v times", n)
	}
}

// BenchmarkStepFloor is the floor of a simulation's cost per event: one
// Step (pop) and one Schedule of a reused event (push), no allocation,
// with 1 500 events pending (about the queue of a 60-day Cielo run: the
// nodes that fail in the span and the running jobs' next events).
func BenchmarkStepFloor(b *testing.B) {
	s := New()
	r := rng.New(1)
	evs := make([]*Event, 1500)
	for i := range evs {
		e := &evs[i]
		*e = s.NewEvent(func() { s.Schedule(*e, s.Now()+r.ExpFloat64()*1500) })
		s.Schedule(*e, r.ExpFloat64()*1500)
	}
	for b.Loop() {
		s.Step()
	}
}

// Time is the simulated time at which the event fires (or last fired).
func (e *Event) Time() float64 { return e.time }

// Run fires events until the queue is empty.
func (s *Sim) Run() uint64 { return s.RunUntil(math.Inf(1)) }
