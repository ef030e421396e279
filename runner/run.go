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
	if fn == nil {
		return errors.New("runner: nil sweep function")
	}
	if reps < 1 {
		return fmt.Errorf("runner: reps = %d, want at least 1", reps)
	}
	if len(points) > math.MaxInt/reps {
		return fmt.Errorf("runner: %d points × %d reps overflows the item count", len(points), reps)
	}
	if err := opts.Shard.validate(); err != nil {
		return fmt.Errorf("runner: %v", err)
	}
	if sink == nil {
		sink = SinkFunc[R](func(Result[R]) error { return nil })
	}
	total := len(points) * reps
	first, stride := opts.Shard.norm()
	count := opts.Shard.Len(total)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, count))
	window := 4 * workers

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}

	type done struct {
		j   int // local index within the shard
		res Result[R]
	}
	jobs := make(chan int)
	results := make(chan done, window)
	tokens := make(chan struct{}, window) // bounds the reorder buffer

	go func() { // dispatcher
		defer close(jobs)
		for j := 0; j < count; j++ {
			select {
			case tokens <- struct{}{}:
			case <-runCtx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-runCtx.Done():
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if runCtx.Err() != nil {
					continue
				}
				k := first + j*stride
				p, r := k/reps, k%reps
				seed := Seed(opts.Seed, p, r)
				it := Item[P]{K: k, Point: p, Rep: r, Param: points[p], Seed: seed, Rand: NewRand(seed)}
				v, err := fn(runCtx, it)
				if err != nil {
					if runCtx.Err() == nil { // not a consequence of an earlier stop
						fail(&ItemError{K: k, Point: p, Rep: r, Err: err})
					}
					continue
				}
				results <- done{j, Result[R]{K: k, Point: p, Rep: r, Seed: seed, Value: v}}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	bar := newBar(opts, count)
	buf := make([]*Result[R], window)
	next := 0
	for d := range results {
		bar.add()
		res := d.res
		buf[d.j%window] = &res
		for runCtx.Err() == nil && buf[next%window] != nil {
			r := buf[next%window]
			buf[next%window] = nil
			if err := sink.Put(*r); err != nil {
				fail(&ItemError{K: r.K, Point: r.Point, Rep: r.Rep, Err: fmt.Errorf("sink: %w", err)})
				break
			}
			next++
			<-tokens
		}
	}
	ferr := sink.Flush()
	bar.finish(next == count)

	mu.Lock()
	err := firstErr
	mu.Unlock()
	switch {
	case err != nil:
		return err
	case next < count:
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New("runner: internal error: sweep stopped early")
	case ferr != nil:
		return fmt.Errorf("runner: flushing output: %w", ferr)
	}
	return nil
}
