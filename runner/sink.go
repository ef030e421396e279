package runner

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Result is one finished item as delivered to a Sink.
type Result[R any] struct {
	// K is the global item index, Point*reps + Rep.
	K int
	// Point and Rep are the point and replicate indices.
	Point, Rep int
	// Seed is the item's derived seed (see Seed).
	Seed uint64
	// Value is what the sweep function returned.
	Value R
}

// Sink receives the results of Run one at a time, strictly in increasing
// item order and from a single goroutine. Run calls Flush once before it
// returns, whether it succeeded or not, so that the rows delivered so far
// (a prefix of the shard's items) reach their writer.
type Sink[R any] interface {
	Put(Result[R]) error
	Flush() error
}

// SinkFunc adapts a function to a Sink whose Flush does nothing.
type SinkFunc[R any] func(Result[R]) error

// Put calls f(r).
func (f SinkFunc[R]) Put(r Result[R]) error { return f(r) }

// Flush does nothing.
func (SinkFunc[R]) Flush() error { return nil }

// Collect returns a Sink that appends every result to *dst.
func Collect[R any](dst *[]Result[R]) Sink[R] {
	return SinkFunc[R](func(r Result[R]) error {
		*dst = append(*dst, r)
		return nil
	})
}

type tee[R any] []Sink[R]

// Tee returns a Sink that passes every result to each of sinks in turn,
// for example a CSV and a JSON-lines file at once.
func Tee[R any](sinks ...Sink[R]) Sink[R] { return tee[R](sinks) }

func (t tee[R]) Put(r Result[R]) error {
	for _, s := range t {
		if err := s.Put(r); err != nil {
			return err
		}
	}
	return nil
}

func (t tee[R]) Flush() error {
	var first error
	for _, s := range t {
		if err := s.Flush(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// rowState turns results into cells and checks that every row has the
// columns of the first one.
type rowState struct {
	names []string // nil until the first row
	cells []string
	js    bytes.Buffer
}

// row fills s.cells (leading columns first) and s.js (a JSON object).
// header reports whether this is the first row.
func rowFor[R any](s *rowState, r Result[R]) (header bool, err error) {
	fs, err := RowOf(r.Value)
	if err != nil {
		return false, fmt.Errorf("item %d: %v", r.K, err)
	}
	if s.names == nil {
		header = true
		s.names = make([]string, 0, len(leading)+len(fs))
		s.names = append(s.names, leading[:]...)
		for _, f := range fs {
			s.names = append(s.names, f.Name)
		}
	} else if !sameNames(s.names[len(leading):], fs) {
		got := make([]string, len(fs))
		for i, f := range fs {
			got[i] = f.Name
		}
		return false, fmt.Errorf("item %d: columns %q differ from the first row's %q", r.K, got, s.names[len(leading):])
	}
	s.cells = append(s.cells[:0],
		strconv.Itoa(r.K), strconv.Itoa(r.Point), strconv.Itoa(r.Rep),
		strconv.FormatUint(r.Seed, 10))
	s.js.Reset()
	fmt.Fprintf(&s.js, `{"item":%d,"point":%d,"rep":%d,"seed":%d`, r.K, r.Point, r.Rep, r.Seed)
	for _, f := range fs {
		s.js.WriteByte(',')
		writeJSONString(&s.js, f.Name)
		s.js.WriteByte(':')
		c, err := formatValue(f.Value, &s.js)
		if err != nil {
			return false, fmt.Errorf("item %d: column %q: %v", r.K, f.Name, err)
		}
		s.cells = append(s.cells, c)
	}
	s.js.WriteString("}\n")
	return header, nil
}

func sameNames(names []string, fs []Field) bool {
	if len(names) != len(fs) {
		return false
	}
	for i, f := range fs {
		if names[i] != f.Name {
			return false
		}
	}
	return true
}

type csvSink[R any] struct {
	out io.Writer
	w   *csv.Writer
	s   rowState
}

// NewCSV returns a Sink that writes results to w as CSV: a header line
// before the first row, then one line per result whose columns are item,
// point, rep, seed and the result's own columns (see RowOf and Field).
// Lines end in "\n"; cells are quoted as encoding/csv does. A sweep with no
// items writes nothing, not even a header.
func NewCSV[R any](w io.Writer) Sink[R] { return &csvSink[R]{out: w, w: csv.NewWriter(w)} }

func (c *csvSink[R]) Put(r Result[R]) error {
	header, err := rowFor(&c.s, r)
	if err != nil {
		return err
	}
	if header {
		if err := c.w.Write(c.s.names); err != nil {
			return err
		}
	}
	return c.w.Write(c.s.cells)
}

func (c *csvSink[R]) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonlSink[R any] struct {
	w *bufio.Writer
	s rowState
}

// NewJSONL returns a Sink that writes results to w as JSON lines: one
// object per result, keys in the order item, point, rep, seed and then the
// result's own columns, no spaces, "\n" after each object.
func NewJSONL[R any](w io.Writer) Sink[R] { return &jsonlSink[R]{w: bufio.NewWriter(w)} }

func (j *jsonlSink[R]) Put(r Result[R]) error {
	if _, err := rowFor(&j.s, r); err != nil {
		return err
	}
	_, err := j.w.Write(j.s.js.Bytes())
	return err
}

func (j *jsonlSink[R]) Flush() error { return j.w.Flush() }
