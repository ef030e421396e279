package iosim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/des"
)

// Day is 24 hours in seconds.
const Day = 86400.0

// Options are the knobs of one simulated run.
type Options struct {
	// Span is the simulated time in seconds; the metrics cover
	// [Skip, Span−Skip]. Span = 0 means 62 days and then Skip = 0 means
	// 1 day: the 60-day window of Section VI-A.
	Span, Skip float64
	// Seed selects the job list and the failure times.
	Seed uint64
	// NoFailures switches failures off.
	NoFailures bool
	// IOChunk is the compute time between two regular I/O transfers
	// (default 1 h): a class's regular I/O is spread evenly over its work
	// in transfers of RegularIO × memory × IOChunk / work bytes.
	IOChunk float64
	// Jobs, when non-nil, is the job list to run (else GenerateJobs).
	Jobs []Job
	// MaxEvents aborts a run that fires more events (default
	// DefaultMaxEvents) with an error wrapping ErrTooManyEvents.
	MaxEvents uint64
	// ComputeFullPeriod computes P seconds between the end of a
	// checkpoint and the next request, as the paper's simulator does
	// (src/Task.C: CkptStartTask at date + ckpt_interval), instead of
	// Section II's P − C (the default, floored at 0 when C ≥ P).
	ComputeFullPeriod bool
	// Failures, when non-nil, replaces the random node failures by these
	// (for hand-computed cases and replaying a failure log).
	Failures []NodeFailure
	// Scheduler is how queued jobs are started when nodes free up
	// (default Reserve).
	Scheduler Scheduler
	// Accounting is how node-seconds are booked into the Split (default
	// OurAccounting; see Accounting).
	Accounting Accounting
	// Remote, when non-nil, grants the I/O token instead of the
	// strategy's Arbiter (Sharing Token only): the checkpoint coordinator
	// driven with the simulated clock (see RemoteArbiter).
	Remote RemoteArbiter
	// Authors switches on the authors' simulator's behaviours (see
	// AuthorsModel; all off by default).
	Authors AuthorsModel
	// VirtualTime tracks Proportional sharing in virtual time: O(log T)
	// per transfer start or end for T concurrent transfers instead of
	// O(T), the same model to within rounding but not bit for bit, so
	// that a run's figures move by Monte Carlo noise (see
	// virtualshare.go). Off by default: every published output was made
	// the exact way.
	VirtualTime bool

	// drainEnd is, under AuthorsModel.Drain, when the first pass's last
	// job ended (0 in the first pass; see simulateDrain).
	drainEnd float64
	// failures, set by TrialContext, shares the failure times between
	// the runs of a trial (see failureTrace).
	failures *failureCache
}

// Accounting is how a run's node-seconds are booked into its Split.
type Accounting int

const (
	// OurAccounting (the default) books input, output and regular I/O at
	// their interference-free duration (q × bytes/β; the slow-down and
	// the waits for the I/O token are Idle), and recovery reads, blocking
	// waits for the checkpoint token and checkpoint commits as Checkpoint.
	// Waste compares a run with the baseline of the same seed.
	OurAccounting Accounting = iota
	// AuthorsAccounting books as the paper's simulator does
	// (src/Trace.C of SMURFSorg/InterferingCheckpoints): every I/O —
	// input, output, regular I/O and recovery reads — as IO for its whole
	// span from the request to the end of the transfer (token waits and
	// slow-down included); a checkpoint as Checkpoint from its start (the
	// request for blocking strategies, the grant for non-blocking ones)
	// to its commit; at a failure the work and I/O since the last
	// committed checkpoint become Lost, and the segment in progress is
	// booked nowhere by the authors (Idle here). Their post-processing
	// (sim/figures/*-csv2dat.py of SMURFSorg/ABBFHR17-cCR-Platform)
	// normalises every run by the largest baseline useful time of the
	// whole result file: see Renormalize.
	AuthorsAccounting
)

var accountingNames = [...]string{"ours", "authors"}

func (a Accounting) String() string {
	if a < 0 || int(a) >= len(accountingNames) {
		return fmt.Sprintf("Accounting(%d)", int(a))
	}
	return accountingNames[a]
}

// ParseAccounting returns the Accounting named name ("ours", "authors").
func ParseAccounting(name string) (Accounting, error) {
	for i, n := range accountingNames {
		if n == name {
			return Accounting(i), nil
		}
	}
	return 0, fmt.Errorf("unknown accounting %q (known: ours, authors)", name)
}

// Scheduler is the batch scheduler's policy for the job queue (the list
// of Section V, restarts at its head).
type Scheduler int

const (
	// Reserve (the default) is first-fit in priority order with a
	// reservation for the first queued job that does not fit (EASY
	// backfilling): jobs start in queue order while they fit; the first
	// that does not gets the earliest time at which the running jobs'
	// planned ends free enough nodes for it, and a later job may start
	// now only if its planned end precedes that time or it uses nodes the
	// reserved job will not need. Planned durations are interference-free
	// (remaining work, its checkpoints at the job's period, pending
	// transfers at the full bandwidth) and are recomputed at every job
	// start, end and failure: the plan is amended whenever a job ends
	// early or late (Section V). Every job is planned in its turn, so the
	// classes run in the proportions of the list; a backfilled job slowed by
	// I/O contention, or a pending input or recovery read the plan does not
	// count, can still delay the job at the head a little.
	Reserve Scheduler = iota
	// Greedy starts, at every job end, any queued job that fits, in queue
	// order, with no reservation. It packs nodes well but starves wide
	// jobs: on Cielo the baseline runs Silverton (2 048 nodes) for 8 % of
	// the node-time instead of its 16.5 % share, on the prospective system
	// for 1 % (8 seeds). Kept for comparison.
	Greedy
)

var schedulerNames = [...]string{"reserve", "greedy"}

func (s Scheduler) String() string {
	if s < 0 || int(s) >= len(schedulerNames) {
		return fmt.Sprintf("Scheduler(%d)", int(s))
	}
	return schedulerNames[s]
}

// ParseScheduler returns the Scheduler named name ("reserve", "greedy").
func ParseScheduler(name string) (Scheduler, error) {
	for i, n := range schedulerNames {
		if n == name {
			return Scheduler(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scheduler %q (known: reserve, greedy)", name)
}

// NodeFailure is a failure of node Node (0-based) at time Time (s).
type NodeFailure struct {
	Time float64
	Node int
}

func (o Options) withDefaults() Options {
	if o.Span == 0 {
		o.Span = 62 * Day
		if o.Skip == 0 {
			o.Skip = Day
		}
	}
	if o.IOChunk == 0 {
		o.IOChunk = 3600
	}
	if o.MaxEvents == 0 {
		o.MaxEvents = DefaultMaxEvents
	}
	return o
}

// Split is where the node-seconds of the window went. Work + IO +
// Checkpoint + Lost + Idle = nodes × window.
type Split struct {
	// Work: computation not rolled back by a failure.
	Work float64 `json:"work"`
	// IO: input, output and regular I/O not rolled back, counted at the
	// interference-free rate (q × bytes/β); the slow-down part of a
	// shared transfer is Idle.
	IO float64 `json:"io"`
	// Checkpoint: checkpoint commits and recovery reads (whatever their
	// rate) and blocking waits for the checkpoint or recovery token.
	Checkpoint float64 `json:"checkpoint"`
	// Lost: computation and I/O rolled back by failures.
	Lost float64 `json:"lost"`
	// Idle: nodes without a job, jobs waiting for an input/output/regular
	// I/O token, and the slow-down part of shared I/O transfers.
	Idle float64 `json:"idle"`
}

// Total is the sum of the five parts.
func (s Split) Total() float64 { return s.Work + s.IO + s.Checkpoint + s.Lost + s.Idle }

// Useful is Work + IO, the progress the waste is measured on.
func (s Split) Useful() float64 { return s.Work + s.IO }

// Run is the outcome of one simulated run.
type Run struct {
	Strategy string  `json:"strategy"`
	Seed     uint64  `json:"seed"`
	Nodes    int     `json:"nodes"`
	Window   float64 `json:"window"` // seconds
	Split    Split   `json:"split"`  // node-seconds
	// CheckpointActual and CheckpointNominal sum q × (commit − request)
	// and q × C over the checkpoints committed in the window (for
	// non-blocking strategies the request time is the grant time);
	// Slowdown is their ratio (Fig. 1).
	CheckpointActual  float64 `json:"checkpoint_actual"`
	CheckpointNominal float64 `json:"checkpoint_nominal"`
	Checkpoints       int     `json:"checkpoints"`
	NodeFailures      int     `json:"node_failures"`
	JobFailures       int     `json:"job_failures"`
	JobsStarted       int     `json:"jobs_started"`
	JobsCompleted     int     `json:"jobs_completed"`
	// Busy is the fraction of the window's node-seconds allocated to jobs.
	Busy float64 `json:"busy"`
	// ClassShares is, per class, its fraction of the window's allocated
	// node-seconds (Table I's shares when the class mix is respected).
	ClassShares []float64 `json:"class_shares"`
	Events      uint64    `json:"events"`
}

// Slowdown is CheckpointActual / CheckpointNominal (NaN without checkpoints).
func (r Run) Slowdown() float64 { return r.CheckpointActual / r.CheckpointNominal }

// Waste is 1 − useful(run)/useful(baseline) (Section VI-A).
func Waste(run, baseline Run) float64 { return 1 - run.Split.Useful()/baseline.Split.Useful() }

type jstate int

const (
	sWait     jstate = iota // waiting for the token for a blocking transfer
	sTransfer               // transferring
	sCompute                // computing (possibly with a non-blocking checkpoint request pending)
	sDone                   // finished or failed
	sDropped                // the segment a failure interrupts, under AuthorsAccounting (booked as Idle)
)

type job struct {
	id, class, q int
	slot         int32   // index in simulator.slots while running, else -1
	mark         uint32  // its nodes' mark in nodeJob (see markNodes)
	work         float64 // compute seconds to do in this run
	progress     float64 // compute seconds done in this run
	committed    float64 // progress saved by the last checkpoint of this run
	stopped      float64 // progress when j last stopped computing (AuthorsModel.RestartFromStop)
	afterRead    bool    // no checkpoint committed since j's input or recovery read (AuthorsModel.StaleOutput)
	skipped      bool    // a checkpoint request of j was dropped (AuthorsModel.StaleOutput)
	cpos         int32   // j's leaf in its class's queue while queued (see classqueue.go)
	commitDate   float64 // when j's last checkpoint (of any run) committed (AuthorsModel.InheritedCheckpointDate)
	startDate    float64 // when this run of j started (AuthorsModel.InheritedCheckpointDate)
	listIdx, run int     // j's index in the job list and its run (0, then 1 per restart): AuthorsModel.IntegerRisk's order
	snapshot     float64 // progress at the start of the current checkpoint
	ioDone       float64 // progress up to which regular I/O is done
	ioPerWork    float64 // regular I/O bytes per compute second
	inKind       Kind
	inBytes      float64
	hasCkpt      bool // a checkpoint of this job exists (this run or an earlier one)
	gap          float64
	ckptDue      float64
	lastCkpt     float64
	ckptPending  bool // non-blocking checkpoint request waiting for the token
	state        jstate
	kind         Kind // of the current transfer or awaited token
	since        float64
	vSince       float64 // the virtual clock at since (Proportional, see share.go)
	ev           *des.Event
	tr           *transfer
	nodes        []int32
	nodesRev     bool    // j's nodes are nodes in reverse (see start)
	unWork, unIO float64 // in-window node-seconds since the last commit
	runIdx       int
	origInput    float64
	outBytes     float64
	ckptBytes    float64
	ckptTime     float64
	// waits counts j's entries in waiting.
	waits int
	// plan is planned(j) while j is queued, once planSet.
	plan    float64
	planSet bool
	// qkey is j's order key in the queue (see classqueue.go), in
	// planSet's padding as cpos is in skipped's: the job keeps its size.
	qkey int32
	// trBuf is the memory of j's transfer (one at a time) and trEv its
	// completion under Token and Unlimited sharing, reused (see startTransfer).
	trBuf transfer
	trEv  *des.Event
}

// maxNodeBufs bounds the node lists kept for reuse, and maxNodeBufLen
// the room a node list gets beyond its job's nodes (see start).
const (
	maxNodeBufs   = 64
	maxNodeBufLen = 1 << 14
)

type transfer struct {
	j         *job
	kind      Kind
	remaining float64
	rate      float64
	last      float64
	req       float64
	ev        *des.Event
	start     float64
	end       float64 // Proportional: completion time at the current rate
	seq       uint64  // Proportional: its sequence number (see reshare)
	// Options.VirtualTime (see virtualshare.go): the virtual finish time,
	// the start order and the index in simulator.shares (-1 when not there).
	fin  float64
	ord  uint64
	hidx int
}

// reset makes tr a new transfer of j:
// transfer{j: j, kind: kind, remaining: bytes, rate: rate, last: now, req: req, start: now, hidx: -1},
// field by field. The literal was built on the stack and copied (wbMove
// and 16-byte loads of 8-byte stores just made: store-forwarding stalls,
// 3–4 % of a Cielo ×1 trial); TestTransferResetIsLiteral checks that
// every field is set as the literal sets it.
func (tr *transfer) reset(j *job, kind Kind, bytes, rate, now, req float64) {
	tr.j, tr.kind, tr.remaining, tr.rate, tr.last, tr.req = j, kind, bytes, rate, now, req
	tr.ev, tr.start, tr.end, tr.seq = nil, now, 0, 0
	tr.fin, tr.ord, tr.hidx = 0, 0, -1
}

type pending struct {
	j     *job
	kind  Kind
	bytes float64
	dur   float64 // bytes / β, the request's Duration (computed once, not at every grant)
	since float64
	seq   uint64
}

type simulator struct {
	cfg    *Config
	st     Strategy
	opt    Options
	sim    *des.Sim
	beta   float64
	w0, w1 float64

	queue   []*job // not yet started; restarts at the head
	running []*job
	free    []int32
	// tail is the last release's nodes, on free's top in their order
	// (reversed when tailRev) but not yet appended (see release); nFree
	// counts free's nodes and tail's.
	tail    []int32
	tailRev bool
	nFree   int
	// nodeJob is, on each node, 1 + the slot of the job running there and
	// the job's mark in the high half (0 or stale when free: see jobOn; no
	// pointers: no GC write barriers).
	// slots holds the running jobs by slot; freeSlots the slots to reuse. Memory is
	// proportional to the running jobs, never to the restarts.
	nodeJob   []uint64
	slots     []*job
	freeSlots []int32
	// nodeBufs are node lists of finished jobs, reused to avoid allocation
	// (at most maxNodeBufs kept).
	nodeBufs [][]int32
	minQ     int
	maxQ     int // the widest class's nodes
	nextID   int
	ends     []release // Reserve: planned ends of the running jobs

	active  []*transfer // Proportional
	holder  *transfer   // Token
	waiting []pending   // Token, in arrival order (see waiting.go)
	wbuf    []pending   // waiting's backing array, from its start
	seq     uint64
	reqBuf  []Request
	freed   freed // Remote: the token's end not yet told (see remoteFree)
	// lastIO is, under Ordered with KeepReservations, the planned end of
	// the failed slot that ended the schedule, when lastIOSet (see
	// paidBack).
	lastIO    float64
	lastIOSet bool

	// sumQ is the nodes of the active transfers; shareEv, the earliest
	// of their completions, shareNext's (see reshare). naiveShare
	// selects the straightforward reshare (the tests' oracle).
	sumQ       int
	shareEv    *des.Event
	shareNext  *transfer
	naiveShare bool
	// virtual is Options.VirtualTime (see virtualshare.go): shares are
	// the active transfers by virtual finish time, shareSeq the earliest
	// one's sequence number, shareOrd the next start order; vClock is the
	// virtual clock at vAt, vRate its rate, vW0 and vW1 its values at the
	// window's ends once passed.
	virtual        bool
	shares         shareHeap
	shareSeq       uint64
	shareOrd       uint64
	vClock, vAt    float64
	vRate          float64
	vW0, vW1       float64
	vW0Set, vW1Set bool
	rec            *Timeline   // nil unless SimulateTimeline
	fw             failureWalk // the failures of a trial's trace (see traceFailures)

	qbuf  []*job   // queue's backing array (see popFront)
	qinfo []queued // the queue's nodes and plans (see queued)
	qibuf []queued // qinfo's backing array
	qhead int
	// cq is the queue by class (nil: the passes scan the queue); keyFront
	// and keyBack the next keys at the queue's ends; passes counts the
	// scheduler's passes (see classqueue.go).
	cq                []classQueue
	cqDecided         bool
	keyFront, keyBack int32
	passes            uint64
	slab              []job // memory of the jobs not made yet (see takeJob)
	spare             *job  // a failed job's memory, for its restart (see reusable)
	// slabAll is the whole slab, lent by a trial's cache (see lend).
	slabAll []job
	// freeOps counts the pushes and pops of free; lastFree is the last
	// release (see markNodes).
	freeOps  uint64
	lastFree freeMark
	marks    uint32 // the last mark given (see markNodes)

	lastEnd   float64 // when the last job completed (AuthorsModel.Drain)
	acc       Split
	classNS   []float64 // allocated node-seconds per class in the window
	freeIdle  float64
	freeSince float64
	res       Run
	err       error
}

// DefaultMaxEvents is the default Options.MaxEvents: far more than a
// 60-day run of the embedded platforms needs (about 10⁴–10⁶ events).
const DefaultMaxEvents = 200_000_000

// ErrTooManyEvents is wrapped by the error of a run that fires more than
// Options.MaxEvents events.
var ErrTooManyEvents = errors.New("too many events")

// checkEvery is how many events a run fires between two looks at its
// context (a few milliseconds of work).
const checkEvery = 4096

// SimulateContext runs strategy st on the platform and workload of c and
// returns the window's accounting. It is deterministic in (c, st, opt).
// It stops when ctx is done: the context is checked every
// few thousand events, so a cancelled run returns ctx's error within
// milliseconds. With random failures, a platform on which some class
// cannot make progress is refused up front (see Config.CheckProgress).
//
// Complexity: O(E log E) time for E events (job phases, node failures, and —
// under Proportional sharing — O(T) rate updates per transfer start/end
// for T concurrent transfers, O(log T) with Options.VirtualTime); O(N + J) memory for N nodes and J jobs in
// the list, whatever the number of failures and restarts.
func SimulateContext(ctx context.Context, c *Config, st Strategy, opt Options) (Run, error) {
	if opt.Authors.Drain && opt.drainEnd == 0 {
		return simulateDrain(ctx, c, st, opt)
	}
	s, err := newSimulator(c, st, opt)
	if err != nil {
		return Run{}, err
	}
	if err := s.run(ctx); err != nil {
		return Run{}, err
	}
	r := s.result()
	opt.failures.keep(s) // s is done with
	return r, nil
}

// checkOptions refuses options SimulateContext cannot run.
func checkOptions(c *Config, st Strategy, opt Options) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if !(opt.Span > 2*opt.Skip) || opt.Skip < 0 || math.IsInf(opt.Span, 0) {
		return fmt.Errorf("span %gs must be finite and exceed twice the skipped time %gs", opt.Span, opt.Skip)
	}
	if !(opt.IOChunk > 0) {
		return fmt.Errorf("io chunk must be positive, got %g", opt.IOChunk)
	}
	if opt.Scheduler != Reserve && opt.Scheduler != Greedy {
		return fmt.Errorf("unknown scheduler %d", int(opt.Scheduler))
	}
	if opt.Accounting != OurAccounting && opt.Accounting != AuthorsAccounting {
		return fmt.Errorf("unknown accounting %d", int(opt.Accounting))
	}
	if opt.Remote != nil && st.Sharing != Token {
		return errors.New("strategy " + st.Name + ": a remote arbiter arbitrates token sharing only")
	}
	if st.Sharing == Token && st.Arbiter == nil && opt.Remote == nil {
		return errors.New("strategy " + st.Name + ": token sharing needs an arbiter")
	}
	if err := opt.Authors.check(opt); err != nil {
		return err
	}
	if !opt.NoFailures && opt.Failures == nil {
		return c.CheckProgress()
	}
	return nil
}

// newSimulator builds the initial state: the job queue, the free nodes and
// the first failure of every node.
func newSimulator(c *Config, st Strategy, opt Options) (*simulator, error) {
	opt = opt.withDefaults()
	if err := checkOptions(c, st, opt); err != nil {
		return nil, err
	}
	c = opt.Authors.config(c)
	jobs := opt.Jobs
	if jobs == nil {
		var err error
		if jobs, err = generateJobs(c, opt); err != nil {
			return nil, err
		}
	}
	N := c.Platform.Nodes
	s := &simulator{cfg: c, st: st, opt: opt, sim: des.New(), beta: float64(c.Platform.Bandwidth),
		w0: opt.Skip, w1: opt.Span - opt.Skip, minQ: N, classNS: make([]float64, len(c.Classes))}
	opt.failures.lend(s, N, len(jobs))
	s.w0, s.w1 = opt.Authors.window(opt)
	s.st = opt.Authors.strategy(st)
	s.virtual = opt.VirtualTime
	s.res = Run{Strategy: st.Name, Seed: opt.Seed, Nodes: N, Window: s.w1 - s.w0}
	for i := range N {
		s.free[i] = int32(N - 1 - i) // pop gives node 0 first
	}
	s.nFree = N
	for _, cl := range c.Classes {
		s.minQ = min(s.minQ, cl.Nodes)
		s.maxQ = max(s.maxQ, cl.Nodes)
	}
	for _, jb := range jobs {
		if jb.Class < 0 || jb.Class >= len(c.Classes) || !(jb.Work > 0) {
			return nil, fmt.Errorf("job %d: bad class %d or work %g", jb.ID, jb.Class, jb.Work)
		}
		s.pushBack(s.newJob(jb.Class, jb.Work))
	}
	switch {
	case opt.NoFailures:
	case opt.Failures != nil:
		for _, f := range opt.Failures {
			if f.Node < 0 || f.Node >= N || !(f.Time >= 0) {
				return nil, fmt.Errorf("failure of node %d at %g: outside the platform or the span", f.Node, f.Time)
			}
			s.nodeFailure(int32(f.Node), f.Time, func() float64 { return math.Inf(1) })
		}
	case opt.failures != nil && opt.failures.traceFor(opt.Seed, N, float64(c.Platform.NodeMTBF), s.w1) != nil:
		s.traceFailures(opt.failures.trace)
	default:
		mu := float64(c.Platform.NodeMTBF)
		var peek des.Peeker // a node's own stream only if it fails in the span
		for k := range N {
			t := peek.Peek(opt.Seed, streamFailures, uint64(k)).ExpFloat64() * mu
			if t > s.w1 {
				continue // as nodeFailure would
			}
			r := des.Stream(opt.Seed, streamFailures, uint64(k))
			r.ExpFloat64() // t again
			s.nodeFailure(int32(k), t, func() float64 { return r.ExpFloat64() * mu })
		}
	}
	return s, nil
}

// run fires the events of the window, looking at ctx every checkEvery
// events.
func (s *simulator) run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.schedule()
	for s.err == nil && s.sim.Peek() <= s.w1 && !s.drained() {
		s.sim.Step()
		n := s.sim.Processed()
		if n > s.opt.MaxEvents {
			end := s.opt.Span
			if s.opt.Authors.Drain {
				end = s.w1 // Span is not used
			}
			return fmt.Errorf("run of %s aborted after %d events at t = %.0f s of %.0f s: %w (raise the limit, MaxEvents or --max-events)",
				s.st.Name, s.opt.MaxEvents, s.sim.Now(), end, ErrTooManyEvents)
		}
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return s.err
}

// result closes the window's accounting.
func (s *simulator) result() Run {
	N := s.cfg.Platform.Nodes
	s.sim.RunUntil(s.w1 - 0) // no event left ≤ w1; moves the clock
	if s.rec != nil {
		s.recOpen()
	}
	for _, j := range s.running {
		s.flush(j)
	}
	s.flushFree()
	s.res.Split = s.acc
	s.res.Busy = 1 - s.freeIdle/(float64(N)*s.res.Window)
	alloc := 0.0
	for _, v := range s.classNS {
		alloc += v
	}
	s.res.ClassShares = make([]float64, len(s.classNS))
	for k, v := range s.classNS {
		if alloc > 0 {
			s.res.ClassShares[k] = v / alloc
		}
	}
	s.res.Events = s.sim.Processed()
	return s.res
}

func (s *simulator) newJob(class int, work float64) *job {
	cl := &s.cfg.Classes[class]
	mem := s.cfg.JobMemory(class)
	C := cl.Checkpoint * mem / s.beta
	j := s.takeJob()
	ev, trEv := j.ev, j.trEv // a reused job's events, neither pending (see reusable)
	// Cleared in place, then set field by field: a literal with fields
	// was built on the stack and copied (as transfer.reset explains).
	*j = job{}
	j.id, j.class, j.q, j.work, j.ev, j.trEv = s.nextID, class, cl.Nodes, work, ev, trEv
	j.ioPerWork, j.inKind, j.inBytes = cl.RegularIO*mem/max(work, 1e-300), Input, cl.Input*mem
	j.origInput, j.outBytes, j.ckptBytes, j.ckptTime = cl.Input*mem, cl.Output*mem, cl.Checkpoint*mem, C
	j.runIdx, j.slot, j.listIdx = -1, -1, s.nextID
	s.nextID++
	P := s.st.Period.Period(cl.Nodes, C, float64(s.cfg.Platform.NodeMTBF))
	j.gap = max(P-C, 0) // Section II: next checkpoint P − C after the previous one ends
	if s.opt.ComputeFullPeriod {
		j.gap = P
	}
	return j
}

func (s *simulator) nodeFailure(k int32, t float64, next func() float64) {
	if t > s.w1 {
		return
	}
	// One event per failing node, scheduled again at each failure (as At
	// would, with the next sequence number) rather than allocated anew.
	var ev *des.Event
	ev = s.sim.NewEvent(func() {
		if s.sim.Now() >= s.w0 {
			s.res.NodeFailures++
		}
		if t := s.sim.Now() + next(); t <= s.w1 {
			s.sim.Schedule(ev, t)
		}
		s.failNode(k)
	})
	s.sim.Schedule(ev, t)
}

// clip is the length of [a, b] inside the window: max(0, min(b, w1) −
// max(a, w0)) written as comparisons. The builtins' branch-free sequences
// for NaN and the sign of zero (two MINSD, a POR and sign flips each, one
// dependent chain of ≈ 25 cycles) were a tenth of a trial's profile (the
// gain measured on the whole trial: about 2 %); here the
// branches are predictable (an interval is almost always inside the
// window) and the value is the same for every input the simulator makes:
// a NaN still propagates from a or b, and a zero or negative length is +0
// as max(0, ·) gives (clipMatchesBuiltins checks both, ±0 and NaN included).
func (s *simulator) clip(a, b float64) float64 {
	if b > s.w1 {
		b = s.w1
	}
	if a < s.w0 {
		a = s.w0
	}
	if d := b - a; !(d <= 0) {
		return d // positive, or NaN as the builtins give
	}
	return 0
}

func (s *simulator) flushFree() {
	now := s.sim.Now()
	d := float64(s.nFree) * s.clip(s.freeSince, now)
	s.acc.Idle += d
	s.freeIdle += d
	s.freeSince = now
}

// flush charges j's node-seconds since j.since to the category of its
// current state.
//
// A second flush at the same time (46 % of them in a Cielo ×1 trial: a
// transfer's end flushes, then the next state's start) books q·0 = +0
// everywhere, adds +0 to the progress and sets since to itself: no bit
// changes (the sums start at +0 and adding ±0 to a sum that is not −0
// leaves it), so it returns at once — except in virtual time, where
// vSince is read from the virtual clock, which a reshare at the same time
// may have moved (TestRepeatFlushIsNoOp, against fullFlush).
func (s *simulator) flush(j *job) {
	now := s.sim.Now()
	if j.since == now && !s.virtual && !fullFlush {
		return
	}
	q := float64(j.q)
	c := q * s.clip(j.since, now)
	s.classNS[j.class] += c
	switch j.state {
	case sCompute:
		j.progress += now - j.since
		s.acc.Work += c
		j.unWork += c
	case sTransfer, sWait:
		if s.opt.Accounting == AuthorsAccounting {
			s.bookAuthors(j, c)
			break
		}
		switch {
		case j.kind == Checkpoint || j.kind == Recovery:
			s.acc.Checkpoint += c
		case j.state == sWait:
			s.acc.Idle += c
		case s.virtual && s.st.Sharing == Proportional:
			io := q * q * (s.vClamp(now, s.vTime(now)) - s.vClamp(j.since, j.vSince)) / s.beta
			s.acc.IO += io
			s.acc.Idle += c - io
			j.unIO += io
		default:
			f := j.tr.rate / s.beta
			s.acc.IO += c * f
			s.acc.Idle += c * (1 - f)
			j.unIO += c * f
		}
	case sDropped:
		s.acc.Idle += c
	}
	j.since = now
	if s.virtual {
		j.vSince = s.vTime(now)
	}
}

// fullFlush, set by tests alone, makes a repeated flush at the same time
// do the whole booking (the way before its early return): the oracle of
// TestRepeatFlushIsNoOp.
var fullFlush = false

// bookAuthors books c node-seconds of a transfer or of a blocking wait as
// the authors' simulator does: a checkpoint's as Checkpoint, any other
// I/O's (recovery reads included) as IO, whole span.
func (s *simulator) bookAuthors(j *job, c float64) {
	if j.kind == Checkpoint {
		s.acc.Checkpoint += c
		return
	}
	s.acc.IO += c
	j.unIO += c
}

// schedule starts queued jobs on the free nodes (see Scheduler).
func (s *simulator) schedule() {
	if countEvents == nil {
		s.pass()
		return
	}
	n := s.res.JobsStarted
	s.pass()
	if s.res.JobsStarted == n {
		s.count(evPassEmpty)
	} else {
		s.count(evPassStart)
	}
}

// pass is one pass of the scheduler over the queue.
func (s *simulator) pass() {
	s.passes++
	if checkQueueMirror {
		s.checkMirror()
		if s.cq != nil {
			s.checkClassQueue()
		}
	}
	if !s.cqDecided {
		s.cqDecided = true
		if !scanQueue && len(s.queue) >= classQueueMin {
			s.indexQueue()
		}
	}
	if s.opt.Scheduler == Greedy {
		if s.cq != nil {
			s.greedyIndexed()
			return
		}
		s.greedyScan(0)
		return
	}
	for len(s.queue) > 0 && int(s.qinfo[0].q) <= s.nFree {
		s.start(s.popFront())
	}
	if len(s.queue) < 2 || s.nFree < s.minQ {
		return
	}
	if s.cq != nil {
		s.easyIndexed()
		return
	}
	s.easyScan(1, 0, 0, false)
}

// greedyScan is Greedy's pass from the queue's i-th job: each job that
// fits the free nodes starts.
func (s *simulator) greedyScan(i int) {
	for i < len(s.queue) && s.nFree >= s.minQ {
		if int(s.qinfo[i].q) > s.nFree {
			i++
			continue
		}
		s.start(s.deleteAt(i))
	}
}

// easyScan is the EASY pass's backfilling from the queue's i-th job, with
// the reservation (shadow, extra) once reserved.
func (s *simulator) easyScan(i int, shadow float64, extra int, reserved bool) {
	now := s.sim.Now()
	// The reservation is computed at the first queued job that fits the
	// free nodes (none has started before it, so it is the one computed
	// before the pass): a pass that starts nothing skips it.
	for i < len(s.queue) && s.nFree >= s.minQ {
		e := &s.qinfo[i]
		q := int(e.q)
		fits := false
		if q <= s.nFree {
			if !reserved {
				shadow, extra = s.reservation(int(s.qinfo[0].q))
				reserved = true
			}
			p := e.plan // a queued job's plan, once computed (see planned)
			if !e.planSet {
				p = s.planned(s.queue[i])
				e.plan, e.planSet = p, true
			}
			if now+p <= shadow { // done before the reserved job starts
				fits = true
			} else if q <= extra { // on nodes the reserved job will not need
				extra -= q
				fits = true
			}
		}
		if !fits {
			i++
			continue
		}
		s.start(s.deleteAt(i))
	}
}

// release is a running job's planned end, its nodes and its index in
// running.
type release struct {
	t    float64
	q, i int // nodes, index in running
}

// reservation returns the earliest planned time at which q nodes are free
// (the shadow time of EASY backfilling) and how many nodes beyond q are
// free then.
func (s *simulator) reservation(q int) (shadow float64, extra int) {
	now := s.sim.Now()
	s.ends = s.ends[:0]
	for i, j := range s.running {
		s.ends = append(s.ends, release{now + s.planned(j), j.q, i})
	}
	return shadowTime(s.ends, s.nFree, q)
}

// shadowTime is the first of the planned ends, by time and ties in
// running order (a stable sort's order), at which free plus the nodes
// released so far reach q, and the nodes beyond q then. The ends are
// popped from a heap built in place: O(R + k log R) for the k ends
// needed, where sorting all R was O(R log R).
func shadowTime(h []release, free, q int) (shadow float64, extra int) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		releaseDown(h, i)
	}
	avail := free
	for len(h) > 0 {
		e := h[0]
		avail += e.q
		if avail >= q {
			return e.t, avail - q
		}
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		releaseDown(h, 0)
	}
	return math.Inf(1), 0
}

// releaseBefore orders planned ends by time (cmp.Compare's order, NaN
// first), then by index in running: a total order, so the heap pops
// them in the order a sort gives.
func releaseBefore(a, b release) bool {
	// Without a NaN, cmp.Compare is < and > (±0 equal); its NaN tests are
	// paid only when neither holds and the times are not equal either.
	switch {
	case a.t < b.t:
		return true
	case a.t > b.t:
		return false
	case a.t != b.t: // a NaN
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c < 0
		}
	}
	return a.i < b.i
}

// releaseDown sifts h[i] down the binary min-heap h.
func releaseDown(h []release, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && releaseBefore(h[r], h[l]) {
			m = r
		}
		if !releaseBefore(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// planned is the interference-free time j still needs: its remaining work,
// one checkpoint of C per period of computation (at most one per C when
// C ≥ P), its remaining regular I/O and output at the full bandwidth, and
// its input (or recovery read) when it has not started, or what is left of
// its current transfer.
func (s *simulator) planned(j *job) float64 {
	if j.runIdx < 0 && j.planSet {
		return j.plan // a queued job's plan does not change (see below)
	}
	prog := j.progress
	if j.state == sCompute {
		prog += s.sim.Now() - j.since
	}
	rem := max(j.work-prog, 0)
	t := rem + (j.outBytes+j.ioPerWork*rem)/s.beta + rem/math.Max(j.gap, j.ckptTime)*j.ckptTime
	switch {
	case j.runIdx < 0:
		// Queued: a function of the job's fields alone, which do not
		// change until it starts; kept for the scheduler's next passes
		// over the queue.
		t += j.inBytes / s.beta
		j.plan, j.planSet = t, true
	case j.state == sTransfer && j.tr != nil:
		if j.kind == Output {
			t = 0
		}
		t += max(s.left(j.tr), 0) / s.beta
	}
	return t
}

func (s *simulator) start(j *job) {
	s.flushFree()
	if len(s.tail) == j.q && !eagerFree {
		// The top q free nodes are the last release's (a restart on the
		// nodes its failed run left, the common case): j takes them as
		// start's loop below would, reversed, by flipping the list's
		// direction instead of copying it twice.
		j.nodes, j.nodesRev = s.tail, !s.tailRev
		s.tail = nil
		s.nFree -= j.q
		s.started(j)
		return
	}
	s.settleTail()
	j.nodesRev = false
	// The most recently released list long enough (not only the last
	// one: at Cielo ×8 most starts found the last too short for them and
	// allocated, 50 MB a trial).
	k := len(s.nodeBufs) - 1
	for k >= 0 && cap(s.nodeBufs[k]) < j.q {
		k--
	}
	if k >= 0 {
		j.nodes = s.nodeBufs[k][:j.q]
		last := len(s.nodeBufs) - 1
		s.nodeBufs[k] = s.nodeBufs[last]
		s.nodeBufs[last] = nil
		s.nodeBufs = s.nodeBufs[:last]
	} else {
		// Room for the widest class (when that is not absurd), so that
		// every list released can serve any later start.
		j.nodes = make([]int32, j.q, max(j.q, min(s.maxQ, maxNodeBufLen)))
	}
	// j.nodes is the top of free reversed: release pushes it back as it
	// is, so the next job popping q nodes gets the same nodes (a restart
	// lands on the nodes it left), in one pass each way.
	top := s.free[len(s.free)-j.q:]
	dst := j.nodes[:len(top)]
	for k := len(top) - 1; k >= 0; k-- {
		dst[len(top)-1-k] = top[k]
	}
	s.free = s.free[:len(s.free)-j.q]
	s.nFree -= j.q
	s.started(j)
}

// started books j, on its nodes, as running and asks for its input.
func (s *simulator) started(j *job) {
	if k := len(s.freeSlots); k > 0 {
		j.slot = s.freeSlots[k-1]
		s.freeSlots = s.freeSlots[:k-1]
		s.slots[j.slot] = j
	} else {
		j.slot = int32(len(s.slots))
		s.slots = append(s.slots, j)
	}
	s.markNodes(j)
	j.runIdx = len(s.running)
	s.running = append(s.running, j)
	s.res.JobsStarted++
	j.since = s.sim.Now()
	j.startDate = j.since
	j.state = sWait
	j.kind = j.inKind
	s.request(j, j.inKind, j.inBytes)
}

// eagerFree, set by tests alone, appends every release's nodes to free at
// once and copies them back at each start (the way before tail: the
// tests' oracle).
var eagerFree = false

// settleTail appends the last release's nodes to free (see release).
func (s *simulator) settleTail() {
	t := s.tail
	if t == nil {
		return
	}
	if s.tailRev {
		for k := len(t) - 1; k >= 0; k-- {
			s.free = append(s.free, t[k])
		}
	} else {
		s.free = append(s.free, t...)
	}
	if len(s.nodeBufs) < maxNodeBufs {
		s.nodeBufs = append(s.nodeBufs, t[:cap(t)]) // reused by a later start
	}
	s.tail = nil
}

// release frees j's nodes: the free list is free followed by j's nodes in
// their order (its list reversed if nodesRev, see start), kept aside as
// tail until the next start that does not take exactly them.
func (s *simulator) release(j *job) {
	s.flushFree()
	s.settleTail()
	s.tail, s.tailRev = j.nodes, j.nodesRev
	s.nFree += j.q
	if eagerFree {
		s.settleTail()
	}
	j.nodes = nil
	s.slots[j.slot] = nil
	s.freeSlots = append(s.freeSlots, j.slot)
	s.freeOps++
	s.lastFree = freeMark{ops: s.freeOps, slot: j.slot, q: j.q, mark: j.mark}
	j.slot = -1
	j.state = sDone
	last := s.running[len(s.running)-1]
	s.running[j.runIdx] = last
	last.runIdx = j.runIdx
	s.running = s.running[:len(s.running)-1]
	j.runIdx = -1
}

// request asks for a blocking transfer (or a checkpoint, blocking or not).
func (s *simulator) request(j *job, kind Kind, bytes float64) {
	now := s.sim.Now()
	if bytes <= 0 {
		s.flush(j)
		s.after(j, kind, now)
		return
	}
	nb := kind == Checkpoint && s.st.NonBlocking
	s.releaseTail()
	if s.st.Sharing != Token {
		s.startTransfer(j, kind, bytes, now)
		return
	}
	if nb {
		j.ckptPending = true
	} else {
		s.flush(j)
		j.stopped = j.progress
		j.state = sWait
		j.kind = kind
	}
	p := s.pushWaiting() // every field set (TestPendingFieldsSet)
	p.j, p.kind, p.bytes, p.dur, p.since, p.seq = j, kind, bytes, bytes/s.beta, now, s.seq
	j.waits++
	s.seq++
	if s.opt.Remote != nil {
		s.remoteGrants(s.opt.Remote.Acquire(now, s.requestOf(s.waiting[len(s.waiting)-1])))
	}
	s.grant()
}

// requestOf is the waiting request p as an Arbiter sees it.
func (s *simulator) requestOf(p pending) Request {
	return Request{Job: p.j.id, Kind: p.kind, Nodes: p.j.q, Bytes: p.bytes,
		Duration: p.dur, Since: p.since, LastCheckpoint: s.lastCheckpoint(p.j),
		Recovery: p.j.ckptTime, Seq: p.seq, Order: uint64(p.j.listIdx)<<20 | uint64(p.j.run)}
}

// setRequest sets *r to requestOf(*p) field by field, in place (a grant
// builds W requests: the literal was built on the stack and copied, as
// transfer.reset explains); TestSetRequestIsRequestOf checks it.
func (s *simulator) setRequest(r *Request, p *pending) {
	j := p.j
	r.Job, r.Kind, r.Nodes, r.Bytes, r.Duration = j.id, p.kind, j.q, p.bytes, p.dur
	r.Since, r.LastCheckpoint, r.Recovery = p.since, s.lastCheckpoint(j), j.ckptTime
	r.Seq, r.Order = p.seq, uint64(j.listIdx)<<20|uint64(j.run)
}

func (s *simulator) grant() {
	if s.opt.Remote != nil {
		s.remoteFree()
		return
	}
	if s.holder != nil || len(s.waiting) == 0 {
		return
	}
	if _, ok := s.st.Arbiter.(FCFS); ok {
		// FCFS.Pick's choice, the smallest Seq, without building every
		// request: the first, since requests are appended with increasing
		// sequence numbers and every removal keeps the order (O(1) where
		// the search was O(W); checkWaitingOrder checks it in tests).
		if checkWaitingOrder {
			s.checkOrder()
		}
		s.grantAt(0)
		return
	}
	now := s.sim.Now()
	s.reqBuf = slices.Grow(s.reqBuf[:0], len(s.waiting))[:len(s.waiting)]
	for k := range s.waiting {
		s.setRequest(&s.reqBuf[k], &s.waiting[k])
	}
	i := s.st.Arbiter.Pick(now, s.reqBuf, Env{NodeMTBF: float64(s.cfg.Platform.NodeMTBF), Bandwidth: s.beta})
	if i < 0 || i >= len(s.waiting) {
		s.err = fmt.Errorf("strategy %s: arbiter picked %d of %d requests", s.st.Name, i, len(s.waiting))
		return
	}
	s.grantAt(i)
}

// grantAt gives the token to the waiting request i.
func (s *simulator) grantAt(i int) {
	now := s.sim.Now()
	p := s.waiting[i]
	s.dropWaiting(i)
	p.j.waits--
	if s.rec != nil {
		s.recWait(p, false)
	}
	req := p.since
	if p.kind == Checkpoint && p.j.ckptPending {
		s.flush(p.j) // computed while waiting
		s.sim.Cancel(p.j.ev)
		p.j.ckptPending = false
		req = now
	}
	s.startTransfer(p.j, p.kind, s.paidBack(p.bytes), req)
	s.dropLateCheckpoints(p.bytes / s.beta)
}

func (s *simulator) startTransfer(j *job, kind Kind, bytes, req float64) {
	now := s.sim.Now()
	s.flush(j)
	j.stopped = j.progress
	if kind == Checkpoint {
		j.snapshot = j.progress
		if s.st.NonBlocking {
			req = now
		}
	}
	tr := &j.trBuf // j's previous transfer has ended
	tr.reset(j, kind, bytes, s.beta, now, req)
	j.state, j.kind, j.tr = sTransfer, kind, tr
	switch s.st.Sharing {
	case Proportional:
		s.addShare(tr)
	case Token:
		s.holder = tr
		fallthrough
	default:
		if j.trEv == nil {
			j.trEv = s.sim.NewEvent(func() { s.transferEnd(&j.trBuf) })
		}
		s.sim.Schedule(j.trEv, now+bytes/s.beta) // des: After(d) is At(now + d)
		tr.ev = j.trEv
	}
}

// removeTransfer ends tr: completed (ended) or aborted by a failure.
func (s *simulator) removeTransfer(tr *transfer, ended bool) {
	if s.rec != nil {
		s.recTransfer(tr, !ended)
	}
	s.sim.Cancel(tr.ev)
	switch s.st.Sharing {
	case Proportional:
		if !ended && s.opt.Authors.StaleRates {
			s.removeShareStale(tr)
			break
		}
		s.removeShare(tr)
	case Token:
		s.holder = nil
		if s.opt.Remote != nil {
			s.freed = freed{job: tr.j, ended: ended}
		}
	}
}

func (s *simulator) transferEnd(tr *transfer) {
	s.count(evTransferEnd)
	if s.phantomEnd(tr) {
		return
	}
	j := tr.j
	s.flush(j)
	j.tr, j.state = nil, sWait // zero-length until the next state
	s.removeTransfer(tr, true)
	s.after(j, tr.kind, tr.req)
	if s.st.Sharing == Token {
		s.grant()
	}
}

// after continues j once a transfer of the given kind is done.
func (s *simulator) after(j *job, kind Kind, req float64) {
	now := s.sim.Now()
	switch kind {
	case Input, Recovery:
		if s.opt.Authors.RestartFromStop && j.work <= 0 {
			s.complete(j) // restarted after its output began: IOEndTask ends it
			return
		}
		j.lastCkpt = now
		j.ckptDue = now + j.gap
		j.afterRead = true
		s.compute(j)
	case RegularIO:
		j.ioDone = j.progress
		s.compute(j)
	case Checkpoint:
		j.committed = j.snapshot
		j.commitDate = now
		j.hasCkpt = true
		j.afterRead = false
		j.unWork, j.unIO = 0, 0
		if now >= s.w0 && now <= s.w1 {
			s.res.Checkpoints++
			s.res.CheckpointActual += float64(j.q) * (now - req)
			s.res.CheckpointNominal += float64(j.q) * j.ckptTime
		}
		j.lastCkpt = now
		j.ckptDue = now + j.gap
		s.compute(j)
	case Output:
		s.complete(j)
	}
}

// complete ends j, done.
func (s *simulator) complete(j *job) {
	j.unWork, j.unIO = 0, 0
	s.res.JobsCompleted++
	s.lastEnd = s.sim.Now()
	s.remoteDone(j, false)
	s.release(j)
	s.schedule()
}

func (s *simulator) compute(j *job) {
	s.flush(j)
	j.state = sCompute
	s.planStop(j)
}

// planStop schedules j's next compute boundary: end of work, checkpoint
// due, or regular I/O due (the latter two not while a non-blocking
// checkpoint request is pending).
func (s *simulator) planStop(j *job) {
	now := s.sim.Now()
	dt := j.work - j.progress
	if !j.ckptPending {
		// The builtin min, inlined, is math.Min (a call) for operands
		// that are never −Inf (TestBuiltinMinIsMathMin).
		if j.ioPerWork > 0 {
			dt = min(dt, j.ioDone+s.opt.IOChunk-j.progress)
		}
		dt = min(dt, j.ckptDue-now)
	}
	if j.ev == nil {
		j.ev = s.sim.NewEvent(func() { s.computeStop(j) })
	} else if j.ev.Pending() {
		s.err = fmt.Errorf("internal error: job %d has two compute stops", j.id)
	}
	s.sim.Schedule(j.ev, now+max(dt, 0)) // one reused event per job
}

func (s *simulator) computeStop(j *job) {
	s.flush(j)
	now := s.sim.Now()
	tol := 1e-9 * max(1, j.work)
	switch {
	case j.progress >= j.work-tol || unresolved(now, j.work-j.progress):
		s.count(evStopEnd)
		j.progress = j.work
		if j.ckptPending {
			s.withdraw(j)
			j.ckptPending = false
		}
		s.request(j, Output, s.outputBytes(j)+j.ioPerWork*(j.work-j.ioDone))
	case !j.ckptPending && now >= j.ckptDue-1e-9*max(1, now):
		s.count(evStopCkpt)
		if s.skipCheckpoint(j) {
			break
		}
		s.request(j, Checkpoint, j.ckptBytes)
		if j.ckptPending && j.state == sCompute {
			s.planStop(j) // non-blocking: keep computing
		}
	case !j.ckptPending && j.ioPerWork > 0 && (j.progress >= j.ioDone+s.opt.IOChunk-tol || unresolved(now, j.ioDone+s.opt.IOChunk-j.progress)):
		s.count(evStopIO)
		s.request(j, RegularIO, j.ioPerWork*(j.progress-j.ioDone))
	default:
		s.count(evStopReplan)
		s.planStop(j)
	}
}

// unresolved reports whether d > 0 seconds of work left at now are below
// the clock's resolution there: a stop planned d later would fire at now
// again, for ever (from 2²⁴ s, about 194 days, where half a unit in the
// last place of now first exceeds computeStop's tolerance 1e-9·max(1, work),
// later for a run of more work).
func unresolved(now, d float64) bool {
	return d > 0 && now+d == now
}

func (s *simulator) withdraw(j *job) {
	if j.waits == 0 { // nothing of j's waits: no O(W) pass (a failure's common case)
		return
	}
	if s.opt.Remote != nil && slices.ContainsFunc(s.waiting, func(p pending) bool { return p.j == j }) {
		s.remoteGrants(s.opt.Remote.Cancel(s.sim.Now(), j.id))
	}
	if s.rec != nil {
		for _, p := range s.waiting {
			if p.j == j {
				s.recWait(p, true)
			}
		}
	}
	s.dropJobWaiting(j)
	j.waits = 0
}

// fail kills j (one of its nodes failed): its work and I/O since the last
// checkpoint are lost and a restart job goes to the head of the queue.
func (s *simulator) fail(j *job) {
	if st := j.state; s.opt.Accounting == AuthorsAccounting {
		s.bookToLastReshare(j)
		j.state = sDropped // Trace.C books the interrupted segment nowhere
		s.flush(j)
		j.state = st
	} else {
		s.flush(j)
	}
	s.acc.Work -= j.unWork
	s.acc.IO -= j.unIO
	s.acc.Lost += j.unWork + j.unIO
	j.unWork, j.unIO = 0, 0
	if s.sim.Now() >= s.w0 {
		s.res.JobFailures++
	}
	s.sim.Cancel(j.ev)
	s.keepReservations(j)
	if j.state == sTransfer && j.tr != nil {
		tr := j.tr
		j.tr = nil
		j.state = sDone
		s.removeTransfer(tr, false)
	}
	s.withdraw(j)
	j.ckptPending = false
	s.remoteDone(j, true)
	s.release(j)
	from := j.committed
	if s.opt.Authors.RestartFromStop {
		from = j.stopped
	}
	// What the restart inherits, read before j's memory may serve it.
	class, work, ioPerWork, hasCkpt, commitDate := j.class, j.work-from, j.ioPerWork, j.hasCkpt, j.commitDate
	listIdx, run, ckptBytes := j.listIdx, j.run+1, j.ckptBytes
	if s.reusable() {
		s.spare = j // nothing refers to j any more (see reusable)
	}
	r := s.newJob(class, work)
	r.ioPerWork = ioPerWork
	r.hasCkpt = hasCkpt
	r.commitDate = commitDate
	r.listIdx, r.run = listIdx, run
	if hasCkpt {
		r.inKind, r.inBytes = Recovery, ckptBytes
	}
	s.pushFront(r)
	if s.st.Sharing == Token {
		s.grant()
	}
	s.schedule()
}
