package store

import (
	"cmp"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
)

// Writer commits changes in submission order, grouping those submitted
// while a transaction is under way into the next one (group commit): one
// transaction and one fsync answer every request of the batch.
//
// With a maximum wait > 0 (NewWriterWait) a batch waits up to MaxWait,
// before it commits, for as many requests as were pending during the
// previous commit (that commit's batch and those queued behind it): the
// clients the previous commit answered come back, and under a steady load
// of N concurrent clients a batch holds all N — without it the clients
// split into two cohorts that alternate, N/2 per fsync. A lone request
// (a previous commit of one with nothing queued) commits at once. The
// wait adds at most the maximum wait to a request's latency.
type Writer struct {
	maxWait time.Duration
	s       Store
	mu      sync.Mutex
	cond    *sync.Cond
	q       []pending
	done    bool
	busy    bool            // a batch is being committed
	err     error           // the first failed commit: every later ack reports it
	last    int             // requests pending during the previous commit
	spare   []pending       // the previous batch's slice, reused for the next queue
	chs     []coord.Changes // a batch's changes, reused
	stats   WriterStats
	wg      sync.WaitGroup
}

// WriterStats count a Writer's work since it started.
type WriterStats struct {
	// Commits are the store commits that succeeded (each one WAL
	// record and its fdatasync, or one bbolt transaction: they answer the
	// whole batch); a failed one is not
	// counted.
	Commits uint64
	// Changes are the submitted changes those transactions wrote:
	// Changes/Commits requests share each commit's fsyncs.
	Changes uint64
	// Barriers are the requests that changed nothing and waited for a
	// commit under way (they add no transaction).
	Barriers uint64
}

// Stats returns the counts so far.
func (w *Writer) Stats() WriterStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

type pending struct {
	ch  coord.Changes
	ack chan error
}

// NewWriterWait starts a writer on s whose batches wait up to maxWait for
// more requests (see Writer).
func NewWriterWait(s Store, maxWait time.Duration) *Writer {
	w := &Writer{s: s, maxWait: maxWait}
	w.cond = sync.NewCond(&w.mu)
	w.wg.Add(1)
	go w.loop()
	return w
}

// Submit queues ch and returns a channel that receives the commit's
// result. Callers submit in the order the core made the changes (under
// the core's lock), and that is the order of the commits.
func (w *Writer) Submit(ch coord.Changes) <-chan error {
	ack := make(chan error, 1)
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		ack <- errClosed
		return ack
	}
	w.q = append(w.q, pending{ch, ack})
	w.cond.Broadcast()
	w.mu.Unlock()
	return ack
}

// Barrier returns nil when nothing is queued or being committed, and
// otherwise a channel that receives the result once everything submitted
// before the call has committed. A request that changed nothing but
// answers from state another request changed (a poll that finds its
// grant) waits on it, so no answer reveals a change that a crash could
// still undo.
func (w *Writer) Barrier() <-chan error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.q) == 0 && !w.busy && w.err == nil {
		return nil
	}
	ack := make(chan error, 1)
	if w.done || w.err != nil {
		ack <- cmp.Or(w.err, errClosed)
		return ack
	}
	w.q = append(w.q, pending{ack: ack})
	w.cond.Broadcast()
	return ack
}

type closedError struct{}

func (closedError) Error() string { return "store: writer closed" }

var errClosed error = closedError{}

func (w *Writer) loop() {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		for len(w.q) == 0 && !w.done {
			w.cond.Wait()
		}
		if len(w.q) == 0 && w.done {
			w.mu.Unlock()
			return
		}
		w.gather()
		batch, err := w.q, w.err
		w.q, w.spare, w.busy = w.spare[:0], nil, true
		w.mu.Unlock()
		chs := w.chs[:0]
		for _, p := range batch {
			if !p.ch.Empty() {
				chs = append(chs, p.ch)
			}
		}
		tried := err == nil && len(chs) > 0
		if err == nil {
			err = w.s.Commit(chs...)
		}
		w.mu.Lock()
		w.last = len(batch) + len(w.q) // before the acks: the requests this commit answers come back to join those queued
		if tried && err == nil {       // before the acks too: a client that reads /metrics once answered sees its commit
			w.stats.Commits++
			w.stats.Changes += uint64(len(chs))
		}
		w.stats.Barriers += uint64(len(batch) - len(chs))
		w.mu.Unlock()
		for _, p := range batch {
			p.ack <- err
		}
		clear(chs) // the jobs of a batch are not kept alive by the next
		clear(batch)
		w.mu.Lock()
		w.chs, w.spare = chs, batch[:0]
		w.err, w.busy = err, false
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// gather waits (w.mu held) until the queue holds as many requests as
// were pending during the previous commit, the writer closes or the
// maximum wait has passed.
func (w *Writer) gather() {
	if w.maxWait <= 0 || len(w.q) >= w.last || w.done {
		return
	}
	expired := false
	t := time.AfterFunc(w.maxWait, func() {
		w.mu.Lock()
		expired = true
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	for !expired && !w.done && len(w.q) < w.last {
		w.cond.Wait()
	}
	t.Stop()
}

// Reset waits until every change submitted so far has been answered,
// then forgets a failed commit so that later changes are committed again,
// and returns the failure it forgot (nil if none). The failed changes and
// every change submitted after them were not committed: the caller, which
// must not submit meanwhile, rebuilds its state from the store.
func (w *Writer) Reset() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.q) > 0 || w.busy) && !w.done {
		w.cond.Wait()
	}
	err := w.err
	w.err = nil
	return err
}

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	w.done = true
	w.cond.Broadcast()
	w.mu.Unlock()
	w.wg.Wait()
}
