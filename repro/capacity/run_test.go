package capacity

import (
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
)

// The quick reproduction runs end to end on the synthetic workload and
// writes its tables, figures and comparisons.
func TestQuickRun(t *testing.T) {
	if testing.Short() {
		t.Skip("quick reproduction")
	}
	t.Setenv("CKPT_DATA", t.TempDir()) // no logs: uniform widths
	dir := t.TempDir()
	if err := Run(context.Background(), repro.Config{Dir: t.TempDir(), Quick: true, Log: io.Discard}); err != nil {
		t.Fatalf("uniform fallback: %v", err)
	}
	// With a tiny CQSim log holding run times everything runs.
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "swf"), 0o755)
	log := ""
	for i := 1; i <= 60; i++ {
		p, rt := itoa(1+i%6), itoa(400*(1+i%9))
		log += itoa(i) + ";" + p + ";" + p + ";10000;" + rt + ";0;0;0;0\n"
	}
	os.WriteFile(filepath.Join(data, "swf", "KIT-FH2-2016-1_CQSim-simresult.rst"), []byte(log), 0o644)
	t.Setenv("CKPT_DATA", data)
	if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "comparisons.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 10 {
		t.Fatalf("%d comparison rows, %v", len(rows), err)
	}
	for _, name := range []string{"fig6_dpgoodput_variants.png", "fig7_pareto_light.svg", "fig12_load.csv", "fig13_finite_vs_infinite.png", "fig14_yield_cdf_finite.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

func itoa(i int) string {
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}
