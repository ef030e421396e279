package trace

import (
	"io"
	"strings"
)

// records streams the records of a line-oriented text file, gzip or not:
// blank lines and lines starting with "#" are skipped (and counted), every
// other line is given to parse with the scanner (for its line number).
// The FTA and Google task-event readers are records of their own types.
type records[T any] struct {
	src     io.Reader
	name    string
	parse   func(*lineScanner, string) (T, error)
	ls      *lineScanner
	err     error
	Skipped int // comment and blank lines skipped so far
}

// Line is the number of the last line read.
func (r *records[T]) Line() int {
	if r.ls == nil {
		return 0
	}
	return r.ls.line
}

// Next returns the next record, or io.EOF after the last one; after another
// error it keeps returning that error.
func (r *records[T]) Next() (T, error) {
	var zero T
	if r.err != nil {
		return zero, r.err
	}
	if r.ls == nil {
		rd, err := maybeGzip(r.src, r.name)
		if err != nil {
			r.err = err
			return zero, err
		}
		r.ls = newLineScanner(rd, r.name)
	}
	for r.ls.scan() {
		t := strings.TrimSpace(r.ls.text)
		if t == "" || t[0] == '#' {
			r.Skipped++
			continue
		}
		e, err := r.parse(r.ls, t)
		r.err = err
		return e, err
	}
	if r.err = r.ls.err(); r.err == nil {
		r.err = io.EOF
	}
	return zero, r.err
}
