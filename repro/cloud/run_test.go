package cloud

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/interval"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/trace"
)

// The quick reproduction writes every output, and the quantities that are
// pure arithmetic on the data match the paper exactly.
func TestRunQuick(t *testing.T) {
	requireData(t)
	dir := t.TempDir()
	var log bytes.Buffer
	if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Workers: 2, Log: &log}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"comparisons.csv", "table5.csv", "table6.csv", "table7.csv", "fig9.csv", "fig10.csv", "fig5-fits.csv", "lanl-fits.csv", "whatif.csv",
		"fig9-single.png", "fig9-batch.png", "fig10-single.png", "fig10-batch.png", "fig5-intervals.png", "whatif.png",
		"fig9-single.svg", "fig9-batch.svg", "fig10-single.svg", "fig10-batch.svg", "fig5-intervals.svg", "whatif.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	fh, err := os.Open(filepath.Join(dir, "comparisons.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rows[1:] {
		v, _ := strconv.ParseFloat(r[3], 64)
		got[r[0]+"|"+r[1]] = v
	}
	exact := map[string][2]float64{ // value, tolerance
		"Sec. 4.1/4.2.2|intervals, Te=18 C=2 E(Y)=2":                {3, 0},
		"Sec. 4.1/4.2.2|checkpoints, Te=441 C=1 E(Y)=2":             {20, 0},
		"Sec. 4.1/4.2.2|local cost, x* real (paper's form)":         {28.29, 0.005},
		"Sec. 4.1/4.2.2|shared cost, x* real (paper's form)":        {37.78, 0.005},
		"Table 7|Mix (paper column Mix) Pr2 len<1000 MNOF":          {1.06, 0.005},
		"Table 7|Mix (paper column Mix) Pr2 len<1000 MTBF":          {179, 0.5},
		"Table 7|Mix (paper column Mix) Pr2 len<3600 MTBF":          {396, 2.5},
		"Table 7|ST (paper column BoT) Pr7 len<1000 MTBF":           {80.5, 0.05},
		"Table 7|ST (paper column BoT) Pr1 len<inf MNOF":            {3.46, 0.005},
		"Sec. 4.1/4.2.2|Young period (s), C=2 lambda=0.00423445":    {30.7, 0.05},
		"Sec. 4.1/4.2.2|BLCR tables choose local (1) or shared (0)": {1, 0},
		"Fig. 5|best fit of all intervals is Pareto (1) or not (0)": {0, 0},
	}
	for k, want := range exact {
		v, ok := got[k]
		if !ok {
			t.Errorf("no comparison %q", k)
			continue
		}
		if d := v - want[0]; d > want[1] || -d > want[1] {
			t.Errorf("%s = %v, want %v ± %v", k, v, want[0], want[1])
		}
	}
	// Formula (3) beats Young on average with per-priority estimates in
	// every trace (the paper's main claim, Fig. 9).
	for _, k := range []string{"ST", "BoT"} {
		f3, y := got["Fig. 9|"+k+" Formula (3) avg WPR"], got["Fig. 9|"+k+" Young avg WPR"]
		if !(f3 > y) {
			t.Errorf("%s: Formula (3) avg WPR %v not above Young %v", k, f3, y)
		}
	}
}

// Same seed, any number of workers: byte-identical outputs.
func TestRunDeterministic(t *testing.T) {
	requireData(t)
	var outs [2][]byte
	for i, w := range []int{1, 2} {
		dir := t.TempDir()
		if err := Run(context.Background(), repro.Config{Dir: dir, Quick: true, Workers: w, Log: &bytes.Buffer{}}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"whatif.csv", "comparisons.csv", "fig9.csv"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = append(outs[i], b...)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("outputs differ between 1 and 2 workers")
	}
}

// requireData skips (fails under CI) when a data file cannot be found: the
// reproduction replays the real traces and has nothing to run without them.
func requireData(t *testing.T) {
	t.Helper()
	for _, f := range dataFiles() {
		datadirtest.ForTest(t, f...)
	}
}

// Under --accounting gloudsim, Table 6 and the averages of Fig. 9 come
// from GloudSim's analyser and match the paper's printed digits, except
// two cells where the paper disagrees with the authors' own logs (ST
// Formula (3) in Table 6 prints 0.937, the log says 0.94821435; ST Young in
// Fig. 9 prints 0.916, the log 0.91919196): there we match the log.
func TestRunGloudSimAccounting(t *testing.T) {
	requireData(t)
	dir := t.TempDir()
	var log bytes.Buffer
	if err := RunWith(context.Background(), repro.Config{Dir: dir, Quick: true, Workers: 2, Log: &log}, "gloudsim"); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(dir, "comparisons.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	misprints := map[string]float64{"Table 6|ST Formula (3) avg WPR": 0.948, "Fig. 9|ST Young avg WPR": 0.919}
	n := 0
	for _, r := range rows[1:] {
		q, ok := strings.CutSuffix(r[1], ", gloudsim accounting")
		if !ok || strings.Contains(q, "share") {
			continue
		}
		n++
		paper, _ := strconv.ParseFloat(r[2], 64)
		ours, _ := strconv.ParseFloat(r[3], 64)
		if m, bad := misprints[r[0]+"|"+q]; bad {
			paper = m
		}
		if math.Abs(ours-paper) > 0.0005 {
			t.Errorf("%s %s: ours %v, printed %v", r[0], q, ours, paper)
		}
	}
	if n != 16 {
		t.Errorf("%d gloudsim rows (Table 6: 12, Fig. 9: 4), want 16", n)
	}
	for _, f := range []string{"gloudsim-table6.csv", "gloudsim-fig9.csv", "gloudsim-fig10.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	// Per priority, the batch ("BoT") trace with Formula (3) and per-priority
	// estimates against the authors' Fig. 10 data file
	// (batch/pc-estimated-mnof/log-Di_static-0.5.data: priority, lowest, mean,
	// highest). Its priority 5 line reads 0.98 0.99 1 where every job has
	// WPR 1 (no checkpoint, x* < 1), an edit for the plot; it is left out.
	b, err := os.ReadFile(filepath.Join(dir, "gloudsim-fig10.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"BoT,Formula (3),1,63,0.7817109,0.94595337,0.9866205\n", "BoT,Formula (3),2,2,0.95964366,0.98525846,0.98766834\n",
		"BoT,Formula (3),3,5,0.9066284,0.98469085,0.99286556\n", "BoT,Formula (3),7,5,0.73481405,0.9330098,0.94828933\n",
		"BoT,Formula (3),10,9,0.7167115,0.9233792,0.96060735\n", "ST,Formula (3),1,276,0.63192946,0.91657555,0.9904333\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("gloudsim-fig10.csv lacks %q", want)
		}
	}
	if err := RunWith(context.Background(), repro.Config{Dir: dir, Quick: true, Log: &log}, "authors"); err == nil {
		t.Error("unknown accounting accepted")
	}
}

// RunWith is Run with cfg.Accounting set to accounting.
func RunWith(ctx context.Context, cfg repro.Config, accounting string) error {
	cfg.Accounting = accounting
	return Run(ctx, cfg)
}

// dataFiles lists the data files the reproduction reads, as path elements
// for repro.Config.DataPath.
func dataFiles() [][]string {
	var out [][]string
	for _, k := range kinds {
		out = append(out, trace.GloudSimData(k.file))
	}
	return append(out, trace.LANLData, interval.BLCRDir)
}
