package output

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Number is a float64 whose JSON form is null when it is not finite.
type Number float64

// MarshalJSON writes the number as encoding/json writes a float64, or null
// when it is NaN or ±Inf.
func (x Number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads a number, or null as NaN.
func (x *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("want a number or null, got %s", b)
	}
	*x = Number(f)
	return nil
}

// WriteJSON writes v as indented JSON followed by a newline. Non-finite
// values must be carried as Number (or pointers left nil); a plain float64
// NaN is an error, never a silent wrong output.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Writer remembers the first error of the writes made through it and
// skips the writes after it.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer.
func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// Printf is fmt.Fprintf on the writer; its error is kept for Err.
func (e *Writer) Printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// Println is fmt.Fprintln on the writer; its error is kept for Err.
func (e *Writer) Println(a ...any) { fmt.Fprintln(e, a...) }

// Err returns the first write error, or nil.
func (e *Writer) Err() error { return e.err }
