package profiles

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
)

func TestRunQuick(t *testing.T) {
	datadirtest.ForTest(t, "slant", "drd-tasks")
	dir := t.TempDir()
	if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fig14.csv", "fig14-margin10.csv", "fig17.csv", "table2.csv", "transfer.csv", "comparisons.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	// Every figure comes as PNG and SVG.
	figs := []string{"fig11", "fig12b", "fig14a-time", "fig14b-utilisation", "fig14c-memory", "fig15",
		"fig17a-time", "fig17b-utilisation", "fig17c-memory"}
	for _, f := range figs {
		png, err := os.ReadFile(filepath.Join(dir, f+".png"))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s.png missing or not a PNG (%v)", f, err)
		}
		svg, err := os.ReadFile(filepath.Join(dir, f+".svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("</svg>")) {
			t.Errorf("%s.svg missing or not an SVG (%v)", f, err)
		}
	}
	// and no figure is left out of the list above.
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	svgs, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	if len(pngs) != len(figs) || len(svgs) != len(figs) {
		t.Errorf("%d PNG and %d SVG figures, want %d of each", len(pngs), len(svgs), len(figs))
	}
}

// TestRunDeterministic: the same seed gives byte-identical CSVs.
func TestRunDeterministic(t *testing.T) {
	datadirtest.ForTest(t, "slant", "drd-tasks")
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := Run(context.Background(), repro.Config{Dir: d, Quick: true, Log: io.Discard}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fig14.csv", "fig17.csv", "transfer.csv", "comparisons.csv"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}
