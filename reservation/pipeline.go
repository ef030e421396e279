package reservation

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// rowChunk is the most steps of a row a worker runs before it takes the
// next piece of work: about 30 µs at 4 ns a step, far less than the time
// slice the system takes from a descheduled worker. pipelineBytes bounds
// the scratch of the rows in progress (a hull each), and pipelineRows their
// number: 16 rows of n = 16 653 hold about 0.5 ms of work for a worker
// whose partner is descheduled, in 4 MB. Measured in process under a busy
// loop (docs/performance.md): with pieces of 2 048 steps two workers spent
// up to 1.6 times the CPU of one, following the number of times a worker
// slept; with pieces of 8 192 steps and 8 or 16 rows, the CPU of one.
// rowCheck is the most steps a worker runs between two looks at whether
// another worker has already published the piece it computes (then it
// drops its own): about 4 µs.
//
// pinWorkers says solveParallel binds each worker to a CPU of its own
// among those the thread may use and no other solve's worker holds
// (pinWorker): measured in `ckpt reserve` with one core busy, the
// system otherwise ran both workers on one core for much of a solve
// (docs/performance.md).
var pinWorkers = true

const (
	rowChunk      = 8192
	pipelineBytes = 8 << 20
	pipelineRows  = 16
	rowCheck      = 1024
)

// solveParallel solves the rows of the mixed class on s.workers goroutines,
// the calling one included, with the same steps as solve: every value is
// the sequential one, bit for bit.
//
// Row i_c's step i_l reads m1[i_l], which is final once the rows above i_l
// are done (the frontier: m1[i_l] is final for every i_l ≥ frontier). So
// the rows are independent but for their last steps: while row r is the
// oldest in progress (the frontier is r), every younger row can run all
// its steps down to i_l = r. Several rows are therefore in progress at once
// (at most maxOpen), each with its own hull (a rowBuf), and the workers
// take pieces of at most s.chunk steps: the oldest row not taken with a
// step before the frontier, else a new row. Whoever finishes row r (always
// the oldest, since its last step waited for row r + 1) adds its diagonal
// to the shared checkpoint envelope, publishes m1[r − 1] and lowers the
// frontier.
//
// A worker that the system deschedules (a core busy elsewhere) holds back
// one piece of one row. The others run the steps of the other rows in
// progress meanwhile; once every one of them has reached the frontier, the
// piece held back is the oldest row's, the only one that can move the
// frontier, and an idle worker computes that piece itself instead of
// waiting for it (a rescue). The holder runs its piece in place on the
// row's hull, so the rescuer cannot start from the row's state: it starts
// the row again from its first step (i_l = n − 1) on a hull of its own,
// which needs only inputs already final and never written again (the law,
// the costs and m1[i_l] for i_l ≥ frontier), and so computes the same
// values, bit for bit. The first of the two to finish the piece publishes
// it (the row's generation counts publications); the other drops its
// result, at the latest rowCheck steps after the publication, and its
// hull returns to a pool. A rescue costs at most n − i_c steps of a worker
// that had nothing else to run. At most one rescuer per piece: with more
// than two workers, the others sleep until a piece is published. The rows
// in progress take O(maxOpen · n) memory: about pipelineBytes, but never
// fewer than 2 · workers rows in progress, which a large n × workers can
// exceed; the pool adds a hull per worker at most.
func (s *solver) solveParallel() float64 {
	n := s.sup.n()
	p := &pipeline{s: s, next: n - 1, frontier: n - 1, maxOpen: s.maxOpen, shared: newHull(n)}
	p.front.Store(int64(n - 1))
	if p.maxOpen <= 0 {
		per := 16 * (n + 1) // the fast kernels' hull
		if !s.strict {
			per = 32 * (n + 1) // rowKernel's hull and row
		}
		p.maxOpen = min(pipelineRows, max(2*s.workers, pipelineBytes/per))
	}
	p.chunk = max(1, s.chunk)
	p.cond = sync.NewCond(&p.mu)
	s.m1[n-1], s.j1[n-1] = math.Inf(1), 0
	var wg sync.WaitGroup
	for id := 1; id < s.workers; id++ {
		wg.Go(func() {
			if pinWorkers {
				defer pinWorker()()
			}
			p.work()
		})
	}
	if pinWorkers {
		defer pinWorker()()
	}
	p.work()
	wg.Wait()
	s.stats = p.stats
	s.stats.extended = int(p.extended.Load())
	return s.diag[0]
}

// pipeline is the shared state of solveParallel, under mu.
type pipeline struct {
	s    *solver
	mu   sync.Mutex
	cond *sync.Cond
	// open holds the rows in progress, oldest (largest i_c) first; free
	// holds finished ones whose scratch is reused, pool the hulls no row
	// holds (a rescuer's, or a holder's whose piece a rescuer published).
	open, free []*pipeRow
	pool       []*rowBuf
	// next is the next row to open (−1: all are open), frontier the least
	// i_l whose m1 is final (front holds it too, for the workers that run
	// steps without the lock), maxOpen the most rows in progress, chunk
	// the most steps of a piece.
	next, frontier, maxOpen, chunk int
	front                          atomic.Int64
	// extended counts the steps run in acquire (stats.extended).
	extended atomic.Int64
	// waiting counts the workers asleep on cond; done says row 0 is done
	// or the context is cancelled.
	waiting int
	done    bool
	shared  hull // the checkpoint envelope (solve's shared)
	stats   pipeStats
}

// pipeStats counts what the workers did (the tests and benchmarks read
// it): pieces taken, rows opened, the most rows in progress, the times a
// worker slept and the time it slept in all, the rescues started and those
// that published first, the pieces a rescue published before their holder
// (whose result was dropped), the steps run while waiting for the lock,
// and the times a worker blocked on the lock after a piece and the time it
// blocked in all.
type pipeStats struct {
	pieces, opened, maxOpen, waits        int
	waited                                time.Duration
	rescues, rescued, overtaken, extended int
	blocked                               int
	blockedFor                            time.Duration
}

// rowBuf is the scratch of a row: its hull, and rowKernel's row (nil for
// the fast kernels, which keep none).
type rowBuf struct {
	row []float64
	h   hull
}

// pipeRow is a row in progress: its state as last published, and who
// computes its next piece.
type pipeRow struct {
	// t is the row's state after its last published piece; its hull
	// (and row) are buf's.
	t   rowTask
	buf *rowBuf
	// gen counts the pieces published; pub is gen, read without the lock
	// by the workers computing a piece (to drop it once overtaken).
	gen uint64
	pub atomic.Uint64
	// taken says a worker (the holder) runs the piece of generation gen
	// in place on buf, down to step lo; rescued that another recomputes
	// it on a hull of its own.
	taken, rescued bool
	lo             int
}

// piece is a worker's share of work: the steps of row r from t.il down to
// lo, on buf, as the generation gen of r.
type piece struct {
	r      *pipeRow
	gen    uint64
	t      rowTask
	lo     int
	buf    *rowBuf
	rescue bool
}

// work takes pieces until row 0 is done or the context is cancelled.
func (p *pipeline) work() {
	s := p.s
	p.mu.Lock()
	for !p.done {
		pc, ok := p.take()
		if !ok {
			p.waiting++
			p.stats.waits++
			t0 := time.Now()
			p.cond.Wait()
			p.stats.waited += time.Since(t0)
			p.waiting--
			continue
		}
		p.mu.Unlock()
		if s.ctx != nil && s.ctx.Err() != nil {
			p.mu.Lock()
			p.done = true
			p.cond.Broadcast()
			break
		}
		if s.onPiece != nil && !pc.rescue {
			s.onPiece(pc.t.ic)
		}
		ran := p.run(&pc)
		p.acquire(&pc, ran)
		if p.publish(&pc, ran) && s.progress != nil {
			p.mu.Unlock()
			s.progress(int(s.rowsDone.Add(1)), s.sup.n())
			p.mu.Lock()
		}
	}
	p.mu.Unlock()
}

// run computes pc's steps, rowCheck at a time, and reports whether it
// ran them all: it stops once another worker has published the piece.
func (p *pipeline) run(pc *piece) bool {
	s := p.s
	for pc.t.il >= pc.lo {
		s.stepRow(&pc.t, max(pc.lo, pc.t.il-rowCheck+1), nil)
		if s.inPiece != nil {
			s.inPiece(pc.t.ic, pc.rescue)
		}
		if pc.r.pub.Load() != pc.gen {
			return false
		}
	}
	return true
}

// acquire locks mu once pc has run (ran: all its steps). While another
// worker holds mu, a worker that blocked would sleep, and sleep as long
// as the system keeps the holder descheduled inside its critical section;
// so as long as pc's row has steps at or above the frontier (read without
// the lock: m1 is final above it) and pc is not overtaken, it runs them,
// rowCheck at a time, and tries the lock again. Either way pc's row ends
// at a step at or above the frontier, as a piece ends.
func (p *pipeline) acquire(pc *piece, ran bool) {
	if p.mu.TryLock() {
		return
	}
	for ran {
		lo := max(pc.t.ic, int(p.front.Load()), pc.t.il-rowCheck+1)
		if pc.t.il < lo || pc.r.pub.Load() != pc.gen {
			break
		}
		il := pc.t.il
		p.s.stepRow(&pc.t, lo, nil)
		p.extended.Add(int64(il - pc.t.il))
		if p.mu.TryLock() {
			return
		}
	}
	t0 := time.Now()
	p.mu.Lock()
	p.stats.blocked++
	p.stats.blockedFor += time.Since(t0)
}

// take returns the next piece: of the oldest row in progress not taken
// that has a step at or above the frontier, else of a new row, else a
// rescue of the oldest row's piece; ok is false when there is none (the
// oldest row's piece is rescued already).
func (p *pipeline) take() (pc piece, ok bool) {
	r := p.takeRow()
	if r == nil {
		return p.rescue()
	}
	r.taken = true
	r.lo = max(r.t.ic, p.frontier, r.t.il-p.chunk+1)
	p.stats.pieces++
	return piece{r: r, gen: r.gen, t: r.t, lo: r.lo, buf: r.buf}, true
}

// takeRow returns the oldest row in progress not taken that has a step at
// or above the frontier, else a new row, else nil.
func (p *pipeline) takeRow() *pipeRow {
	for _, r := range p.open {
		if !r.taken && r.t.il >= p.frontier {
			return r
		}
	}
	if p.next < 0 || len(p.open) >= p.maxOpen {
		return nil
	}
	var r *pipeRow
	if k := len(p.free); k > 0 {
		r, p.free = p.free[k-1], p.free[:k-1]
	} else {
		r = &pipeRow{buf: p.newBuf()}
	}
	p.s.openRow(&r.t, p.next, r.buf.row, &r.buf.h)
	p.next--
	p.open = append(p.open, r)
	p.stats.opened++
	p.stats.maxOpen = max(p.stats.maxOpen, len(p.open))
	return r
}

// rescue returns a piece that recomputes the oldest row's piece, from the
// row's first step, on a hull from the pool; ok is false when that piece
// is rescued already (or no row is in progress). Every row but the oldest
// is then at the frontier, so the oldest is taken: its holder runs late.
func (p *pipeline) rescue() (pc piece, ok bool) {
	if len(p.open) == 0 {
		return piece{}, false
	}
	r := p.open[0]
	if !r.taken || r.rescued {
		return piece{}, false
	}
	r.rescued = true
	p.stats.rescues++
	pc = piece{r: r, gen: r.gen, lo: r.lo, rescue: true}
	if k := len(p.pool); k > 0 {
		pc.buf, p.pool = p.pool[k-1], p.pool[:k-1]
	} else {
		pc.buf = p.newBuf()
	}
	p.s.openRow(&pc.t, r.t.ic, pc.buf.row, &pc.buf.h)
	return pc, true
}

// newBuf returns a row's scratch (rowKernel's row and hull; the fast
// kernels allocate theirs on first use and keep no row).
func (p *pipeline) newBuf() *rowBuf {
	b := &rowBuf{}
	if !p.s.strict {
		n := p.s.sup.n()
		b.row, b.h = make([]float64, n+1), newHull(n)
	}
	return b
}

// publish ends pc (ran: its steps all ran): the first worker to end the
// piece of a generation makes its state the row's and moves the row to
// the next generation; a later one drops its result and gives its hull to
// the pool. It reports whether pc finished the row.
func (p *pipeline) publish(pc *piece, ran bool) bool {
	r := pc.r
	if !ran || r.gen != pc.gen {
		if pc.buf != r.buf {
			p.pool = append(p.pool, pc.buf)
		}
		if !pc.rescue {
			p.stats.overtaken++
		}
		return false
	}
	if pc.rescue {
		// The holder still runs on r.buf: it is the holder's until it
		// sees it was overtaken, and goes to the pool then.
		r.buf = pc.buf
		p.stats.rescued++
	}
	r.t = pc.t
	r.gen++
	r.pub.Store(r.gen)
	r.taken, r.rescued = false, false
	if r.t.il < r.t.ic {
		p.finish(r)
		return true
	}
	if p.waiting > 0 && r.t.il >= p.frontier {
		p.cond.Signal()
	}
	return false
}

// finish ends row r, the oldest in progress: it records E(r, r), extends
// the checkpoint envelope, publishes m1[r − 1] and wakes the workers.
func (p *pipeline) finish(r *pipeRow) {
	s, ic := p.s, r.t.ic
	s.diag[ic] = r.t.prev
	p.open = p.open[1:]
	p.free = append(p.free, r)
	if ic == 0 {
		p.done = true
		p.cond.Broadcast()
		return
	}
	v, S, c := s.sup.v, s.sup.surv, s.c
	p.shared.add(c.Alpha*v[ic], s.diag[ic]+c.Beta*c.C*S[ic], int32(ic))
	val, j := p.shared.query(S[ic-1])
	s.m1[ic-1], s.j1[ic-1] = val, j
	p.frontier = ic - 1
	p.front.Store(int64(ic - 1))
	if p.waiting > 0 {
		p.cond.Broadcast()
	}
}
