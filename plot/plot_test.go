package plot

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

	"gonum.org/v1/plot/vg"
)

func twoSeries() []Series {
	return []Series{
		{Name: "a", X: []float64{1, 2, 3, 4}, Y: []float64{1, 4, 9, 16}, Markers: true},
		{Name: "b", X: []float64{1, 2, 3, 4}, Y: []float64{2, 3, 5, 7}},
	}
}

// render calls each plot kind with path, returning the errors in order
// Lines, Scatter, StepCDF, Box.
func renderAll(path string, fig Figure) []error {
	return []error{
		Lines(path, fig, twoSeries()...),
		Scatter(path, fig, twoSeries()...),
		StepCDF(path, fig, NamedSamples{"s", []float64{3, 1, 2}}),
		Box(path, fig, BoxGroup{Category: "x", Values: []float64{1, 2, 3}}),
	}
}

func TestPNGDecodes(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"lines", "scatter", "cdf", "box"} {
		path := filepath.Join(dir, name+".PNG")
		errs := renderAll(path, Figure{Title: name, XLabel: "x", YLabel: "y"})
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
	if err := Lines(path, Figure{Width: 4 * vg.Inch, Height: 3 * vg.Inch, DPI: 100}, twoSeries()...); err != nil {
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
		if err := renderAll(path, Figure{Title: `a <b> & "c"`, LogY: i == 3})[i]; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSVG(t, path)
	}
}

func TestBadExtension(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f.pdf", "f.jpg", "f", "f.svg.gz"} {
		path := filepath.Join(dir, name)
		for i, err := range renderAll(path, Figure{}) {
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
	expectErr(t, "no series", Lines(p, Figure{}), "no series")
	expectErr(t, "no scatter", Scatter(p, Figure{}), "no series")
	expectErr(t, "no samples", StepCDF(p, Figure{}), "no samples")
	expectErr(t, "no groups", Box(p, Figure{}), "no box groups")
	expectErr(t, "empty series", Lines(p, Figure{}, Series{Name: "e"}), `series "e" has no finite points`)
	expectErr(t, "all NaN", Scatter(p, Figure{}, Series{X: []float64{nan, 1}, Y: []float64{1, math.Inf(1)}}), "series #0 has no finite points")
	expectErr(t, "empty sample", StepCDF(p, Figure{}, NamedSamples{"ok", []float64{1}}, NamedSamples{"z", []float64{nan}}), `sample "z" has no finite values`)
	expectErr(t, "empty box", Box(p, Figure{}, BoxGroup{Category: "c", Series: "s"}), `category "c", series "s"`, "no finite values")
	expectErr(t, "length", Lines(p, Figure{}, Series{Name: "m", X: []float64{1, 2}, Y: []float64{1}}), `series "m" has 2 x values but 1 y values`)
	expectErr(t, "dup box", Box(p, Figure{}, BoxGroup{"c", "s", []float64{1}}, BoxGroup{"c", "s", []float64{2}}), "appears twice")
}

func TestLogAxisErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.png")
	s := twoSeries()
	s[1].X[2] = 0
	expectErr(t, "log x", Lines(p, Figure{LogX: true}, s...), `series "b"`, "x = 0", "log-x")
	s = twoSeries()
	s[0].Y[1] = -4
	expectErr(t, "log y", Scatter(p, Figure{LogY: true}, s...), `series "a"`, "y = -4", "log-y")
	expectErr(t, "cdf log x", StepCDF(p, Figure{LogX: true}, NamedSamples{"w", []float64{5, -1, 2}}), `sample "w"`, "x = -1")
	expectErr(t, "cdf log y", StepCDF(p, Figure{LogY: true}, NamedSamples{"w", []float64{5}}), "log-y")
	expectErr(t, "box log y", Box(p, Figure{LogY: true}, BoxGroup{"c", "s", []float64{1, 0}}), `category "c"`, "y = 0")
	expectErr(t, "box log x", Box(p, Figure{LogX: true}, BoxGroup{"c", "s", []float64{1}}), "categories")
	expectErr(t, "ref line", Lines(p, Figure{LogY: true, RefY: []float64{0}}, twoSeries()...), "reference line y = 0")
	expectErr(t, "range", Lines(p, Figure{LogX: true, XRange: [2]float64{0, 10}}, twoSeries()...), "x range [0, 10]")
	// NaN points are skipped before the log check.
	s = twoSeries()
	s[0].X[0] = math.NaN()
	if err := Lines(p, Figure{LogX: true, LogY: true}, s...); err != nil {
		t.Fatal(err)
	}
}

func TestFigureErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.svg")
	for _, tc := range []struct {
		fig  Figure
		want string
	}{
		{Figure{Width: -3}, "not positive"},
		{Figure{Height: vg.Points(10)}, "below 1 inch"},
		{Figure{DPI: -1}, "DPI -1"},
		{Figure{Width: 100 * vg.Inch, Height: 100 * vg.Inch, DPI: 600}, "too large"},
		{Figure{Legend: Legend(17)}, "legend placement 17"},
		{Figure{YRange: [2]float64{2, 1}}, "y range [2, 1]"},
		{Figure{XRange: [2]float64{0, math.Inf(1)}}, "x range"},
		{Figure{RefY: []float64{math.NaN()}}, "reference line y = NaN"},
	} {
		expectErr(t, tc.want, Lines(p, tc.fig, twoSeries()...), tc.want)
	}
}

// TestNaNPointsSkipped: a series with non-finite points draws exactly as
// the same series without them.
func TestNaNPointsSkipped(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.svg")
	with := Series{Name: "s", X: []float64{1, math.NaN(), 2, 3, math.Inf(1)}, Y: []float64{1, 5, 2, math.Inf(-1), 7}, Markers: true}
	without := Series{Name: "s", X: []float64{1, 2}, Y: []float64{1, 2}, Markers: true}
	if err := Lines(a, Figure{}, with); err != nil {
		t.Fatal(err)
	}
	if err := Lines(b, Figure{}, without); err != nil {
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
			if err := renderAll(p1, Figure{Title: kind, RefY: []float64{2}})[i]; err != nil {
				t.Fatal(err)
			}
			if err := renderAll(p2, Figure{Title: kind, RefY: []float64{2}})[i]; err != nil {
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
		s := Series{Name: "f", X: []float64{x0, x1, x2}, Y: []float64{y0, y1, y2}, Markers: true}
		err := Lines(filepath.Join(dir, "f.svg"), Figure{LogX: logx, LogY: logy, RefY: []float64{1}}, s)
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

// TestECDFSeriesSteps: the series is the step function of the sample,
// checked against counting (an independent oracle): at every x of the
// sample, the top of its jump is #(values ≤ x)/n and the bottom
// #(values < x)/n.
func TestECDFSeriesSteps(t *testing.T) {
	vals := []float64{3, 1, 2, 2, math.NaN(), 5, math.Inf(1)}
	s := ECDFSeries("s", vals)
	fin := []float64{1, 2, 2, 3, 5}
	if len(s.X) != 2*(len(fin)+1) || len(s.X) != len(s.Y) { // the (x₁, 0) start, then one corner per value
		t.Fatalf("%d x and %d y values for %d values", len(s.X), len(s.Y), len(fin))
	}
	count := func(x float64, strict bool) float64 {
		n := 0
		for _, v := range fin {
			if v < x || (!strict && v == x) {
				n++
			}
		}
		return float64(n) / float64(len(fin))
	}
	lo, hi := map[float64]float64{}, map[float64]float64{}
	for i := 0; i < len(s.X); i += 2 {
		x := s.X[i]
		if s.X[i+1] != x || s.Y[i+1] < s.Y[i] {
			t.Fatalf("pair %d is not a vertical rise: (%v, %v), (%v, %v)", i/2, s.X[i], s.Y[i], s.X[i+1], s.Y[i+1])
		}
		if v, ok := lo[x]; !ok || s.Y[i] < v {
			lo[x] = s.Y[i]
		}
		hi[x] = math.Max(hi[x], s.Y[i+1])
	}
	for x := range hi {
		if hi[x] != count(x, false) || lo[x] != count(x, true) {
			t.Errorf("jump at %g from %g to %g, want %g to %g", x, lo[x], hi[x], count(x, true), count(x, false))
		}
	}
	if e := ECDFSeries("none", []float64{math.NaN()}); len(e.X) != 0 {
		t.Errorf("no finite value: %d points", len(e.X))
	}
	big := make([]float64, 10*maxSteps)
	for i := range big {
		big[i] = float64(i)
	}
	if b := ECDFSeries("big", big); len(b.X) > 2*(maxSteps+1) {
		t.Errorf("%d points for a sample of %d, want at most %d", len(b.X), len(big), 2*(maxSteps+1))
	}
}

// TestTimeUnit pins the unit thresholds.
func TestTimeUnit(t *testing.T) {
	for _, c := range []struct {
		hi   float64
		name string
		secs float64
	}{{119, "s", 1}, {120, "min", 60}, {7199, "min", 60}, {7200, "h", 3600}, {14*86400 - 1, "h", 3600}, {14 * 86400, "d", 86400}} {
		if n, s := TimeUnit(c.hi); n != c.name || s != c.secs {
			t.Errorf("TimeUnit(%g) = %s, %g; want %s, %g", c.hi, n, s, c.name, c.secs)
		}
	}
}
