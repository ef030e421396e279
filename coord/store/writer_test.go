package store

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
)

// slowStore records each commit's batch and takes delay per commit (an
// fsync). Its state is the sequence of committed job ids.
type slowStore struct {
	delay   time.Duration
	mu      sync.Mutex
	batches []int
	ids     []string
}

func (s *slowStore) Load() (coord.Meta, []coord.Job, error) { return coord.Meta{}, nil, nil }
func (s *slowStore) Name() string                           { return "slow" }
func (s *slowStore) Commit(chs ...coord.Changes) error {
	s.mu.Lock()
	d := s.delay
	s.mu.Unlock()
	time.Sleep(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, len(chs))
	for _, ch := range chs {
		for _, j := range ch.Put {
			s.ids = append(s.ids, j.Spec.ID)
		}
	}
	return nil
}

func (s *slowStore) committed(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.ids {
		if x == id {
			return true
		}
	}
	return false
}

// change is a one-job change named id.
func change(id string) coord.Changes {
	return coord.Changes{Put: []coord.Job{{Spec: coord.JobSpec{ID: id}}}}
}

// Group commit: 32 clients, each submitting and waiting in turn on a
// store whose commit takes 2 ms. Every acknowledgement comes after its
// change is in the store (the oracle is the store's own record, read when
// the ack arrives), the order of the commits is the order of submission
// per client, and the commits are far fewer than the changes (each fsync
// answers many requests).
func TestWriterGroupsConcurrentRequests(t *testing.T) {
	for _, wait := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprint("wait=", wait), func(t *testing.T) {
			st := &slowStore{delay: 2 * time.Millisecond}
			w := NewWriterWait(st, wait)
			const clients, each = 32, 20
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						id := fmt.Sprintf("c%d-%d", c, i)
						if err := <-w.Submit(change(id)); err != nil {
							t.Error(err)
							return
						}
						if !st.committed(id) {
							t.Errorf("%s acknowledged before it was committed", id)
						}
					}
				}()
			}
			wg.Wait()
			w.Close()
			if len(st.ids) != clients*each {
				t.Fatalf("%d changes committed, want %d", len(st.ids), clients*each)
			}
			pos := map[string]int{}
			for i, id := range st.ids {
				pos[id] = i
			}
			for c := range clients {
				for i := 1; i < each; i++ {
					if pos[fmt.Sprintf("c%d-%d", c, i)] < pos[fmt.Sprintf("c%d-%d", c, i-1)] {
						t.Fatalf("client %d: change %d committed before change %d", c, i, i-1)
					}
				}
			}
			perCommit := float64(clients*each) / float64(len(st.batches))
			t.Logf("%d changes in %d commits: %.1f per commit", clients*each, len(st.batches), perCommit)
			if perCommit < 4 {
				t.Errorf("%.1f changes per commit: the commits are not grouped", perCommit)
			}
		})
	}
}

// The wait for more requests is bounded: a lone request after a batch of
// many commits within the maximum wait (plus scheduling slack), and a
// writer without a wait commits at once.
func TestWriterWaitBounded(t *testing.T) {
	// the first request's commit held while the nine others are
	// submitted: they queue behind it and go in one batch of at least 2,
	// whatever the scheduling (a slow commit alone let a loaded machine
	// take nine at once and the tenth alone)
	st := &gatedStore{gate: make(chan struct{})}
	w := NewWriterWait(st, 30*time.Millisecond)
	defer w.Close()
	acks := []<-chan error{w.Submit(change("b0"))}
	for !w.committing() {
		time.Sleep(time.Millisecond)
	}
	for i := 1; i < 10; i++ {
		acks = append(acks, w.Submit(change(fmt.Sprint("b", i))))
	}
	close(st.gate) // every later commit goes through at once
	for _, a := range acks {
		<-a
	}
	st.mu.Lock()
	last := st.batches[len(st.batches)-1]
	st.mu.Unlock()
	if last < 2 {
		t.Fatalf("batches %v: the last of the 10 requests went alone", st.batches)
	}
	t0 := time.Now()
	<-w.Submit(change("lone"))
	if d := time.Since(t0); d < 20*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("a lone request after a batch of 10 committed after %v, want about the 30 ms bound", d)
	}
	// the batch of one is now the previous batch: the next lone request
	// does not wait
	t0 = time.Now()
	<-w.Submit(change("lone2"))
	if d := time.Since(t0); d > 20*time.Millisecond {
		t.Errorf("a lone request after a batch of one waited %v", d)
	}
}

// gatedStore blocks each commit until the test lets it through, and
// records each commit's batch.
type gatedStore struct {
	slowStore
	gate chan struct{}
}

func (s *gatedStore) Commit(chs ...coord.Changes) error {
	<-s.gate
	return s.slowStore.Commit(chs...)
}

// Every request that waits while a commit is under way rides the next
// one: with the first change's commit held, 40 changes submitted
// meanwhile go in exactly one more transaction (counted by the store
// itself, the oracle, and by Stats, which /metrics shows), with or
// without a maximum wait; barriers queued meanwhile add no transaction.
func TestWriterOneCommitForEveryWaiter(t *testing.T) {
	for _, wait := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprint("wait=", wait), func(t *testing.T) {
			st := &gatedStore{gate: make(chan struct{})}
			w := NewWriterWait(st, wait)
			defer w.Close()
			first := w.Submit(change("first"))
			for !w.committing() {
				time.Sleep(time.Millisecond)
			}
			const n = 40
			acks := make([]<-chan error, 0, n+3)
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := w.Submit(change(fmt.Sprint("c", i)))
					mu.Lock()
					acks = append(acks, a)
					mu.Unlock()
				}()
			}
			wg.Wait()
			for range 3 {
				acks = append(acks, w.Barrier())
			}
			st.gate <- struct{}{} // the first commit
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			st.gate <- struct{}{} // the one for all the waiters
			for _, a := range acks {
				select {
				case err := <-a:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(5 * time.Second): // a further commit waits at the gate
					close(st.gate)
					t.Fatalf("a waiter was not answered by the second commit (batches %v)", st.batches)
				}
			}
			st.mu.Lock()
			batches := slices.Clone(st.batches)
			st.mu.Unlock()
			if !slices.Equal(batches, []int{1, n}) {
				t.Fatalf("commits of %v changes, want [1 %d]", batches, n)
			}
			if got, want := w.Stats(), (WriterStats{Commits: 2, Changes: n + 1, Barriers: 3}); got != want {
				t.Fatalf("stats %+v, want %+v", got, want)
			}
		})
	}
}

// Clients that take a while to come back (a round trip of 1 ms, the
// network and the handler) with commits of 3 ms: with a maximum wait the
// batches hold nearly all 32 clients (the store's batches are the
// oracle), where waiting only for the previous batch's size kept two
// cohorts of about 16 alternating, twice the fsyncs per request.
func TestWriterWaitGathersEveryClient(t *testing.T) {
	st := &slowStore{delay: 3 * time.Millisecond}
	w := NewWriterWait(st, 10*time.Millisecond)
	const clients, each = 32, 15
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(c) * 100 * time.Microsecond) // arrivals spread over the first commit
			for i := range each {
				if err := <-w.Submit(change(fmt.Sprintf("c%d-%d", c, i))); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	w.Close()
	st.mu.Lock()
	b := slices.Clone(st.batches)
	st.mu.Unlock()
	sorted := slices.Sorted(slices.Values(b))
	t.Logf("batches %v", b)
	if med := sorted[len(sorted)/2]; med < clients*3/4 {
		t.Errorf("batches %v: median %d of %d clients per commit", b, med, clients)
	}
}

// committing reports whether a batch is being committed.
func (w *Writer) committing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.busy
}
