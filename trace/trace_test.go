package trace

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// openReal opens a file of the real data set (rel is slash-separated,
// inside the data folder of package datadir), or skips the test with the
// missing file's name (fails under CI, which has the data).
func openReal(t *testing.T, rel string) *os.File {
	t.Helper()
	f, err := os.Open(datadirtest.ForTest(t, strings.Split(rel, "/")...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// checkErrShape fails unless err is a one-line *ParseError whose text
// starts with "name:line: " when it names a line.
func checkErrShape(t testing.TB, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error on several lines: %q", msg)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %q (%T) is not a *ParseError", msg, err)
	}
	if pe.Line > 0 && !strings.HasPrefix(msg, fmt.Sprintf("%s:%d: ", name, pe.Line)) {
		t.Fatalf("error %q does not start with %s:%d:", msg, name, pe.Line)
	}
}

// wantErr fails unless err is a well-formed error on the given line whose
// message contains every fragment.
func wantErr(t *testing.T, name string, err error, line int, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one on line %d containing %q", line, fragments)
	}
	checkErrShape(t, name, err)
	var pe *ParseError
	errors.As(err, &pe)
	if pe.Line != line {
		t.Errorf("error %q on line %d, want line %d", err, pe.Line, line)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q lacks %q", err, f)
		}
	}
}

func TestParseErrorFormat(t *testing.T) {
	cases := []struct {
		e    ParseError
		want string
	}{
		{ParseError{"h.csv", 12, `invalid walltime "abc"`}, `h.csv:12: invalid walltime "abc"`},
		{ParseError{"h.csv", 0, "no walltimes"}, "h.csv: no walltimes"},
		{ParseError{"", 3, "bad"}, "line 3: bad"},
		{ParseError{"", 0, "bad"}, "bad"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if q := quote(strings.Repeat("é", 100)); !strings.HasSuffix(q, `"…`) || len(q) > 60 {
		t.Errorf("quote of a long value: %q", q)
	}
	if e := errorf("x", 1, "a\nb %s", "c\rd"); strings.ContainsAny(e.Error(), "\r\n") {
		t.Errorf("errorf kept a newline: %q", e)
	}
}

func TestLineTooLong(t *testing.T) {
	in := "1\n2\n" + strings.Repeat("9", maxLine+10) + "\n"
	_, err := ReadWalltimes(strings.NewReader(in), "long", WalltimesOptions{})
	wantErr(t, "long", err, 3, "longer than")
}
