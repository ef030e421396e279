package profiles

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/repro"
)

func TestRunQuick(t *testing.T) {
	if _, err := os.Stat(filepath.Join(dataDir(), "slant", "drd-tasks")); err != nil {
		t.Skip("DRD traces not available")
	}
	dir := t.TempDir()
	if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fig14.csv", "fig14a-time.png", "fig14b-utilisation.png", "fig14c-memory.png", "fig15.png", "fig17.csv", "table2.csv", "comparisons.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
}

// TestRunDeterministic: the same seed gives byte-identical CSVs.
func TestRunDeterministic(t *testing.T) {
	if _, err := os.Stat(filepath.Join(dataDir(), "slant", "drd-tasks")); err != nil {
		t.Skip("DRD traces not available")
	}
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := Run(context.Background(), repro.Config{Dir: d, Quick: true, Log: io.Discard}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fig14.csv", "fig17.csv", "comparisons.csv"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}
