package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// An ItemLog records, or replays, the results of every sweep that Run
// executes under a context carrying it (WithItemLog). It is how a program
// made of several sweeps, such as a paper reproduction, runs on a job
// array without any change to its code:
//
//   - Recording shard i/n (NewItemRecorder): the sweeps of the program are
//     numbered in the order Run is called and their items concatenated,
//     global item g = (items of the earlier sweeps) + k. Run computes only
//     the items with g mod n = i, writes each result to the log as one
//     JSONL row (the leading columns, with item = g, then the sweep's
//     number and label and the result gob-encoded in base64), and hands
//     the program's own sink the zero value of R for the others, so that
//     the program carries on (its own outputs, built from partial results,
//     are to be thrown away). Close ends the log with the shard's end line.
//     The zero Shard records every item and leaves the program's outputs
//     exact.
//   - The logs of all the shards merge (Merge) into the log of the unsplit
//     run, byte for byte.
//   - Replaying (NewItemReplayer) a merged log: Run computes nothing; it
//     decodes each sweep's results from the log, checks that the sweep,
//     its label and every item's seed are those recorded, and hands them to
//     the program's sink, which therefore writes the bytes, figures
//     included, of an unsplit run. Close checks that the program asked for
//     every recorded item.
//
// Requirements: the program calls Run sequentially (an ItemLog refuses
// overlapping sweeps), the points of a sweep do not depend on the results
// of an earlier one (a shard sees zeros there), and R round-trips through
// encoding/gob (exported fields; gob turns −0 into +0 and an empty slice
// into nil).
type ItemLog struct {
	mu     sync.Mutex
	busy   bool
	runErr bool // a sweep failed (an error of the sweep, not of the program)
	full   map[int]bool
	cache  map[int]map[int][]byte // sweep → item → gob bytes
	shard  Shard
	next   int // global item offset of the next sweep
	sweeps int
	// lastLabel is the label of the last sweep begun.
	lastLabel string
	rec       Sink[logRow]
	recW      *bufio.Writer
	rep       *bufio.Reader
	repLine   int
	done      bool
}

// logRow is the sweep-specific part of one row of an item log.
type logRow struct {
	Sweep int    `row:"sweep"`
	Label string `row:"label"`
	Value string `row:"value"`
}

type itemLogKey struct{}

// WithItemLog returns ctx carrying l: every Run under it records or
// replays through l.
func WithItemLog(ctx context.Context, l *ItemLog) context.Context {
	return context.WithValue(ctx, itemLogKey{}, l)
}

func itemLogFrom(ctx context.Context) *ItemLog {
	l, _ := ctx.Value(itemLogKey{}).(*ItemLog)
	return l
}

// NewItemRecorder returns an ItemLog that computes shard sh of every sweep
// and writes the results to w as JSON lines.
func NewItemRecorder(w io.Writer, sh Shard) (*ItemLog, error) {
	if err := sh.validate(); err != nil {
		return nil, fmt.Errorf("runner: %v", err)
	}
	bw := bufio.NewWriter(w)
	return &ItemLog{shard: sh, recW: bw, rec: NewJSONL[logRow](bw),
		full: map[int]bool{}, cache: map[int]map[int][]byte{}}, nil
}

// RecordShard runs program under a recorder of shard sh (see ItemLog) and
// writes the log to w once the program succeeded; it returns the number
// of items of the program's sweeps.
//
// A program fed zero values for the other shards' items may fail in its
// own code (a figure refuses an empty sample) or panic. RecordShard then
// runs it again with the sweep that preceded the failure computed in full
// (every item, real values, only the shard's own logged), and so on, one
// more sweep per attempt; every item already computed is reused, never
// recomputed. An error of a sweep itself (an item's error, cancellation)
// is returned at once.
func RecordShard(ctx context.Context, w io.Writer, sh Shard, program func(context.Context) error) (ShardRecord, error) {
	var (
		prev *ItemLog
		rec  ShardRecord
	)
	for {
		var buf bytes.Buffer
		l, err := NewItemRecorder(&buf, sh)
		if err != nil {
			return rec, err
		}
		if prev != nil {
			l.full, l.cache = prev.full, prev.cache
			l.full[prev.sweeps-1] = true
			rec.Full = append(rec.Full, prev.lastLabel)
		}
		err = protect(WithItemLog(ctx, l), program)
		if err == nil {
			if err := l.Close(); err != nil {
				return rec, err
			}
			rec.Sweeps, rec.Items = l.sweeps, l.next
			_, err = w.Write(buf.Bytes())
			return rec, err
		}
		if l.runErr || ctx.Err() != nil || l.sweeps == 0 || l.full[l.sweeps-1] {
			return rec, err
		}
		prev = l
	}
}

// ShardRecord is what RecordShard did.
type ShardRecord struct {
	// Sweeps and Items count the program's sweeps and their items.
	Sweeps, Items int
	// Full labels the sweeps computed in full because the program failed
	// on their partial results.
	Full []string
}

// protect calls program, turning a panic into an error.
func protect(ctx context.Context, program func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return program(ctx)
}

// NewItemReplayer returns an ItemLog that replays the merged log r.
func NewItemReplayer(r io.Reader) *ItemLog {
	return &ItemLog{rep: bufio.NewReader(r)}
}

// Items is the number of items of the sweeps run so far.
func (l *ItemLog) Items() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Close ends the log: a recorder writes the shard's end line (for an
// explicit shard) and flushes; a replayer checks that nothing is left.
// Call it only when the program succeeded: a log without its end line is
// an interrupted shard.
func (l *ItemLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return errors.New("runner: item log closed twice")
	}
	l.done = true
	if l.rep != nil {
		if _, err := l.rep.Peek(1); err != io.EOF {
			return fmt.Errorf("runner: item log line %d: the program asked for %d items, the log holds more (another reproduction, or other options?)", l.repLine+1, l.next)
		}
		return nil
	}
	if l.shard.Count > 0 {
		if e, ok := l.rec.(ShardEnder); ok {
			if err := e.EndShard(l.shard, l.next); err != nil {
				return err
			}
		}
	}
	if err := l.rec.Flush(); err != nil {
		return err
	}
	return l.recW.Flush()
}

// begin reserves the next sweep of total items; end releases it.
func (l *ItemLog) begin(label string, total int) (sweep, offset int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.done:
		return 0, 0, errors.New("runner: sweep after the item log was closed")
	case l.busy:
		return 0, 0, errors.New("runner: overlapping sweeps under one item log (a sharded or replayed program must run its sweeps one after another)")
	}
	l.busy = true
	l.lastLabel = label
	sweep, offset = l.sweeps, l.next
	l.sweeps++
	l.next += total
	return sweep, offset, nil
}

func (l *ItemLog) end() {
	l.mu.Lock()
	l.busy = false
	l.mu.Unlock()
}

// runLogged is Run under an item log.
func runLogged[P, R any](ctx context.Context, l *ItemLog, opts Options, points []P, reps int,
	fn func(ctx context.Context, it Item[P]) (R, error), sink Sink[R]) error {
	if opts.Shard.Count > 0 {
		return errors.New("runner: a sweep with its own shard under an item log")
	}
	if sink == nil {
		sink = SinkFunc[R](func(Result[R]) error { return nil })
	}
	total := len(points) * reps
	sweep, offset, err := l.begin(opts.Label, total)
	if err != nil {
		return err
	}
	defer l.end()
	if l.rep != nil {
		err := replaySweep(l, sweep, offset, opts, reps, total, sink)
		if ferr := sink.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	i, n := l.shard.norm()
	local := Shard{Index: ((i-offset)%n + n) % n, Count: n}
	if n == 1 || l.full[sweep] {
		local = Shard{}
	}
	l.mu.Lock()
	cache := l.cache[sweep]
	if cache == nil {
		cache = map[int][]byte{}
		l.cache[sweep] = cache
	}
	l.mu.Unlock()
	w := &recordSink[R]{l: l, sweep: sweep, offset: offset, label: opts.Label, seed: opts.Seed, reps: reps, out: sink, cache: cache}
	opts.Shard = local
	cached := func(ctx context.Context, it Item[P]) (R, error) {
		var v R
		l.mu.Lock()
		b, ok := cache[it.K]
		l.mu.Unlock()
		if !ok {
			return fn(ctx, it)
		}
		err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v)
		return v, err
	}
	if err := run(ctx, opts, points, reps, cached, w); err != nil {
		var (
			ie *ItemError
			ze zeroItemError
		)
		if (errors.As(err, &ie) && !errors.As(err, &ze)) || ctx.Err() != nil {
			l.mu.Lock()
			l.runErr = true
			l.mu.Unlock()
		}
		return err
	}
	if err := w.fill(total); err != nil {
		return err
	}
	return sink.Flush()
}

// zeroItemError is an error of the program's sink on a zero value handed
// for another shard's item: RecordShard computes the sweep in full.
type zeroItemError struct{ err error }

func (e zeroItemError) Error() string { return e.err.Error() }
func (e zeroItemError) Unwrap() error { return e.err }

// recordSink logs every result of a recorded shard and hands the
// program's sink every item in order, zero values for the items of other
// shards.
type recordSink[R any] struct {
	l                   *ItemLog
	sweep, offset, reps int
	label               string
	seed                uint64
	out                 Sink[R]
	next                int            // next item the program's sink expects
	cache               map[int][]byte // the sweep's computed items, by item
}

func (s *recordSink[R]) fill(upto int) error {
	for ; s.next < upto; s.next++ {
		p, r := s.next/s.reps, s.next%s.reps
		if err := s.out.Put(Result[R]{K: s.next, Point: p, Rep: r, Seed: Seed(s.seed, p, r)}); err != nil {
			return zeroItemError{err}
		}
	}
	return nil
}

func (s *recordSink[R]) Put(r Result[R]) error {
	if err := s.fill(r.K); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&r.Value); err != nil {
		return fmt.Errorf("sweep %q returns a %T, which encoding/gob cannot record (%v): this program cannot run sharded", s.label, r.Value, err)
	}
	s.l.mu.Lock()
	s.cache[r.K] = buf.Bytes()
	s.l.mu.Unlock()
	// A sweep computed in full holds items of the other shards too: only
	// the shard's own go to the log.
	if i, n := s.l.shard.norm(); (s.offset+r.K)%n == i {
		row := logRow{Sweep: s.sweep, Label: s.label, Value: base64.StdEncoding.EncodeToString(buf.Bytes())}
		if err := s.l.rec.Put(Result[logRow]{K: s.offset + r.K, Point: r.Point, Rep: r.Rep, Seed: r.Seed, Value: row}); err != nil {
			return err
		}
	}
	s.next++
	return s.out.Put(r)
}

// Flush is called by Run on every exit; the program's sink is flushed
// by runLogged.
func (s *recordSink[R]) Flush() error { return nil }

// replaySweep reads the total rows of one sweep from the log, checks
// them against the sweep and passes the decoded results to sink.
func replaySweep[R any](l *ItemLog, sweep, offset int, opts Options, reps, total int, sink Sink[R]) error {
	for k := range total {
		line, err := readLine(l.rep)
		l.repLine++
		if err == io.EOF {
			return fmt.Errorf("runner: item log ends after %d items, but sweep %d (%s) asks for item %d (a log of another reproduction, or of other options?)", offset+k, sweep, opts.Label, offset+k)
		}
		if err != nil {
			return fmt.Errorf("runner: item log line %d: %v", l.repLine, err)
		}
		var row struct {
			Item, Point, Rep, Sweep int
			Seed                    uint64
			Label, Value            string
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row); err != nil {
			return fmt.Errorf("runner: item log line %d: %v (not a merged item log?)", l.repLine, err)
		}
		p, r := k/reps, k%reps
		seed := Seed(opts.Seed, p, r)
		if row.Item != offset+k || row.Sweep != sweep || row.Label != opts.Label || row.Point != p || row.Rep != r || row.Seed != seed {
			return fmt.Errorf("runner: item log line %d: item %d of sweep %d %q (point %d, rep %d, seed %d), but the program asks for item %d of sweep %d %q (point %d, rep %d, seed %d): another reproduction, or other options?",
				l.repLine, row.Item, row.Sweep, row.Label, row.Point, row.Rep, row.Seed, offset+k, sweep, opts.Label, p, r, seed)
		}
		value, err := base64.StdEncoding.DecodeString(row.Value)
		if err != nil {
			return fmt.Errorf("runner: item log line %d: value: %v", l.repLine, err)
		}
		res := Result[R]{K: k, Point: p, Rep: r, Seed: seed}
		if err := gob.NewDecoder(bytes.NewReader(value)).Decode(&res.Value); err != nil {
			return fmt.Errorf("runner: item log line %d: decoding a %T: %v", l.repLine, res.Value, err)
		}
		if err := sink.Put(res); err != nil {
			return &ItemError{K: k, Point: p, Rep: r, Err: fmt.Errorf("sink: %w", err)}
		}
	}
	return nil
}
