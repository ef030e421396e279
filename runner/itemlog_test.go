package runner

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// program is a reproduction in miniature: two sweeps, written as CSV,
// and a summary computed from the results of both.
func program(ctx context.Context, workers int, seed uint64, npoints int, out *bytes.Buffer) error {
	var rows []Result[outcome]
	err := Run(ctx, Options{Seed: seed, Workers: workers, Label: "first"}, testPoints(npoints), 2, sweepFn,
		Tee(NewCSV[outcome](out), Collect(&rows)))
	if err != nil {
		return err
	}
	sum := 0.0
	err = Run(ctx, Options{Seed: seed + 1, Workers: workers, Label: "second"}, []float64{1, 2, 3}, 3,
		func(_ context.Context, it Item[float64]) (float64, error) {
			if it.Rep == 2 {
				return math.NaN(), nil // must survive the log
			}
			return it.Param * it.Rand.Float64(), nil
		}, SinkFunc[float64](func(r Result[float64]) error {
			if !math.IsNaN(r.Value) {
				sum += r.Value
			}
			return nil
		}))
	for _, r := range rows {
		sum += r.Value.Draw
	}
	fmt.Fprintf(out, "sum %v\n", sum)
	return err
}

// TestItemLogShardsReplayToTheUnsplitBytes: the shards' logs merge into
// the unsplit recording, and replaying it gives the program's unsplit
// output, whatever the split and the workers.
func TestItemLogShardsReplayToTheUnsplitBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		npoints := rapid.IntRange(0, 6).Draw(t, "points")
		n := rapid.IntRange(1, 7).Draw(t, "shards")
		workers := rapid.IntRange(1, 3).Draw(t, "workers")
		seed := rapid.Uint64().Draw(t, "seed")
		var want bytes.Buffer
		if err := program(context.Background(), workers, seed, npoints, &want); err != nil {
			t.Fatal(err)
		}
		// Recording everything leaves the program's output unchanged.
		var whole, out bytes.Buffer
		l, _ := NewItemRecorder(&whole, Shard{})
		if err := program(WithItemLog(context.Background(), l), workers, seed, npoints, &out); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil || out.String() != want.String() {
			t.Fatalf("recording changed the output: %v", err)
		}
		var logs [][]byte
		for i := range n {
			var lb, junk bytes.Buffer
			l, _ := NewItemRecorder(&lb, Shard{i, n})
			if err := program(WithItemLog(context.Background(), l), workers, seed, npoints, &junk); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			logs = append(logs, lb.Bytes())
		}
		merged, err := mergeBytes(t, FormatJSONL, 0, logs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(merged, whole.Bytes()) {
			t.Fatalf("merged shard logs differ from the unsplit log")
		}
		var got bytes.Buffer
		r := NewItemReplayer(bytes.NewReader(merged))
		if err := program(WithItemLog(context.Background(), r), workers, seed, npoints, &got); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil || got.String() != want.String() {
			t.Fatalf("replay: %v\n%s\nwant\n%s", err, got.String(), want.String())
		}
	})
}

func TestItemLogReplayRefusesAnotherProgram(t *testing.T) {
	var log, out bytes.Buffer
	l, _ := NewItemRecorder(&log, Shard{})
	if err := program(WithItemLog(context.Background(), l), 1, 5, 3, &out); err != nil {
		t.Fatal(err)
	}
	l.Close()
	for _, tc := range []struct {
		seed    uint64
		npoints int
		log     string
		want    string
	}{
		{6, 3, log.String(), "seed"},
		{5, 4, log.String(), "item 6 of sweep 1 \"second\""},
		{5, 2, log.String(), "item 4 of sweep 0 \"first\""},
		{5, 3, log.String() + log.String()[strings.LastIndex(log.String()[:log.Len()-1], "\n")+1:], "the log holds more"},
		{5, 3, log.String()[:len(log.String())/2], "line"},
		{5, 3, strings.Replace(log.String(), `"label":"second"`, `"label":"other"`, 1), `"other"`},
	} {
		r := NewItemReplayer(strings.NewReader(tc.log))
		err := program(WithItemLog(context.Background(), r), 1, tc.seed, tc.npoints, new(bytes.Buffer))
		if err == nil {
			err = r.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("seed %d, %d points: %v, want %q", tc.seed, tc.npoints, err, tc.want)
		}
	}
}

// TestRecordShardComputesInFullWhatTheProgramNeeds: a program that fails
// (or panics) on a zero result gets that sweep computed in full, every
// item once, and the shard logs still merge to the unsplit log.
func TestRecordShardComputesInFullWhatTheProgramNeeds(t *testing.T) {
	var calls [2][]int
	var mu sync.Mutex // the two workers record their calls concurrently
	prog := func(ctx context.Context) error {
		for s := range 2 {
			var got []Result[float64]
			err := Run(ctx, Options{Seed: 3, Workers: 2, Label: fmt.Sprint("s", s)}, []float64{1, 2, 3, 4, 5}, 1,
				func(_ context.Context, it Item[float64]) (float64, error) {
					mu.Lock()
					calls[s] = append(calls[s], it.K)
					mu.Unlock()
					return it.Param, nil
				}, Collect(&got))
			if err != nil {
				return err
			}
			for _, r := range got {
				switch {
				case s == 0 && r.Value == 0:
					return fmt.Errorf("sweep 0: empty")
				case s == 1 && r.Value == 0:
					panic("sweep 1: empty")
				}
			}
		}
		return nil
	}
	var whole bytes.Buffer
	if _, err := RecordShard(context.Background(), &whole, Shard{}, prog); err != nil {
		t.Fatal(err)
	}
	var logs [][]byte
	for i := range 3 {
		calls = [2][]int{}
		var b bytes.Buffer
		rec, err := RecordShard(context.Background(), &b, Shard{i, 3}, prog)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rec.Full) != "[s0 s1]" || rec.Items != 10 || rec.Sweeps != 2 {
			t.Fatalf("shard %d: %+v", i, rec)
		}
		for s := range 2 {
			if len(calls[s]) != 5 {
				t.Fatalf("shard %d sweep %d: items computed %v, want each of 5 once", i, s, calls[s])
			}
		}
		logs = append(logs, b.Bytes())
	}
	merged, err := mergeBytes(t, FormatJSONL, 0, logs)
	if err != nil || !bytes.Equal(merged, whole.Bytes()) {
		t.Fatalf("merged logs differ from the unsplit log: %v", err)
	}
	// An item's own error is returned at once, not retried.
	var n atomic.Int64 // items run on concurrent workers
	_, err = RecordShard(context.Background(), new(bytes.Buffer), Shard{0, 2}, func(ctx context.Context) error {
		return Run(ctx, Options{}, []int{1, 2, 3}, 1, func(context.Context, Item[int]) (int, error) {
			n.Add(1)
			return 0, fmt.Errorf("boom")
		}, nil)
	})
	if err == nil || !strings.Contains(err.Error(), "boom") || n.Load() > 2 {
		t.Fatalf("item error: %v after %d calls", err, n.Load())
	}
}
