package iosim

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ckpt-hpc/ckpt/des"
	"pgregory.net/rapid"
)

// The waiting requests under pushWaiting, dropWaiting and dropJobWaiting
// are, after every operation, those of a plain slice under append,
// slices.Delete and slices.DeleteFunc (the way before the front drop), in
// the same order; no job pointer is left in the backing array past them.
func TestWaitingQueueMatchesSlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs := make([]*job, 4)
		for i := range jobs {
			jobs[i] = &job{id: i}
		}
		s := &simulator{}
		var ref []pending
		seq := uint64(0)
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
			case op <= 1 || len(ref) == 0: // arrivals as often as grants
				j := jobs[rapid.IntRange(0, len(jobs)-1).Draw(t, "job")]
				p := pending{j: j, seq: seq}
				seq++
				j.waits++
				*s.pushWaiting() = p
				ref = append(ref, p)
			case op == 2:
				i := 0 // the first, as FCFS grants, mostly
				if rapid.Bool().Draw(t, "any") {
					i = rapid.IntRange(0, len(ref)-1).Draw(t, "i")
				}
				ref[i].j.waits--
				s.dropWaiting(i)
				ref = slices.Delete(ref, i, i+1)
			default:
				j := jobs[rapid.IntRange(0, len(jobs)-1).Draw(t, "withdrawn")]
				s.dropJobWaiting(j)
				j.waits = 0
				ref = slices.DeleteFunc(ref, func(p pending) bool { return p.j == j })
			}
			if !slices.Equal(s.waiting, ref) {
				t.Fatalf("waiting %v, want %v", s.waiting, ref)
			}
			full := s.wbuf[:cap(s.wbuf)]
			h := cap(s.wbuf) - cap(s.waiting)
			if cap(s.waiting) > 0 && &full[h:][:1][0] != &s.waiting[:1][0] {
				t.Fatal("waiting is not a view of wbuf")
			}
			for k, p := range full {
				if (k < h || k >= h+len(s.waiting)) && p.j != nil {
					t.Fatalf("entry %d of the backing array keeps job %d outside the requests [%d, %d)", k, p.j.id, h, h+len(s.waiting))
				}
			}
		}
	})
}

// In steady state an arrival and an FCFS grant allocate nothing: the
// requests return to the array's start when its end is reached, not to a
// new array (an append that grows the array fails it).
func TestWaitingQueueAllocatesNothing(t *testing.T) {
	s := &simulator{}
	j := &job{}
	for range 8 {
		*s.pushWaiting() = pending{j: j}
	}
	if a := testing.AllocsPerRun(100, func() {
		for range 64 { // past the array's end: one move back at least
			*s.pushWaiting() = pending{j: j}
			s.dropWaiting(0)
		}
	}); a != 0 {
		t.Fatalf("%v allocations per 64 arrivals and grants", a)
	}
	if len(s.waiting) != 8 {
		t.Fatalf("%d waiting, want 8", len(s.waiting))
	}
}

// Runs with the front drop equal runs that move every request behind a
// grant (shiftWaiting), under every token strategy and the switches that
// remove waiting requests elsewhere (KeepReservations' phantoms,
// SkipLateCheckpoints' drops).
func TestFrontDropRunsEqualShiftRuns(t *testing.T) {
	c := small()
	opts := []Options{
		{Span: 8 * Day, Skip: Day, Seed: 1},
		{Span: 8 * Day, Skip: Day, Seed: 2, Scheduler: Greedy},
		{Span: 8 * Day, Skip: Day, Seed: 3, Authors: AuthorsModel{KeepReservations: true, SkipLateCheckpoints: true}},
		{Span: 8 * Day, Skip: Day, Seed: 4, Authors: AuthorsModel{KeepReservations: true, RestartFromStop: true}},
	}
	grants := 0
	for _, st := range allStrategies(t) {
		if st.Sharing != Token {
			continue
		}
		for _, o := range opts {
			front, shift := simulateSwitched(t, &c, st, o, &shiftWaiting)
			if a, b := fmt.Sprintf("%#v", front), fmt.Sprintf("%#v", shift); a != b {
				t.Fatalf("%s, seed %d:\nfront %s\nshift %s", st.Name, o.Seed, a, b)
			}
			grants += front.Checkpoints
		}
	}
	if grants == 0 {
		t.Fatal("no token strategy checkpointed: the test compares nothing")
	}
}

// transfer.reset sets every field as the composite literal it replaces
// does, whatever the memory held before (a field added to transfer and
// not to reset fails the field count).
func TestTransferResetIsLiteral(t *testing.T) {
	if n := reflect.TypeFor[transfer]().NumField(); n != 13 {
		t.Fatalf("transfer has %d fields, reset sets 13: set the new ones in reset and here", n)
	}
	j, other := &job{id: 1}, &job{id: 2}
	ev := des.New().NewEvent(func() {})
	tr := transfer{j: other, kind: Output, remaining: 9, rate: 8, last: 7, req: 6, ev: ev,
		start: 5, end: 4, seq: 3, fin: 2, ord: 1, hidx: 12}
	tr.reset(j, Checkpoint, 100, 40, 10, 3)
	want := transfer{j: j, kind: Checkpoint, remaining: 100, rate: 40, last: 10, req: 3, start: 10, hidx: -1}
	if tr != want {
		t.Fatalf("reset gives %+v, the literal %+v", tr, want)
	}
}

// setRequest gives requestOf's request whatever the memory held before,
// under both definitions of the last checkpoint (a field added to Request
// and not to setRequest fails the field count).
func TestSetRequestIsRequestOf(t *testing.T) {
	if n := reflect.TypeFor[Request]().NumField(); n != 10 {
		t.Fatalf("Request has %d fields, setRequest sets 10: set the new ones in setRequest and here", n)
	}
	rapid.Check(t, func(t *rapid.T) {
		s := &simulator{}
		s.opt.Authors.InheritedCheckpointDate = rapid.Bool().Draw(t, "inherited")
		f := rapid.Float64()
		j := &job{id: rapid.Int().Draw(t, "id"), q: rapid.Int().Draw(t, "q"), ckptTime: f.Draw(t, "C"),
			lastCkpt: f.Draw(t, "last"), commitDate: f.Draw(t, "commit"), startDate: f.Draw(t, "start"),
			hasCkpt: rapid.Bool().Draw(t, "hasCkpt"), listIdx: rapid.IntRange(0, 1<<30).Draw(t, "listIdx"),
			run: rapid.IntRange(0, 1<<20-1).Draw(t, "run")}
		p := pending{j: j, kind: Kind(rapid.IntRange(0, 4).Draw(t, "kind")), bytes: f.Draw(t, "bytes"),
			dur: f.Draw(t, "dur"), since: f.Draw(t, "since"), seq: rapid.Uint64().Draw(t, "seq")}
		r := Request{Job: -7, Kind: 9, Nodes: -3, Bytes: 1, Duration: 2, Since: 3, LastCheckpoint: 4, Recovery: 5, Seq: 6, Order: 7}
		s.setRequest(&r, &p)
		if want := s.requestOf(p); fmt.Sprintf("%#v", r) != fmt.Sprintf("%#v", want) { // NaN-proof
			t.Fatalf("setRequest gives %#v, requestOf %#v", r, want)
		}
	})
}

// A flush repeated at the same time changes nothing: runs with flush's
// early return equal runs that book every flush in full (fullFlush), for
// every strategy, both accountings, both schedulers and the authors'
// switches, with failures (a failure flushes a job that a reshare or a
// state change flushed at the same time).
func TestRepeatFlushIsNoOp(t *testing.T) {
	c := small()
	opts := []Options{
		{Span: 8 * Day, Skip: Day, Seed: 1},
		{Span: 8 * Day, Skip: Day, Seed: 2, Scheduler: Greedy, Accounting: AuthorsAccounting},
		{Span: 8 * Day, Skip: Day, Seed: 3, Authors: AuthorsModel{KeepReservations: true, SkipLateCheckpoints: true, StaleRates: true}},
		{Span: 8 * Day, Skip: Day, Seed: 4, Authors: AuthorsModel{RestartFromStop: true, StaleOutput: true, InheritedCheckpointDate: true}, Accounting: AuthorsAccounting},
		{Span: 8 * Day, Skip: Day, Seed: 5, VirtualTime: true},
	}
	for _, st := range allStrategies(t) {
		for _, o := range opts {
			early, full := simulateSwitched(t, &c, st, o, &fullFlush)
			if early.JobFailures == 0 {
				t.Fatalf("%s, seed %d: no failure", st.Name, o.Seed)
			}
			if a, b := fmt.Sprintf("%#v", early), fmt.Sprintf("%#v", full); a != b {
				t.Fatalf("%s, seed %d:\nearly return %s\nfull         %s", st.Name, o.Seed, a, b)
			}
		}
	}
}

// request sets every field of the waiting request it appends: pending has
// the six fields request sets (a field added to pending and not to
// request fails the count), and a request appended over a slot that held
// another has none of its values.
func TestPendingFieldsSet(t *testing.T) {
	if n := reflect.TypeFor[pending]().NumField(); n != 6 {
		t.Fatalf("pending has %d fields, request sets 6: set the new ones in request and here", n)
	}
	c := small()
	st, err := Lookup("ordered-daly", 3600)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSimulator(&c, st, Options{Span: 2 * Day, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	old := &job{id: 99}
	s.wbuf = make([]pending, 0, 4)
	s.waiting = s.wbuf[:0]
	junk := pending{j: old, kind: Output, bytes: 1, dur: 2, since: 3, seq: 4}
	s.wbuf[:1][0] = junk   // a stale slot (as one past the requests can hold before a move back)
	s.holder = &transfer{} // the token is taken: the request waits
	j := s.queue[0]
	s.seq = 17
	s.request(j, Checkpoint, 5e8)
	want := pending{j: j, kind: Checkpoint, bytes: 5e8, dur: 5e8 / s.beta, since: s.sim.Now(), seq: 17}
	if len(s.waiting) != 1 || s.waiting[0] != want {
		t.Fatalf("waiting %+v, want [%+v]", s.waiting, want)
	}
}
