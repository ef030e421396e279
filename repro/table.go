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
	f *os.File
	w *csv.Writer
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
	t.w.Write(header)
	return t, nil
}

// Row writes one record. Floats keep 8 significant digits and NaN is an
// empty cell; ints and bools print as Go does; anything else by fmt.Sprint.
func (t *Table) Row(cells ...any) {
	rec := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case float64:
			if !math.IsNaN(v) {
				rec[i] = strconv.FormatFloat(v, 'g', 8, 64)
			}
		case int:
			rec[i] = strconv.Itoa(v)
		case bool:
			rec[i] = strconv.FormatBool(v)
		default:
			rec[i] = fmt.Sprint(v)
		}
	}
	t.w.Write(rec)
}

// Close flushes and closes the file, reporting the first write error.
func (t *Table) Close() error {
	t.w.Flush()
	if err := t.w.Error(); err != nil {
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
