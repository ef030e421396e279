package coop

import (
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
)

// The quick reproduction writes every output, and the comparisons hold
// finite numbers for the quantities the paper states. With $CKPT_REPRO_OUT
// (.ci/run: the output of ckpt repro all --quick) the test checks its coop
// folder; with CKPT_REPRO_TESTS=1 it runs the quick reproduction (a minute
// on 2 cores); otherwise it runs the same steps on 8-day spans with one seed,
// the authors' on 34 days and one point (2 s of CPU instead of 21), which
// write the same files.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick reproduction")
	}
	dir := t.TempDir()
	cfg := repro.Config{Dir: dir, Quick: true, Workers: 2, Log: io.Discard}
	switch {
	case os.Getenv("CKPT_REPRO_OUT") != "":
		dir = filepath.Join(os.Getenv("CKPT_REPRO_OUT"), "coop")
	case os.Getenv("CKPT_REPRO_TESTS") == "1":
		if err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	default:
		st := settingsFor(true)
		st.seeds, st.span, st.fig4Span = 1, 8*iosim.Day, 8*iosim.Day
		step := func(name string, fn func(context.Context, repro.Config, settings) ([]repro.Comparison, error), st settings) repro.Step {
			return repro.Step{Name: name, Run: func(ctx context.Context) ([]repro.Comparison, error) { return fn(ctx, cfg, st) }}
		}
		long := st // the authors' model keeps a 31-day window after the skipped day
		long.span = 34 * iosim.Day
		all := authorsPoints // the first of their four points, in all 17 modes
		authorsPoints = all[:1]
		t.Cleanup(func() { authorsPoints = all })
		steps := []repro.Step{step("1", fig1, st), step("2", fig2, st), step("3", fig3, st), step("4", fig4, st), step("authors", authorsFig, long)}
		if err := repro.RunSteps(context.Background(), cfg, steps); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fig1_160GBs.png", "fig2.csv", "fig2_box.png", "fig2_mean.png", "fig2_bounds.csv", "fig3.csv", "fig3_box.png", "fig4.csv", "fig4.png", "comparisons.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Every figure comes as PNG and SVG.
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) < 8 {
		t.Errorf("%d PNG figures, want at least 8 (Figs. 1 ×3, 2 ×2, 3 ×2, 4)", len(pngs))
	}
	for _, p := range pngs {
		svg := strings.TrimSuffix(p, ".png") + ".svg"
		b, err := os.ReadFile(svg)
		if err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("%s has no SVG twin: %v", filepath.Base(p), err)
		}
	}
	fh, err := os.Open(filepath.Join(dir, "comparisons.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil || len(rows) < 10 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "ours" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no ours column: %v", rows[0])
	}
	for _, r := range rows[1:] {
		if _, err := strconv.ParseFloat(r[col], 64); err != nil {
			t.Errorf("row %v: %v", r, err)
		}
	}
}

// The 1-hour checkpoint volume on Cielo, by hand: 17 784 nodes × 32 GB ×
// (0.66·1.6 + 0.055·1.85 + 0.165·3.5 + 0.12·0.85 = 1.83725) / 3 600 s.
func TestHourlyDemand(t *testing.T) {
	want := 17784 * 32e9 * 1.83725 / 3600
	if got := hourlyDemand(iosim.Cielo(), 3600); got < want*(1-1e-12) || got > want*(1+1e-12) {
		t.Errorf("hourlyDemand = %v, want %v", got, want)
	}
}

// The accountings set the sweeps' options: the authors' window is capped
// by --quick's 22-day Fig. 4 span (22 − 2 days), and unknown names fail.
func TestAccountings(t *testing.T) {
	for _, name := range Accountings {
		for _, quick := range []bool{false, true} {
			st := settingsFor(quick)
			if err := st.withAccounting(name); err != nil {
				t.Fatal(err)
			}
			o := st.options(st.span)
			if (name == "ours") != (o.Accounting == iosim.OurAccounting) || (name == "ours") == o.ComputeFullPeriod {
				t.Errorf("%s: %+v", name, o)
			}
			want := 0.0
			if name == "authors-model" {
				want = iosim.AuthorsWindow
				if quick {
					want = 20 * iosim.Day
				}
			}
			if o.Authors.Window != want || (name == "authors-model") != o.Authors.KeepReservations {
				t.Errorf("%s quick=%v: authors %+v, want window %v", name, quick, o.Authors, want)
			}
		}
	}
	st := settingsFor(true)
	if err := st.withAccounting("gloudsim"); err == nil {
		t.Error("unknown accounting accepted")
	}
}
