package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Item is one unit of work of a sweep: replicate Rep of point Point.
type Item[P any] struct {
	// K is the global item index, point-major: K = Point*reps + Rep. It
	// is the same whatever the sharding, and names the item in outputs
	// and errors.
	K int
	// Point indexes the points slice given to Run; Rep is in [0, reps).
	Point, Rep int
	// Param is points[Point].
	Param P
	// Seed is Seed(Options.Seed, Point, Rep).
	Seed uint64
	// Rand is NewRand(Seed), owned by this item alone.
	Rand *rand.Rand
}

// Progress says when Run draws a progress bar on standard error.
type Progress int

const (
	// ProgressAuto draws the bar only when the progress writer is a
	// terminal (golang.org/x/term.IsTerminal), so batch jobs, pipes and
	// tests stay silent.
	ProgressAuto Progress = iota
	// ProgressOff never draws it.
	ProgressOff
	// ProgressOn always draws it.
	ProgressOn
)

// Options configures Run. The zero value runs the whole sweep with base
// seed 0 on runtime.GOMAXPROCS(0) workers.
type Options struct {
	// Seed is the base seed from which every item's seed derives.
	Seed uint64
	// Workers is the number of goroutines calling the sweep function;
	// 0 or less means runtime.GOMAXPROCS(0). It never changes the output.
	Workers int
	// Shard selects the items this process runs; the zero value runs all.
	Shard Shard
	// Progress chooses when to draw a progress bar; Label prefixes it.
	Progress Progress
	Label    string
	// ProgressTo is where the bar goes; nil means os.Stderr.
	ProgressTo io.Writer
}

// ItemError is the error Run returns when the sweep function or the sink
// fails on an item.
type ItemError struct {
	K, Point, Rep int
	Err           error
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("item %d (point %d, rep %d): %v", e.K, e.Point, e.Rep, e.Err)
}

func (e *ItemError) Unwrap() error { return e.Err }

// Run evaluates fn on every item of the sweep points × reps that belongs
// to opts.Shard and passes the results to sink in increasing item order.
//
// Items are numbered point-major, k = p*reps + r; shard i/n runs the items
// with k mod n = i. Each item gets its own seed and generator derived from
// (opts.Seed, p, r) alone (see Seed), and results are reordered before they
// reach the sink, so the sink sees the same sequence, and a CSV or JSONL
// sink writes the same bytes, for any number of workers; the outputs of all
// shards merge (see Merge) into the bytes of the unsplit run. fn must draw
// randomness only from the item's Rand for this to hold.
//
// fn is called concurrently from opts.Workers goroutines; at most a few
// times the worker count of finished results wait in the reorder buffer.
// The first error, from fn or from the sink, cancels the context passed to
// the other calls, stops the sweep and is returned as an *ItemError naming
// the item. If ctx is cancelled first, Run stops and returns ctx.Err().
// In both cases the sink has received a prefix of the shard's results and
// is flushed. A nil sink discards results.
func Run[P, R any](ctx context.Context, opts Options, points []P, reps int,
	fn func(ctx context.Context, it Item[P]) (R, error), sink Sink[R]) error {
	if err := checkRun(opts, len(points), reps, fn != nil); err != nil {
		return err
	}
	if ctx.Value(dryRunKey{}) != nil {
		return ErrDryRun
	}
	if l := itemLogFrom(ctx); l != nil {
		return runLogged(ctx, l, opts, points, reps, fn, sink)
	}
	return run(ctx, opts, points, reps, fn, sink)
}

// ErrDryRun is what Run returns, having checked its arguments and run no
// item, under a context made by DryRun.
var ErrDryRun = errors.New("runner: dry run, no item run")

type dryRunKey struct{}

// DryRun returns a context under which Run checks its arguments and
// returns ErrDryRun without running an item: a command run under it
// validates its whole request (ckpt array checks the command each task
// will run before it prints a script).
func DryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// run is Run without an item log.
func run[P, R any](ctx context.Context, opts Options, points []P, reps int,
	fn func(ctx context.Context, it Item[P]) (R, error), sink Sink[R]) error {
	if sink == nil {
		sink = SinkFunc[R](func(Result[R]) error { return nil })
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newSweep(opts, points, reps, fn, cancel)
	go s.dispatch(runCtx)
	var wg sync.WaitGroup
	for range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(runCtx)
		}()
	}
	go func() { wg.Wait(); close(s.results) }()

	bar := newBar(opts, s.count)
	written := s.deliver(runCtx, sink, bar)
	var eerr error
	if e, ok := sink.(ShardEnder); ok && opts.Shard.Count > 0 && written == s.count && s.err() == nil && ctx.Err() == nil {
		eerr = e.EndShard(opts.Shard, len(points)*reps)
	}
	ferr := sink.Flush()
	if eerr != nil {
		ferr = eerr
	}
	bar.finish(written == s.count)
	return s.outcome(ctx, written, ferr)
}

// checkRun validates Run's arguments.
func checkRun(opts Options, npoints, reps int, haveFn bool) error {
	switch {
	case !haveFn:
		return errors.New("runner: nil sweep function")
	case reps < 1:
		return fmt.Errorf("runner: reps = %d, want at least 1", reps)
	case npoints > math.MaxInt/reps:
		return fmt.Errorf("runner: %d points × %d reps overflows the item count", npoints, reps)
	}
	if err := opts.Shard.validate(); err != nil {
		return fmt.Errorf("runner: %v", err)
	}
	return nil
}

// sweep is the state one Run shares between its dispatcher, its workers
// and the goroutine that delivers results to the sink.
type sweep[P, R any] struct {
	opts          Options
	points        []P
	reps          int
	fn            func(ctx context.Context, it Item[P]) (R, error)
	first, stride int // the shard's first global item and step
	count         int // items in the shard
	workers       int
	window        int // bound of the reorder buffer

	jobs    chan int           // local indices, from the dispatcher
	results chan done[R]       // finished items, in completion order
	tokens  chan struct{}      // one per item between dispatch and delivery
	cancel  context.CancelFunc // stops the sweep

	mu       sync.Mutex
	firstErr error
}

// done is one finished item and its local index within the shard.
type done[R any] struct {
	j   int
	res Result[R]
}

func newSweep[P, R any](opts Options, points []P, reps int,
	fn func(ctx context.Context, it Item[P]) (R, error), cancel context.CancelFunc) *sweep[P, R] {
	first, stride := opts.Shard.norm()
	count := opts.Shard.Len(len(points) * reps)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, count))
	window := 4 * workers
	return &sweep[P, R]{
		opts: opts, points: points, reps: reps, fn: fn,
		first: first, stride: stride, count: count, workers: workers, window: window,
		jobs:    make(chan int),
		results: make(chan done[R], window),
		tokens:  make(chan struct{}, window),
		cancel:  cancel,
	}
}

// err returns the first error recorded by fail.
func (s *sweep[P, R]) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstErr
}

// fail records the first error and stops the sweep.
func (s *sweep[P, R]) fail(err error) {
	s.mu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.mu.Unlock()
	s.cancel()
}

// dispatch hands out the shard's local indices, at most window of them
// ahead of delivery, until all are given or ctx is done.
func (s *sweep[P, R]) dispatch(ctx context.Context) {
	defer close(s.jobs)
	for j := 0; j < s.count; j++ {
		select {
		case s.tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select {
		case s.jobs <- j:
		case <-ctx.Done():
			return
		}
	}
}

// work runs items until the dispatcher is done; once ctx is done it only
// drains the remaining indices.
func (s *sweep[P, R]) work(ctx context.Context) {
	for j := range s.jobs {
		if ctx.Err() != nil {
			continue
		}
		k := s.first + j*s.stride
		p, r := k/s.reps, k%s.reps
		seed := Seed(s.opts.Seed, p, r)
		it := Item[P]{K: k, Point: p, Rep: r, Param: s.points[p], Seed: seed, Rand: NewRand(seed)}
		v, err := s.fn(ctx, it)
		if err != nil {
			if ctx.Err() == nil { // not a consequence of an earlier stop
				s.fail(&ItemError{K: k, Point: p, Rep: r, Err: err})
			}
			continue
		}
		s.results <- done[R]{j, Result[R]{K: k, Point: p, Rep: r, Seed: seed, Value: v}}
	}
}

// deliver reorders finished items and passes them to sink in item order
// until the results channel closes; it stops passing them on once ctx is
// done, so that the sink holds a prefix of the shard. It returns how many
// items the sink received.
func (s *sweep[P, R]) deliver(ctx context.Context, sink Sink[R], bar *bar) int {
	buf := make([]*Result[R], s.window)
	next := 0
	for d := range s.results {
		bar.add()
		res := d.res
		buf[d.j%s.window] = &res
		for ctx.Err() == nil && buf[next%s.window] != nil {
			r := buf[next%s.window]
			buf[next%s.window] = nil
			if err := sink.Put(*r); err != nil {
				s.fail(&ItemError{K: r.K, Point: r.Point, Rep: r.Rep, Err: fmt.Errorf("sink: %w", err)})
				break
			}
			next++
			<-s.tokens
		}
	}
	return next
}

// outcome is Run's error once the sink received written items and was
// flushed with error ferr.
func (s *sweep[P, R]) outcome(ctx context.Context, written int, ferr error) error {
	s.mu.Lock()
	err := s.firstErr
	s.mu.Unlock()
	switch {
	case err != nil:
		return err
	case written < s.count:
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New("runner: internal error: sweep stopped early")
	case ferr != nil:
		return fmt.Errorf("runner: flushing output: %w", ferr)
	}
	return nil
}
