package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A failed write leaves no partial file; a good one leaves the bytes.
func TestWriteFileLeavesNoPartialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.html")
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, "<html>")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the write's error", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a partial file is left: %v", err)
	}
	if err := (Page{Title: "t"}).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) == 0 {
		t.Fatalf("page not written: %v", err)
	}
}
