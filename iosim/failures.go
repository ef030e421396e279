package iosim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-hpc/ckpt/des"
)

// The failures of a trial. A node's failure times depend on the seed, the
// node and the MTBF alone (its own stream, des.Stream(seed,
// streamFailures, node)), never on the strategy, so the runs of a trial
// (TrialContext: the eight default strategies on one seed) draw the same
// times. The first run that needs them draws them all into a
// failureTrace; the others read it. A run then costs O(failing nodes) to
// set up instead of O(N) generators peeked at, and draws nothing; at
// Cielo ×1 the peeks and the failing nodes' generators were 8 % of a
// trial's CPU. The runs fire the same events at the same times with the
// same sequence numbers (a node's next failure is still scheduled when its
// previous one fires), so every result is the same bit for bit.

// failureTrace holds the failure times in [0, w1] of every node that
// fails there: node[i]'s are times[off[i]:off[i+1]], increasing.
type failureTrace struct {
	seed  uint64
	nodes int
	mu    float64
	w1    float64
	ok    bool // drawn (not too many failures, see maxTraceFailures)
	node  []int32
	off   []int
	times []float64
	// order is the failures (indices in times) by time; nodeOf and next
	// are each failure's node and the node's next failure (-1: none).
	// Built by index, for failureWalk.
	order, nodeOf, next []int32
}

// maxTraceFailures bounds the failures a trace holds (28 bytes each:
// the time, order, node and next index, and a run's sequence number): a
// platform whose expected failures exceed it (a tiny MTBF) is simulated
// with its generators drawn as the run goes, as a single run is, and
// MaxEvents stops it.
const maxTraceFailures = 1 << 22

// failureCache is what TrialContext shares between its runs: the failure
// times, and the memory of the last run done (its nodes' table, free
// list, job slab and node lists), lent to the next: at Cielo ×1 these
// were 5 of a trial's 7 MB allocated, and the GC they caused, with its
// write barriers, 20 % of the CPU.
type failureCache struct {
	trace    *failureTrace
	nodeJob  []uint64
	free     []int32
	slab     []job
	nodeBufs [][]int32
	fseq     []uint64 // failureWalk.seq's memory
}

// lend gives s its nodes' table and free list for N nodes and its slab
// for J jobs (zeroed), from fc's memory when it is large enough (fc may
// be nil).
func (fc *failureCache) lend(s *simulator, N, J int) {
	if fc != nil && cap(fc.nodeJob) >= N && cap(fc.free) >= N {
		s.nodeJob = fc.nodeJob[:N]
		clear(s.nodeJob) // entries of the last run could read as its jobs
		s.free = fc.free[:N]
		s.nodeBufs = fc.nodeBufs // ids, overwritten by start
	} else {
		s.nodeJob = make([]uint64, N)
		s.free = make([]int32, N)
	}
	if fc != nil && cap(fc.slab) >= J && J > 0 {
		s.slab = fc.slab[:J]
		clear(s.slab) // no event of the last run may serve a new job
	} else if J > 0 {
		s.slab = make([]job, J) // the list's jobs, one allocation
	}
	s.slabAll = s.slab
	if fc != nil {
		fc.nodeJob, fc.free, fc.slab, fc.nodeBufs = nil, nil, nil, nil
	}
}

// keep takes back the memory of s, whose run is over (fc may be nil).
func (fc *failureCache) keep(s *simulator) {
	if fc == nil {
		return
	}
	fc.nodeJob, fc.free, fc.nodeBufs = s.nodeJob, s.free[:0:cap(s.free)], s.nodeBufs
	// The running jobs' node lists and the last release's too: the next
	// run's first starts fill the platform again.
	for _, j := range s.running {
		if len(fc.nodeBufs) < maxNodeBufs {
			fc.nodeBufs = append(fc.nodeBufs, j.nodes)
		}
	}
	if s.tail != nil && len(fc.nodeBufs) < maxNodeBufs {
		fc.nodeBufs = append(fc.nodeBufs, s.tail)
	}
	if s.slabAll != nil {
		fc.slab = s.slabAll
	}
	if s.fw.seq != nil {
		fc.fseq = s.fw.seq
	}
}

// traceFor returns the trace of (seed, N nodes, MTBF mu, window end w1),
// drawing it on the first call or when the key changed; nil when the
// expected failures exceed maxTraceFailures.
func (fc *failureCache) traceFor(seed uint64, N int, mu, w1 float64) *failureTrace {
	if t := fc.trace; t != nil && t.seed == seed && t.nodes == N && t.mu == mu && t.w1 == w1 {
		if !t.ok {
			return nil
		}
		return t
	}
	t := &failureTrace{seed: seed, nodes: N, mu: mu, w1: w1}
	fc.trace = t
	if !(float64(N)*(w1/mu+1) <= maxTraceFailures) { // the mean count, NaN-safe
		return nil
	}
	var peek des.Peeker
	for k := range N {
		// As newSimulator's lazy draws, each time added to the last. The
		// peeked generator is in the node's stream's state (des.Peeker),
		// so the node's next times are drawn from it, without the two
		// allocations of a des.Stream per failing node.
		r := peek.Peek(seed, streamFailures, uint64(k))
		at := r.ExpFloat64() * mu
		if at > w1 {
			continue
		}
		t.node = append(t.node, int32(k))
		t.off = append(t.off, len(t.times))
		for at <= w1 {
			if len(t.times) >= maxTraceFailures {
				t.node, t.off, t.times = nil, nil, nil
				return nil // a rare long draw: the lazy way
			}
			t.times = append(t.times, at)
			at += r.ExpFloat64() * mu
		}
	}
	t.off = append(t.off, len(t.times))
	t.ok = true
	return t
}

// traceFailures queues the failures of t: one event, the earliest
// pending failure's (see failureWalk), unless perNodeFailures.
func (s *simulator) traceFailures(t *failureTrace) {
	if perNodeFailures {
		s.traceFailuresPerNode(t)
		return
	}
	t.index()
	w := &s.fw
	w.t = t
	if fc := s.opt.failures; fc != nil && cap(fc.fseq) >= len(t.times) {
		w.seq = fc.fseq[:len(t.times)]
		clear(w.seq)
		fc.fseq = nil
	} else {
		w.seq = make([]uint64, len(t.times))
	}
	base := s.sim.Reserve(len(t.node)) // as len(t.node) calls of Schedule
	for i := range t.node {
		w.seq[t.off[i]] = base + uint64(i) + 1
	}
	w.p = 0
	w.ev = s.sim.NewEvent(s.walkFailure)
	s.queueFailure()
}

// failureWalk is a run's pending failures, all in one event. Each node's
// next failure is pending from the firing of its previous one (its first
// from the set-up), with the sequence number a Schedule at that moment
// would have given it (des.Sim.Reserve); the event is queued at the
// earliest pending failure by (time, sequence number) — the failure the
// per-node events' heap would pop next among them — so the run fires the
// same failures, interleaved with its other events, in the same order as
// one event per failing node (traceFailuresPerNode, the tests' oracle),
// while the queue holds one event where it held every failing node's
// (at Cielo ×1 about 1 270 at the start of a run and most of the 760
// pending on average). Cost: O(1) per failure, O(k) for a tie of k
// failures at the same time.
type failureWalk struct {
	t *failureTrace
	// seq is, per failure (index in t.times), 1 + its sequence number
	// once pending, 0 before, failureFired once fired.
	seq []uint64
	p   int   // t.order[:p] have fired
	cur int32 // the failure ev is queued for
	ev  *des.Event
}

// failureFired marks a fired failure in failureWalk.seq.
const failureFired = ^uint64(0)

// queueFailure queues the walk's event at its earliest pending failure
// (none when all have fired).
func (s *simulator) queueFailure() {
	w := &s.fw
	o, times := w.t.order, w.t.times
	for w.p < len(o) && w.seq[o[w.p]] == failureFired {
		w.p++
	}
	if w.p == len(o) {
		return
	}
	c := o[w.p]
	at := times[c]
	// Failures at the same time fire by sequence number, among those
	// pending (a node's next failure at the same time is not yet).
	for q := w.p + 1; q < len(o) && times[o[q]] == at; q++ {
		if sq := w.seq[o[q]]; sq != 0 && sq != failureFired && (w.seq[c] == 0 || sq < w.seq[c]) {
			c = o[q]
		}
	}
	if w.seq[c] == 0 {
		s.err = fmt.Errorf("internal error: no pending failure at %v", at)
		return
	}
	w.cur = c
	s.sim.ScheduleSeq(w.ev, at, w.seq[c]-1)
}

// walkFailure fires the walk's failure: as traceFailure does.
func (s *simulator) walkFailure() {
	w := &s.fw
	c := w.cur
	if s.sim.Now() >= s.w0 {
		s.res.NodeFailures++
	}
	w.seq[c] = failureFired
	if nx := w.t.next[c]; nx >= 0 {
		w.seq[nx] = s.sim.Reserve(1) + 1 // the node's next, as Schedule would number it
	}
	s.queueFailure()
	s.failNode(w.t.nodeOf[c])
}

// perNodeFailures, set by tests alone, gives each failing node its own
// event (traceFailuresPerNode), the oracle of failureWalk.
var perNodeFailures = false

// traceFailuresPerNode schedules the first failure of every node of t;
// each failure schedules the node's next one when it fires.
func (s *simulator) traceFailuresPerNode(t *failureTrace) {
	fs := make([]traceFailure, len(t.node)) // one allocation for the run
	for i, k := range t.node {
		f := &fs[i]
		f.k, f.times = k, t.times[t.off[i]:t.off[i+1]]
		f.ev = s.sim.NewEvent(func() { s.traceFailure(f) })
		s.sim.Schedule(f.ev, f.times[0])
	}
}

// traceFailure is a node's failure at f.times[f.i].
type traceFailure struct {
	ev    *des.Event
	times []float64
	i     int
	k     int32
}

// traceFailure fires f: as nodeFailure's event does.
func (s *simulator) traceFailure(f *traceFailure) {
	if s.sim.Now() >= s.w0 {
		s.res.NodeFailures++
	}
	if f.i++; f.i < len(f.times) {
		s.sim.Schedule(f.ev, f.times[f.i])
	}
	s.failNode(f.k)
}

// index builds t's order, nodeOf and next (once per trace: the runs of a
// trial share them).
func (t *failureTrace) index() {
	if t.order != nil || len(t.times) == 0 {
		return
	}
	n := len(t.times)
	t.order = make([]int32, n)
	t.nodeOf = make([]int32, n)
	t.next = make([]int32, n)
	for i, k := range t.node {
		for x := t.off[i]; x < t.off[i+1]; x++ {
			t.nodeOf[x] = k
			t.next[x] = int32(x + 1)
		}
		t.next[t.off[i+1]-1] = -1
	}
	for x := range t.order {
		t.order[x] = int32(x)
	}
	slices.SortStableFunc(t.order, func(a, b int32) int { return cmp.Compare(t.times[a], t.times[b]) })
}

// failNode kills the job on node k, if any.
func (s *simulator) failNode(k int32) {
	if j := s.jobOn(k); j != nil {
		s.count(evFailJob)
		s.fail(j)
	} else {
		s.count(evFailFree)
	}
}
