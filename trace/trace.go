package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLine is the longest line a reader accepts, in bytes.
const maxLine = 1 << 20

// ParseError reports malformed input: where (source name and 1-based line
// number) and what. Line is 0 when the error concerns the input as a whole
// (for example an empty history).
type ParseError struct {
	Source string // name given by the caller; may be empty
	Line   int    // 1-based line number; 0 for the whole input
	Msg    string // one line, offending values quoted
}

// Error formats the error as "source:line: msg" ("line N: msg" without a
// source name).
func (e *ParseError) Error() string {
	switch {
	case e.Source != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
	case e.Source != "":
		return e.Source + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	default:
		return e.Msg
	}
}

// errorf builds a *ParseError; the message is forced onto one line.
func errorf(source string, line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	msg = strings.NewReplacer("\n", " ", "\r", " ").Replace(msg)
	return &ParseError{Source: source, Line: line, Msg: msg}
}

// Quote renders a user-supplied value for an error message: quoted,
// escaped onto one line, and cut to 48 bytes (at a rune boundary) with an
// ellipsis, so that binary garbage never floods an error. Every reader of
// ckpt's input formats uses it.
func Quote(s string) string {
	const max = 48
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// lineScanner reads lines (without "\n" or "\r\n"), counting them, and turns
// scanner failures into *ParseError values that name the line.
type lineScanner struct {
	sc   *bufio.Scanner
	name string
	line int
	text string
}

func newLineScanner(r io.Reader, name string) *lineScanner {
	return &lineScanner{sc: NewScanner(r), name: name}
}

// NewScanner is a bufio.Scanner of r's lines up to the readers' longest
// (1 MiB); ScanError words what stopped it. For readers outside trace
// that keep their own line loop.
func NewScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return sc
}

// ScanError is the error that stopped sc (NewScanner) after line lines
// of the input name, in the readers' words, or nil at a clean end: a line
// too long is named by its number.
func ScanError(sc *bufio.Scanner, name string, line int) error {
	err := sc.Err()
	if err == nil {
		return nil
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return errorf(name, line+1, "line longer than %d bytes", maxLine)
	}
	return errorf(name, line+1, "read error: %v", err)
}

// scan advances to the next line; it strips a UTF-8 byte-order mark from
// the first one.
func (s *lineScanner) scan() bool {
	if !s.sc.Scan() {
		return false
	}
	s.line++
	s.text = s.sc.Text()
	if s.line == 1 {
		s.text = strings.TrimPrefix(s.text, "\uFEFF")
	}
	return true
}

// err is the error that stopped scan, or nil at a clean end of input.
func (s *lineScanner) err() error { return ScanError(s.sc, s.name, s.line) }

// errorf reports a problem on the current line.
func (s *lineScanner) errorf(format string, args ...any) error {
	return errorf(s.name, s.line, format, args...)
}

func quote(s string) string { return Quote(s) }
