package report

import (
	"os"
	"path/filepath"
	"testing"
)

// A page is written whole; a page that cannot be written leaves no file.
func TestPageWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := (Page{Title: "t"}).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) == 0 {
		t.Fatalf("page not written: %v", err)
	}
	bad := filepath.Join(dir, "missing", "page.html")
	if err := (Page{Title: "t"}).WriteFile(bad); err == nil {
		t.Fatal("a page in a missing folder was written")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a file is left: %v", err)
	}
}
