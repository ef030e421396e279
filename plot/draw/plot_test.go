package draw

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/plot"
	"gonum.org/v1/plot/vg"
)

func twoSeries() []plot.Series {
	return []plot.Series{
		{Name: "a", X: []float64{1, 2, 3, 4}, Y: []float64{1, 4, 9, 16}, Markers: true},
		{Name: "b", X: []float64{1, 2, 3, 4}, Y: []float64{2, 3, 5, 7}},
	}
}

// render calls each plot kind with path, returning the errors in order
// Lines, Scatter, StepCDF, Box.
func renderAll(path string, fig plot.Figure) []error {
	return []error{
		plot.Lines(path, fig, twoSeries()...),
		plot.Scatter(path, fig, twoSeries()...),
		plot.StepCDF(path, fig, plot.NamedSamples{Name: "s", Values: []float64{3, 1, 2}}),
		plot.Box(path, fig, plot.BoxGroup{Category: "x", Values: []float64{1, 2, 3}}),
	}
}

func TestPNGDecodes(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"lines", "scatter", "cdf", "box"} {
		path := filepath.Join(dir, name+".PNG")
		errs := renderAll(path, plot.Figure{Title: name, XLabel: "x", YLabel: "y"})
		if errs[i] != nil {
			t.Fatalf("%s: %v", name, errs[i])
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 900 || b.Dy() != 600 {
			t.Fatalf("%s: %v, want 900×600 (6×4 in at 150 dpi)", name, b)
		}
	}
	path := filepath.Join(dir, "small.png")
	if err := plot.Lines(path, plot.Figure{Width: 4 * vg.Inch, Height: 3 * vg.Inch, DPI: 100}, twoSeries()...); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 400 || cfg.Height != 300 {
		t.Fatalf("custom size: %+v, %v", cfg, err)
	}
}

func checkSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("%s: no <svg", path)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q", path, root)
	}
}

func TestSVGWellFormed(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"lines", "scatter", "cdf", "box"} {
		path := filepath.Join(dir, name+".svg")
		if err := renderAll(path, plot.Figure{Title: `a <b> & "c"`, LogY: i == 3})[i]; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSVG(t, path)
	}
}

func TestBadExtension(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f.pdf", "f.jpg", "f", "f.svg.gz"} {
		path := filepath.Join(dir, name)
		for i, err := range renderAll(path, plot.Figure{}) {
			if err == nil || !strings.Contains(err.Error(), "unsupported extension") || !strings.Contains(err.Error(), name) {
				t.Errorf("%s, kind %d: %v", name, i, err)
			}
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s written", name)
		}
	}
}

func expectErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q lacks %q", what, err, p)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: multi-line error %q", what, err)
	}
}

func TestEmptyData(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.svg")
	nan := math.NaN()
	expectErr(t, "no series", plot.Lines(p, plot.Figure{}), "no series")
	expectErr(t, "no scatter", plot.Scatter(p, plot.Figure{}), "no series")
	expectErr(t, "no samples", plot.StepCDF(p, plot.Figure{}), "no samples")
	expectErr(t, "no groups", plot.Box(p, plot.Figure{}), "no box groups")
	expectErr(t, "empty series", plot.Lines(p, plot.Figure{}, plot.Series{Name: "e"}), `series "e" has no finite points`)
	expectErr(t, "all NaN", plot.Scatter(p, plot.Figure{}, plot.Series{X: []float64{nan, 1}, Y: []float64{1, math.Inf(1)}}), "series #0 has no finite points")
	expectErr(t, "empty sample", plot.StepCDF(p, plot.Figure{}, plot.NamedSamples{Name: "ok", Values: []float64{1}}, plot.NamedSamples{Name: "z", Values: []float64{nan}}), `sample "z" has no finite values`)
	expectErr(t, "empty box", plot.Box(p, plot.Figure{}, plot.BoxGroup{Category: "c", Series: "s"}), `category "c", series "s"`, "no finite values")
	expectErr(t, "length", plot.Lines(p, plot.Figure{}, plot.Series{Name: "m", X: []float64{1, 2}, Y: []float64{1}}), `series "m" has 2 x values but 1 y values`)
	expectErr(t, "dup box", plot.Box(p, plot.Figure{}, plot.BoxGroup{Category: "c", Series: "s", Values: []float64{1}}, plot.BoxGroup{Category: "c", Series: "s", Values: []float64{2}}), "appears twice")
}

func TestLogAxisErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.png")
	s := twoSeries()
	s[1].X[2] = 0
	expectErr(t, "log x", plot.Lines(p, plot.Figure{LogX: true}, s...), `series "b"`, "x = 0", "log-x")
	s = twoSeries()
	s[0].Y[1] = -4
	expectErr(t, "log y", plot.Scatter(p, plot.Figure{LogY: true}, s...), `series "a"`, "y = -4", "log-y")
	expectErr(t, "cdf log x", plot.StepCDF(p, plot.Figure{LogX: true}, plot.NamedSamples{Name: "w", Values: []float64{5, -1, 2}}), `sample "w"`, "x = -1")
	expectErr(t, "cdf log y", plot.StepCDF(p, plot.Figure{LogY: true}, plot.NamedSamples{Name: "w", Values: []float64{5}}), "log-y")
	expectErr(t, "box log y", plot.Box(p, plot.Figure{LogY: true}, plot.BoxGroup{Category: "c", Series: "s", Values: []float64{1, 0}}), `category "c"`, "y = 0")
	expectErr(t, "box log x", plot.Box(p, plot.Figure{LogX: true}, plot.BoxGroup{Category: "c", Series: "s", Values: []float64{1}}), "categories")
	expectErr(t, "ref line", plot.Lines(p, plot.Figure{LogY: true, RefY: []float64{0}}, twoSeries()...), "reference line y = 0")
	expectErr(t, "range", plot.Lines(p, plot.Figure{LogX: true, XRange: [2]float64{0, 10}}, twoSeries()...), "x range [0, 10]")
	// NaN points are skipped before the log check.
	s = twoSeries()
	s[0].X[0] = math.NaN()
	if err := plot.Lines(p, plot.Figure{LogX: true, LogY: true}, s...); err != nil {
		t.Fatal(err)
	}
}

func TestFigureErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.svg")
	for _, tc := range []struct {
		fig  plot.Figure
		want string
	}{
		{plot.Figure{Width: -3}, "not positive"},
		{plot.Figure{Height: vg.Points(10)}, "below 1 inch"},
		{plot.Figure{DPI: -1}, "DPI -1"},
		{plot.Figure{Width: 100 * vg.Inch, Height: 100 * vg.Inch, DPI: 600}, "too large"},
		{plot.Figure{Legend: plot.Legend(17)}, "legend placement 17"},
		{plot.Figure{YRange: [2]float64{2, 1}}, "y range [2, 1]"},
		{plot.Figure{XRange: [2]float64{0, math.Inf(1)}}, "x range"},
		{plot.Figure{RefY: []float64{math.NaN()}}, "reference line y = NaN"},
	} {
		expectErr(t, tc.want, plot.Lines(p, tc.fig, twoSeries()...), tc.want)
	}
}

// TestNaNPointsSkipped: a series with non-finite points draws exactly as
// the same series without them.
func TestNaNPointsSkipped(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.svg")
	with := plot.Series{Name: "s", X: []float64{1, math.NaN(), 2, 3, math.Inf(1)}, Y: []float64{1, 5, 2, math.Inf(-1), 7}, Markers: true}
	without := plot.Series{Name: "s", X: []float64{1, 2}, Y: []float64{1, 2}, Markers: true}
	if err := plot.Lines(a, plot.Figure{}, with); err != nil {
		t.Fatal(err)
	}
	if err := plot.Lines(b, plot.Figure{}, without); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Fatal("NaN/Inf points changed the drawing")
	}
}

func TestDeterministicBytes(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".svg", ".png"} {
		for i, kind := range []string{"lines", "scatter", "cdf", "box"} {
			p1, p2 := filepath.Join(dir, kind+"1"+ext), filepath.Join(dir, kind+"2"+ext)
			if err := renderAll(p1, plot.Figure{Title: kind, RefY: []float64{2}})[i]; err != nil {
				t.Fatal(err)
			}
			if err := renderAll(p2, plot.Figure{Title: kind, RefY: []float64{2}})[i]; err != nil {
				t.Fatal(err)
			}
			b1, _ := os.ReadFile(p1)
			b2, _ := os.ReadFile(p2)
			if !bytes.Equal(b1, b2) {
				t.Errorf("%s%s: two renders differ", kind, ext)
			}
		}
	}
}

// TestDeterministicAcrossProcesses renders the demo figures here and in a
// child process (fresh map seeds, fresh font caches) and compares bytes.
func TestDeterministicAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("CKPT_PLOT_CHILD"); dir != "" {
		for _, ext := range []string{".png", ".svg"} {
			if err := demoFigures(dir, ext); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	here, there := t.TempDir(), t.TempDir()
	for _, ext := range []string{".png", ".svg"} {
		if err := demoFigures(here, ext); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeterministicAcrossProcesses$")
	cmd.Env = append(os.Environ(), "CKPT_PLOT_CHILD="+there)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	names, _ := filepath.Glob(filepath.Join(here, "*"))
	if len(names) != 8 {
		t.Fatalf("%d demo files", len(names))
	}
	for _, n := range names {
		a, _ := os.ReadFile(n)
		b, err := os.ReadFile(filepath.Join(there, filepath.Base(n)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between processes (%v)", filepath.Base(n), err)
		}
	}
}

// FuzzLines draws arbitrary three-point series: finite data must render
// without error, whatever its magnitudes; nothing may panic.
func FuzzLines(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 1.0, 1.0, 1.0, false, false)
	f.Add(0.0, 0.0, 0.0, -1e300, 1e300, 0.0, false, false)
	f.Add(1e-300, 1.0, 1e300, 5e-324, 1.0, 2.0, true, true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, x0, x1, x2, y0, y1, y2 float64, logx, logy bool) {
		s := plot.Series{Name: "f", X: []float64{x0, x1, x2}, Y: []float64{y0, y1, y2}, Markers: true}
		err := plot.Lines(filepath.Join(dir, "f.svg"), plot.Figure{LogX: logx, LogY: logy, RefY: []float64{1}}, s)
		if err == nil {
			return
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		finite, positive := 0, true
		for i := range 3 {
			x, y := s.X[i], s.Y[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			finite++
			if (logx && x <= 0) || (logy && y <= 0) {
				positive = false
			}
		}
		if finite > 0 && positive {
			t.Fatalf("valid data rejected: %v", err)
		}
	})
}
