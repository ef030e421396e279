package draw

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
	"pgregory.net/rapid"
)

// TestSegmentHitsMatchesSampling compares the clipping test with a dense
// sampling of the segment (an independent oracle; cases within a hair of
// the boundary are skipped).
func TestSegmentHitsMatchesSampling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := func(name string) vg.Length { return vg.Length(rapid.Float64Range(0, 100).Draw(t, name)) }
		a, b := vg.Point{X: f("ax"), Y: f("ay")}, vg.Point{X: f("bx"), Y: f("by")}
		x0, y0 := f("x0"), f("y0")
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + f("w") + 1, Y: y0 + f("h") + 1}}
		hit, near := false, false
		const n = 20000
		for i := 0; i <= n; i++ {
			s := vg.Length(float64(i) / n)
			p := vg.Point{X: a.X + s*(b.X-a.X), Y: a.Y + s*(b.Y-a.Y)}
			in := p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
			hit = hit || in
			d := min(abs(p.X-r.Min.X), abs(p.X-r.Max.X), abs(p.Y-r.Min.Y), abs(p.Y-r.Max.Y))
			near = near || d < 0.05
		}
		if got := segmentHits(a, b, r); got != hit && !near {
			t.Fatalf("segmentHits(%v, %v, %v) = %v, sampling says %v", a, b, r, got, hit)
		}
	})
}

func abs(x vg.Length) vg.Length {
	if x < 0 {
		return -x
	}
	return x
}

func placed(t *testing.T, series ...plotter.XYs) (*figPlot, bool) {
	t.Helper()
	p := newPlot(plot.Figure{}, true)
	for i, xys := range series {
		l, err := plotter.NewLine(xys)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add("a rather long series name "+string(rune('A'+i)), l)
	}
	finish(p, plot.Figure{})
	c := draw.New(vgsvg.New(6*vg.Inch, 4*vg.Inch))
	return p, placeLegend(p, c, plot.LegendTopRight)
}

// TestLegendAvoidsData: a curve through the top-right corner moves the
// legend to the free top-left corner (today's quick Fig. 6 case); curves
// through every corner push it outside.
func TestLegendAvoidsData(t *testing.T) {
	p, ok := placed(t, plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if !ok || !p.Legend.Top || !p.Legend.Left {
		t.Errorf("diagonal to the top right: placed %v, top %v, left %v; want top left", ok, p.Legend.Top, p.Legend.Left)
	}
	p, ok = placed(t, plotter.XYs{{X: 0, Y: 0.5}, {X: 1, Y: 0.5}})
	if !ok || !p.Legend.Top || p.Legend.Left {
		t.Errorf("a clear top right was not kept (top %v, left %v)", p.Legend.Top, p.Legend.Left)
	}
	_, ok = placed(t, plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}, plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 0}})
	if ok {
		t.Error("both diagonals: a corner was reported clear")
	}
	path := filepath.Join(t.TempDir(), "x.svg")
	err := plot.Lines(path, plot.Figure{}, plot.Series{Name: "rising", X: []float64{0, 1}, Y: []float64{0, 1}}, plot.Series{Name: "falling", X: []float64{0, 1}, Y: []float64{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), ">rising<") || !strings.Contains(string(b), ">falling<") {
		t.Error("the legend drawn outside lost its entries")
	}
}

func TestStack(t *testing.T) {
	dir := t.TempDir()
	panels := []plot.Panel{
		{Figure: plot.Figure{Title: "top panel", XLabel: "time (h)", YLabel: "P"}, Lines: []plot.Series{{Name: "P(t)", X: []float64{0, 1, 2}, Y: []float64{3, 1, 2}}},
			Marks: []plot.Marks{{Name: "ends", X: []float64{0.5, 1.5}, Style: 3}}},
		{Figure: plot.Figure{Title: "costs", XLabel: "cost (h)"}, Bars: []plot.Bar{{Label: "plan", Value: 2, Highlight: true}, {Label: "other", Value: 30}},
			Weight: 0.5},
	}
	panels[1].XRange = [2]float64{0, 8}
	for _, ext := range []string{".svg", ".png"} {
		if err := plot.Stack(filepath.Join(dir, "s"+ext), 0, 0, panels...); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "s.svg"))
	svg := string(b)
	for _, want := range []string{">top panel<", ">costs<", ">time (h)<", ">plan<", ">2<", ">30 →<", ">ends<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("stacked SVG lacks %q", want)
		}
	}
	if err := plot.Stack(filepath.Join(dir, "e.svg"), 0, 0); err == nil {
		t.Error("no panel accepted")
	}
	bad := []plot.Panel{{Bars: []plot.Bar{{Label: "x", Value: -1}}}}
	if err := plot.Stack(filepath.Join(dir, "b.svg"), 0, 0, bad...); err == nil || !strings.Contains(err.Error(), `bar "x"`) {
		t.Errorf("negative bar: %v", err)
	}
}

func TestThinMarkers(t *testing.T) {
	for _, n := range []int{1, maxMarkers, maxMarkers + 1, 1000} {
		xys := make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i), Y: float64(i)}
		}
		m := thinMarkers(xys)
		if len(m) != min(n, maxMarkers) || m[0] != xys[0] || m[len(m)-1] != xys[n-1] {
			t.Errorf("n = %d: %d markers, first %v, last %v", n, len(m), m[0], m[len(m)-1])
		}
		for k := 1; k < len(m); k++ {
			if gap := m[k].X - m[k-1].X; gap < 1 || gap > float64(n)/float64(maxMarkers-1)+1 {
				t.Errorf("n = %d: uneven gap %g", n, gap)
			}
		}
	}
}

// TestLongTitleBesideOutsideLegend: when the legend must go outside, a
// title wider than the narrowed plot starts inside the figure (it was
// centred on the narrowed plot and cut at the left edge), and a short one
// stays centred on the narrowed plot as before.
func TestLongTitleBesideOutsideLegend(t *testing.T) {
	var lines []plot.Series
	for i := range 8 { // horizontal lines through every corner
		lines = append(lines, plot.Series{Name: strings.Repeat("a long legend entry ", 2) + string(rune('A'+i)), X: []float64{0, 1}, Y: []float64{float64(i), float64(i)}})
	}
	titleX := func(title string) float64 {
		b, err := plot.StackBytes("svg", 0, 0, plot.Panel{Figure: plot.Figure{Title: title}, Lines: lines})
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		end := strings.Index(svg, ">"+title+"<")
		if end < 0 {
			t.Fatalf("no title %q in the SVG", title)
		}
		start := strings.LastIndex(svg[:end], `<text x="`) + len(`<text x="`)
		x, err := strconv.ParseFloat(svg[start:start+strings.IndexByte(svg[start:], '"')], 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	long := "Expected wall-clock time against the number of intervals, and more"
	if x := titleX(long); x < 0 {
		t.Errorf("long title starts at x = %g, outside the figure", x)
	}
	if x := titleX("Short"); x > 200 {
		t.Errorf("short title at x = %g: not centred on the narrowed plot (left of the figure's centre 252)", x)
	}
}
