package reservation

import (
	"math"
	"sync"
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
const (
	rowChunk      = 8192
	pipelineBytes = 8 << 20
	pipelineRows  = 16
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
// (at most maxOpen), each with its own hull (a rowTask), and the workers
// take pieces of at most s.chunk steps: the oldest row not taken with a
// step before the frontier, else a new row. Whoever finishes row r (always
// the oldest, since its last step waited for row r + 1) adds its diagonal
// to the shared checkpoint envelope, publishes m1[r − 1] and lowers the
// frontier. A worker that the system deschedules (a core busy elsewhere)
// holds back one piece of one row: the others run the steps of the other
// rows in progress meanwhile instead of waiting for it, and sleep only once
// every row in progress has reached the frontier (then the system can move
// the descheduled worker onto the core they leave). The rows in progress
// take O(maxOpen · n) memory: about pipelineBytes, but never fewer than
// 2 · workers rows in progress, which a large n × workers can exceed.
func (s *solver) solveParallel() float64 {
	n := s.sup.n()
	p := &pipeline{s: s, next: n - 1, frontier: n - 1, maxOpen: s.maxOpen, shared: newHull(n)}
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
	for range s.workers - 1 {
		wg.Go(p.work)
	}
	p.work()
	wg.Wait()
	s.stats = p.stats
	return s.diag[0]
}

// pipeline is the shared state of solveParallel, under mu.
type pipeline struct {
	s    *solver
	mu   sync.Mutex
	cond *sync.Cond
	// open holds the rows in progress, oldest (largest i_c) first; free
	// holds finished ones whose scratch is reused.
	open, free []*pipeRow
	// next is the next row to open (−1: all are open), frontier the least
	// i_l whose m1 is final, maxOpen the most rows in progress, chunk the
	// most steps of a piece.
	next, frontier, maxOpen, chunk int
	// waiting counts the workers asleep on cond; done says row 0 is done
	// or the context is cancelled.
	waiting int
	done    bool
	shared  hull // the checkpoint envelope (solve's shared)
	stats   pipeStats
}

// pipeStats counts what the workers did (the tests read it).
type pipeStats struct{ pieces, opened, waits, maxOpen int }

// pipeRow is a row in progress and its scratch.
type pipeRow struct {
	t     rowTask
	taken bool
	row   []float64
	h     hull
}

// work takes pieces until row 0 is done or the context is cancelled.
func (p *pipeline) work() {
	s := p.s
	p.mu.Lock()
	for !p.done {
		r := p.take()
		if r == nil {
			p.waiting++
			p.stats.waits++
			p.cond.Wait()
			p.waiting--
			continue
		}
		lo := max(r.t.ic, p.frontier, r.t.il-p.chunk+1)
		p.stats.pieces++
		p.mu.Unlock()
		if s.ctx != nil && s.ctx.Err() != nil {
			p.mu.Lock()
			p.done = true
			p.cond.Broadcast()
			break
		}
		if s.onPiece != nil {
			s.onPiece(r.t.ic)
		}
		s.stepRow(&r.t, lo, nil)
		finished := r.t.il < r.t.ic
		if finished && s.progress != nil {
			s.progress(int(s.rowsDone.Add(1)), s.sup.n())
		}
		p.mu.Lock()
		r.taken = false
		if finished {
			p.finish(r)
		} else if p.waiting > 0 && r.t.il >= p.frontier {
			p.cond.Signal()
		}
	}
	p.mu.Unlock()
}

// take returns the oldest row in progress not taken that has a step at or
// above the frontier, else a new row, else nil; the row is marked taken.
func (p *pipeline) take() *pipeRow {
	for _, r := range p.open {
		if !r.taken && r.t.il >= p.frontier {
			r.taken = true
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
		n := p.s.sup.n()
		r = &pipeRow{}
		if !p.s.strict { // rowKernel's row and hull (the fast kernels keep no row)
			r.row, r.h = make([]float64, n+1), newHull(n)
		}
	}
	p.s.openRow(&r.t, p.next, r.row, &r.h)
	p.next--
	r.taken = true
	p.open = append(p.open, r)
	p.stats.opened++
	p.stats.maxOpen = max(p.stats.maxOpen, len(p.open))
	return r
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
	if p.waiting > 0 {
		p.cond.Broadcast()
	}
}
