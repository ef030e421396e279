package reservation

import (
	"context"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
)

func TestQuickReproduction(t *testing.T) {
	dir := t.TempDir()
	if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"intro.csv", "table2.csv", "fig5.csv", "fig6.csv", "fig7.csv", "comparisons.csv",
		"fig5-Exponential.png", "fig5-BoundedPareto.svg", "fig6.png", "fig7-mean.png", "fig7-sd.svg", "table2-all-ckpt-per.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	// The introduction's strategies priced with the paper's probabilities.
	want := map[string]float64{"S1": 80, "S2": 47.2, "S3": 41.54, "S3~": 42.32}
	for _, row := range readCSV(t, filepath.Join(dir, "intro.csv")) {
		if w, ok := want[row[0]]; ok {
			got, _ := strconv.ParseFloat(row[3], 64)
			if math.Abs(got-w) > 1e-6 {
				t.Errorf("%s: %v, want %v", row[0], got, w)
			}
			delete(want, row[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("intro.csv lacks %v", want)
	}
	// Every normalised cost is ≥ 1 up to the grid's certified gap: nothing
	// beats the reference by more than its distance to the optimum.
	for _, row := range readCSV(t, filepath.Join(dir, "fig5.csv"))[1:] {
		v, _ := strconv.ParseFloat(row[4], 64)
		if v < 0.99 {
			t.Errorf("fig5 row %v below the reference", row)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
