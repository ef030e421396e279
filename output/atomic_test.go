package output

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A failed write keeps the previous file and leaves no temporary file; a
// successful one replaces it.
func TestWriteFileKeepsThePreviousFileOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("previous file became %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("left %d entries", len(es))
	}
	if err := WriteFile(p, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("got %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// writeString writes s to path through Create and Commit.
func writeString(t *testing.T, path, s string) {
	t.Helper()
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
		t.Fatal(err)
	}
}

// A symbolic link is written through: the file it names gets the new
// contents and the link stays a link, also when it is dangling.
func TestCreateWritesThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(real, "target.csv")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("real/target.csv", link); err != nil {
		t.Fatal(err)
	}
	writeString(t, link, "new\n")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Fatalf("target holds %q", b)
	}
	dangling := filepath.Join(dir, "dangling.csv")
	os.Symlink(filepath.Join(real, "new.csv"), dangling)
	writeString(t, dangling, "x\n")
	if b, _ := os.ReadFile(filepath.Join(real, "new.csv")); string(b) != "x\n" {
		t.Fatalf("dangling link's target holds %q", b)
	}
	if es, _ := os.ReadDir(real); len(es) != 2 {
		t.Fatalf("%d entries in real/", len(es))
	}
}

// A link to /proc/self/fd/N (as /dev/stdout is) writes to the open file
// in place: the link is kept.
func TestCreateWritesProcFdLinksInPlace(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	link := filepath.Join(dir, "stdout")
	os.Symlink("/proc/self/fd/"+strconv.Itoa(int(out.Fd())), link)
	writeString(t, link, "rows\n")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(out.Name()); string(b) != "rows\n" {
		t.Fatalf("out.txt holds %q", b)
	}
}

// A new file gets 0666 less the umask, a replaced one keeps its mode, and
// a file with two hard links is written in place (both names see it).
func TestCreateModesAndHardLinks(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(probe)
	p := filepath.Join(dir, "new.csv")
	writeString(t, p, "a\n")
	if fi, _ := os.Stat(p); fi.Mode().Perm() != want.Mode().Perm() {
		t.Fatalf("new file mode %v, want %v", fi.Mode().Perm(), want.Mode().Perm())
	}
	os.Chmod(p, 0o600)
	writeString(t, p, "b\n")
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want 0600", fi.Mode().Perm())
	}
	other := filepath.Join(dir, "other.csv")
	if err := os.Link(p, other); err != nil {
		t.Fatal(err)
	}
	writeString(t, p, "c\n")
	if b, _ := os.ReadFile(other); string(b) != "c\n" {
		t.Fatalf("the other hard link holds %q", b)
	}
}

// A file that may not be written is refused, naming it, and kept.
func TestCreateRefusesReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any file")
	}
	p := filepath.Join(t.TempDir(), "ro.csv")
	os.WriteFile(p, []byte("old\n"), 0o444)
	_, err := Create(p)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("read-only file holds %q", b)
	}
}

// A regular file in /dev (/dev/shm) is still written through a temporary
// file: a failed write keeps it.
func TestCreateRegularFileInDevIsAtomic(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "ckpt-output-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "out.csv")
	os.WriteFile(p, []byte("old\n"), 0o644)
	WriteFile(p, func(w io.Writer) error { io.WriteString(w, "partial"); return errors.New("boom") })
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("%s holds %q", p, b)
	}
}
