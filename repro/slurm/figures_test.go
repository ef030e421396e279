package slurm

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
	"github.com/ckpt-hpc/ckpt/repro"
)

// Fig. 8 draws, in each of its three panels, one bar per application ×
// strategy × source (the cluster's and the simulation's), labelled, and
// only the Fig. 8 cells with C/R as planned.
func TestWriteFig8(t *testing.T) {
	var ss []Summary
	for _, app := range Apps() {
		for i, st := range Strategies {
			u := 0.5 + 0.1*float64(i)
			ss = append(ss, Summary{Experiment: Fig8, App: app.Name, Strat: st, Utilization: u, SimUtilization: u,
				ReservedUtilization: u, SimReservedUtilization: u, Stretch: 1 + u, SimStretch: 1 + u})
		}
	}
	ss = append(ss, Summary{Experiment: Fig9, App: "Qball", Strat: DynProgCount, Variation: 0.3, Utilization: 0.1})
	dir := t.TempDir()
	svg := fig8SVG(t, dir, ss)
	want := 3 * len(Apps()) * len(Strategies) // panels × cells, each with a Slurm and a simulation bar
	if n := strings.Count(svg, ", Slurm<"); n != want {
		t.Errorf("%d Slurm bars, want %d", n, want)
	}
	if n := strings.Count(svg, ", simulation<"); n != want {
		t.Errorf("%d simulation bars, want %d", n, want)
	}
	for _, s := range []string{"Utilisation, time held", "Utilisation, time reserved", "Average stretch, time held", "held / walltime"} {
		if !strings.Contains(svg, s) {
			t.Errorf("no %q in the figure", s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fig8.png")); err != nil {
		t.Error(err)
	}
	if strings.Contains(svg, ">n/a<") {
		t.Error("n/a drawn with every measure defined")
	}
}

// A cell where no job completed (NaN measures) is drawn as "n/a" in each
// panel, not as a bar of 0.
func TestWriteFig8Undefined(t *testing.T) {
	nan := math.NaN()
	ss := []Summary{
		{Experiment: Fig8, App: "Qball", Strat: Strategies[0], Utilization: nan, SimUtilization: 0.5,
			ReservedUtilization: nan, SimReservedUtilization: 0.5, Stretch: nan, SimStretch: 1.5},
	}
	if n := strings.Count(fig8SVG(t, t.TempDir(), ss), ">n/a<"); n != 3 {
		t.Errorf("%d n/a labels, want one per panel (3)", n)
	}
}

// fig8SVG writes Fig. 8 of ss into dir and returns its SVG.
func fig8SVG(t *testing.T, dir string, ss []Summary) string {
	t.Helper()
	if err := writeFig8(repro.Config{Dir: dir}, ss); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "fig8.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A jobs.csv value that does not parse is named, column and value, rather
// than read as 0; the scale comes from the row's wait, else the design's.
func TestRowParsing(t *testing.T) {
	col := map[string]int{"held": 0, "response": 1, "wait_real_s": 2}
	r := row{rec: []string{"100", "160", "3"}, col: col}
	if s := (Design{RunScale: 7}).scaleOf(&r); s != 20 || r.err != nil {
		t.Errorf("scale %v, err %v; want (160 − 100)/3 = 20", s, r.err)
	}
	r = row{rec: []string{"100", "100", "0"}, col: col}
	if s := (Design{RunScale: 7}).scaleOf(&r); s != 7 || r.err != nil {
		t.Errorf("no wait: scale %v, err %v; want the design's 7", s, r.err)
	}
	r = row{rec: []string{"12x", "160", "3"}, col: col}
	(Design{}).scaleOf(&r)
	if r.err == nil || !strings.Contains(r.err.Error(), `"held"`) || !strings.Contains(r.err.Error(), "12x") {
		t.Errorf("bad held: %v", r.err)
	}
	r = row{rec: []string{"1", "NaN", "3"}, col: col}
	if r.num("response"); r.err == nil {
		t.Error("NaN accepted")
	}
	if v := (&row{rec: []string{"1"}, col: map[string]int{"held": 0}}).opt("stopped"); v != 0 {
		t.Errorf("missing optional column read as %v", v)
	}
}
