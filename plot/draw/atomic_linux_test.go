package draw

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ckpt-hpc/ckpt/plot"
)

// A picture whose write fails (a file-size limit of 8 kB, as `ulimit -f
// 8`; Go ignores SIGXFSZ) leaves the previous picture whole, where
// os.WriteFile cut it to 8 kB, and no temporary file; the error names the
// picture's path. Every writer (Lines and the rest through save, Stack)
// goes through a temporary file.
func TestPictureWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	svg, stack := filepath.Join(dir, "p.svg"), filepath.Join(dir, "s.svg")
	panels := []plot.Panel{{Figure: plot.Figure{Title: "p"}, Lines: twoSeries()}}
	old := strings.Repeat("<!-- old picture -->\n", 1000) // 21 kB
	for _, p := range []string{svg, stack} {
		if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	small := lim
	small.Cur = 8192
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip(err)
	}
	err1 := plot.Lines(svg, plot.Figure{Title: strings.Repeat("long title ", 1000)}, twoSeries()...)
	err2 := plot.Stack(stack, 0, 0, panels...)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	for i, err := range []error{err1, err2} {
		p := []string{svg, stack}[i]
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want a write error naming it", p, err)
		}
		if b, _ := os.ReadFile(p); string(b) != old {
			t.Errorf("%s: the old picture became %d bytes", p, len(b))
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("%d files left, want the 2 old pictures", len(es))
	}
}
