package capacity

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/runner"
)

// A sweep whose last item takes minutes stops within a second of the
// cancellation, returns ctx.Err(), and leaves only complete CSV rows: the
// header and the rows of the items that finished.
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
	var cancelled time.Time
	time.AfterFunc(300*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	err = RunSweep(ctx, runner.Options{Seed: 1, Workers: 2, Progress: runner.ProgressOff}, pts, 1, runner.NewCSV[SweepRow](&buf))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(cancelled); d > time.Second {
		t.Fatalf("stopped %v after the cancellation", d)
	}
	out := buf.String()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a complete line: %q", out)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("want the header and the 2 finished rows, got %d rows (%v):\n%s", len(rows), err, out)
	}
	for _, r := range rows {
		if len(r) != len(rows[0]) {
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
