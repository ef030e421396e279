package usage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFieldfNamesTheField(t *testing.T) {
	err := Fieldf("Epsilon", "%g must be in (0, 1)", 2.0)
	if got, want := err.Error(), "Epsilon: 2 must be in (0, 1)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !Is(err) || !Is(fmt.Errorf("reserve: %w", err)) {
		t.Fatal("a wrapped usage error is not recognised")
	}
}

func TestWrap(t *testing.T) {
	if Wrap(nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	if Is(errors.New("disk full")) {
		t.Fatal("a plain error counts as a usage error")
	}
	e := Errorf("bad")
	if Wrap(e) != e {
		t.Fatal("Wrap wraps a usage error twice")
	}
}

func TestMissingInputIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.csv")
	if _, err := Open(missing); !Is(err) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing file: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ok)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	f.Close()
}
