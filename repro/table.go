package repro

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
)

// Table is a CSV file of a reproduction, written row by row.
type Table struct {
	f   *os.File
	w   *csv.Writer
	err error // first write error
}

// NewTable creates name in the output folder and writes its header.
func (c Config) NewTable(name string, header ...string) (*Table, error) {
	path, err := c.Path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	t := &Table{f: f, w: csv.NewWriter(f)}
	t.write(header)
	return t, nil
}

// Exact is a Table cell written with the fewest digits that read back to
// the same float64 (strconv.FormatFloat(v, 'g', -1, 64)), where a float64
// cell keeps 8 significant digits. NaN is an empty cell, as for float64.
type Exact float64

// Row writes one record. float64 cells keep 8 significant digits, Exact
// cells all the digits of the float64; NaN is an empty cell; ints and
// bools print as Go does; anything else (strings, and numbers formatted
// by the caller) by fmt.Sprint. A write error is reported by Err and
// Close.
func (t *Table) Row(cells ...any) {
	rec := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case float64:
			if !math.IsNaN(v) {
				rec[i] = strconv.FormatFloat(v, 'g', 8, 64)
			}
		case Exact:
			if !math.IsNaN(float64(v)) {
				rec[i] = strconv.FormatFloat(float64(v), 'g', -1, 64)
			}
		case int:
			rec[i] = strconv.Itoa(v)
		case bool:
			rec[i] = strconv.FormatBool(v)
		default:
			rec[i] = fmt.Sprint(v)
		}
	}
	t.write(rec)
}

func (t *Table) write(rec []string) {
	if err := t.w.Write(rec); err != nil && t.err == nil {
		t.err = err
	}
}

// Err reports the first write error so far (rows are buffered, so an
// error shows once a few kilobytes have been written, or at Flush), so
// that a long loop can stop early on a full disk.
func (t *Table) Err() error { return t.err }

// Flush writes the buffered rows to the file and reports the first write
// error.
func (t *Table) Flush() error {
	t.w.Flush()
	if err := t.w.Error(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}

// Close flushes and closes the file, reporting the first write error.
func (t *Table) Close() error {
	if err := t.Flush(); err != nil {
		t.f.Close()
		return err
	}
	return t.f.Close()
}

// Step is one experiment of a reproduction: it writes its own CSV files and
// figures and returns its paper-versus-ours comparisons.
type Step struct {
	Name string
	Run  func(ctx context.Context) ([]Comparison, error)
}

// RunSteps runs the steps in order, logging each and printing its
// comparisons, then writes all comparisons to comparisons.csv. It stops at
// the first error (named after its step) or when ctx is cancelled.
func RunSteps(ctx context.Context, cfg Config, steps []Step) error {
	var all []Comparison
	for _, s := range steps {
		fmt.Fprintf(cfg.Log, "== %s\n", s.Name)
		cs, err := s.Run(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		if len(cs) > 0 {
			PrintComparisons(cfg.Log, s.Name, cs)
		}
		all = append(all, cs...)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	path, err := cfg.Path("comparisons.csv")
	if err != nil {
		return err
	}
	return WriteComparisons(path, all)
}
