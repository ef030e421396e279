package store

import (
	"sync"

	"github.com/ckpt-hpc/ckpt/coord"
)

// Writer commits changes in submission order, grouping those submitted
// while a transaction is under way into the next one (group commit).
type Writer struct {
	s    *Store
	mu   sync.Mutex
	cond *sync.Cond
	q    []pending
	done bool
	wg   sync.WaitGroup
}

type pending struct {
	ch  coord.Changes
	ack chan error
}

// NewWriter starts a writer on s.
func NewWriter(s *Store) *Writer {
	w := &Writer{s: s}
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
	w.cond.Signal()
	w.mu.Unlock()
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
		batch := w.q
		w.q = nil
		w.mu.Unlock()
		chs := make([]coord.Changes, len(batch))
		for i, p := range batch {
			chs[i] = p.ch
		}
		err := w.s.Commit(chs...)
		for _, p := range batch {
			p.ack <- err
		}
	}
}

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	w.done = true
	w.cond.Signal()
	w.mu.Unlock()
	w.wg.Wait()
}
