package capacity

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/runner"
)

// A sweep whose last item takes minutes stops soon after the
// cancellation, returns ctx.Err(), and leaves only complete CSV rows: the
// header and the rows of the items that finished. The cancellation comes
// once the two short items are written (the long one is then running);
// the bound is generous (10 s, for a machine with every core busy) yet far
// below the minutes the long item needs, so a broken cancellation fails.
func TestRunSweepStopsOnCancel(t *testing.T) {
	e := Experiment{Workloads: []Workload{UniformWorkload(20)}, Params: LightParams(), Strategies: []string{"dp-goodput"},
		Vary: "sections", Values: []float64{5, 6, 1_000_000}}
	pts, err := e.Points()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	csvSink := runner.NewCSV[SweepRow](&buf)
	rows := 0
	var cancelled time.Time
	var mu sync.Mutex
	sink := runner.Tee[SweepRow](csvSink, runner.SinkFunc[SweepRow](func(runner.Result[SweepRow]) error {
		if rows++; rows == 2 {
			time.AfterFunc(100*time.Millisecond, func() { mu.Lock(); cancelled = time.Now(); mu.Unlock(); cancel() })
		}
		return nil
	}))
	err = RunPoints(ctx, runner.Options{Seed: 1, Workers: 2, Progress: runner.ProgressOff}, pts, 1, sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	mu.Lock()
	d := time.Since(cancelled)
	mu.Unlock()
	if d > 10*time.Second {
		t.Fatalf("stopped %v after the cancellation", d)
	}
	out := buf.String()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a complete line: %q", out)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("want the header and the 2 finished rows, got %d rows (%v):\n%s", len(recs), err, out)
	}
	for _, r := range recs {
		if len(r) != len(recs[0]) {
			t.Fatalf("incomplete row %q", r)
		}
	}
}

// SimulateContext checks the context before every section.
func TestSimulateContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SimulateContext(ctx, smallInstance(1, 5), &DPGoodput{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
