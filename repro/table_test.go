package repro

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/runner"
)

func TestExactCellsReadBack(t *testing.T) {
	dir := t.TempDir()
	tb, err := Config{Dir: dir}.NewTable("e.csv", "x", "rounded")
	if err != nil {
		t.Fatal(err)
	}
	a, b := 0.1, 0.2 // not constants: their float64 sum is 0.30000000000000004
	vals := []float64{a + b, math.Pi, 1e-300, -2.5e10, math.MaxFloat64}
	for _, v := range vals {
		tb.Row(Exact(v), v)
	}
	tb.Row(Exact(math.NaN()), math.NaN())
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "e.csv"))
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != len(vals)+2 || lines[len(lines)-1] != "," {
		t.Fatalf("table %q", got)
	}
	for i, v := range vals {
		cells := strings.Split(lines[i+1], ",")
		back, err := strconv.ParseFloat(cells[0], 64)
		if err != nil || back != v {
			t.Errorf("Exact(%v) wrote %q, reads back as %v", v, cells[0], back)
		}
		if r, _ := strconv.ParseFloat(cells[1], 64); math.Abs(r-v) > 1e-7*math.Abs(v) {
			t.Errorf("float64 %v wrote %q", v, cells[1])
		}
	}
	if lines[1] != "0.30000000000000004,0.3" {
		t.Errorf("0.1+0.2 wrote %q, want the shortest round-trip form beside 8 digits", lines[1])
	}
}

func TestTableReportsWriteErrors(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	tb, err := Config{Dir: "/dev"}.NewTable("full", "a")
	if err != nil {
		t.Skipf("cannot open /dev/full: %v", err)
	}
	for i := 0; i < 10000 && tb.Err() == nil; i++ {
		tb.Row(i)
	}
	if tb.Err() == nil {
		t.Error("Err stayed nil after 10 000 rows to a full disk")
	}
	if err := tb.Close(); err == nil {
		t.Error("Close reported no error on a full disk")
	}
}

// TestTableSinkStreamsRunnerRows checks the rows a sweep streams into a
// table against the rows computed directly from each item's index.
func TestTableSinkStreamsRunnerRows(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Workers: 3}
	tb, err := cfg.NewTable("s.csv", "k", "point", "square")
	if err != nil {
		t.Fatal(err)
	}
	points := []float64{0, 1.5, 2, 3.25}
	err = runner.Run(context.Background(), cfg.RunnerOptions("s", 7), points, 5,
		func(_ context.Context, it runner.Item[float64]) (float64, error) { return it.Param * it.Param, nil },
		TableSink(tb, func(r runner.Result[float64]) []any { return []any{r.K, r.Point, r.Value} }))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.WriteString("k,point,square\n")
	for p, x := range points {
		for r := 0; r < 5; r++ {
			fmt.Fprintf(&want, "%d,%d,%s\n", p*5+r, p, strconv.FormatFloat(x*x, 'g', 8, 64))
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "s.csv"))
	if string(got) != want.String() {
		t.Errorf("streamed table\n%s\nwant\n%s", got, want.String())
	}
}

func TestBaseSeed(t *testing.T) {
	var cfg Config
	if got := cfg.BaseSeed(2013); got != 2013 {
		t.Errorf("unset seed gives %d, want the reproduction's default 2013", got)
	}
	s := uint64(0)
	cfg.Seed = &s
	if got := cfg.BaseSeed(2013); got != 0 {
		t.Errorf("--seed 0 gives %d", got)
	}
	if o := cfg.RunnerOptions("x", 2013); o.Seed != 0 || o.Label != "x" {
		t.Errorf("RunnerOptions %+v", o)
	}
}

// TableSink (used by this test only) returns a runner.Sink that writes each result runner.Run
// delivers, in item order, as the row cells(result) of t, so that a sweep
// streams its rows into a reproduction's table instead of collecting them
// first. Put reports t's first write error; Flush flushes t (the caller
// still closes it). Cancelling the sweep leaves whole rows only.
func TableSink[R any](t *Table, cells func(runner.Result[R]) []any) runner.Sink[R] {
	return tableSink[R]{t, cells}
}

type tableSink[R any] struct {
	t     *Table
	cells func(runner.Result[R]) []any
}

func (s tableSink[R]) Put(r runner.Result[R]) error {
	s.t.Row(s.cells(r)...)
	return s.t.Err()
}

func (s tableSink[R]) Flush() error { return s.t.Flush() }
