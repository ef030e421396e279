package draw

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/plot"
	xfont "golang.org/x/image/font"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

const (
	defaultWidth  = 6 * vg.Inch
	defaultHeight = 4 * vg.Inch
	defaultDPI    = 150
	maxPixels     = 1 << 26 // PNG size limit, 64 Mpixel
)

// format returns "png" or "svg" from the path's extension.
func format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	}
	return "", fmt.Errorf("plot: %q: unsupported extension %q (want .png or .svg)", path, filepath.Ext(path))
}

func size(f plot.Figure) (w, h vg.Length, dpi int, err error) {
	w, h, dpi = f.Width, f.Height, f.DPI
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = defaultHeight
	}
	if dpi == 0 {
		dpi = defaultDPI
	}
	if !(w > 0 && h > 0) || math.IsInf(float64(w), 0) || math.IsInf(float64(h), 0) {
		return 0, 0, 0, fmt.Errorf("plot: figure size %v × %v is not positive and finite", w, h)
	}
	if w < vg.Inch || h < vg.Inch {
		return 0, 0, 0, fmt.Errorf("plot: figure size %v × %v is below 1 inch", w, h)
	}
	if dpi < 0 {
		return 0, 0, 0, fmt.Errorf("plot: DPI %d is negative", dpi)
	}
	if px := float64(w/vg.Inch) * float64(h/vg.Inch) * float64(dpi) * float64(dpi); px > maxPixels {
		return 0, 0, 0, fmt.Errorf("plot: figure of %.0f pixels is too large (at most %d)", px, maxPixels)
	}
	return w, h, dpi, nil
}

func checkRange(axis string, r [2]float64, log bool) error {
	if r == [2]float64{} {
		return nil
	}
	lo, hi := r[0], r[1]
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("plot: %s range [%g, %g] is not an interval of finite numbers", axis, lo, hi)
	}
	if log && lo <= 0 {
		return fmt.Errorf("plot: %s range [%g, %g] is not positive (log-%s axis)", axis, lo, hi, axis)
	}
	return nil
}

// check validates the parts of f that do not depend on the data.
func check(f plot.Figure) error {
	if _, _, _, err := size(f); err != nil {
		return err
	}
	if f.Legend < plot.LegendTopRight || f.Legend > plot.LegendNone {
		return fmt.Errorf("plot: unknown legend placement %d", f.Legend)
	}
	if err := checkRange("x", f.XRange, f.LogX); err != nil {
		return err
	}
	if err := checkRange("y", f.YRange, f.LogY); err != nil {
		return err
	}
	for _, v := range f.RefY {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("plot: reference line y = %g is not finite", v)
		}
		if f.LogY && v <= 0 {
			return fmt.Errorf("plot: reference line y = %g is not positive (log-y axis)", v)
		}
	}
	return nil
}

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// newPlot returns a gonum plot carrying f's text, scales, fonts and a light
// grid at the labelled ticks; vgrid false leaves out its vertical lines
// (for categorical x axes, where they would run through the boxes).
func newPlot(f plot.Figure, vgrid bool) *figPlot {
	p := &figPlot{Plot: gplot.New()}
	p.Title.Text = f.Title
	p.Title.TextStyle.Font = font.From(boldFont, 13)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 12)
		a.Tick.Label.Font = font.From(sansFont, 10)
	}
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.TextStyle.Font = font.From(sansFont, 10)
	p.Legend.ThumbnailWidth = vg.Points(28)
	setCorner(p, f.Legend)
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{}, linTicks{}
	if f.LogX {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	if !vgrid {
		g.Vertical.Color = nil
	}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// figPlot is a gonum plot that remembers its plotters, so that the legend
// can be placed clear of what they draw.
type figPlot struct {
	*gplot.Plot
	items []gplot.Plotter
}

// Add adds plotters to the plot.
func (p *figPlot) Add(ps ...gplot.Plotter) {
	p.items = append(p.items, ps...)
	p.Plot.Add(ps...)
}

// addLegend adds an entry per named series unless the figure has none.
func addLegend(p *figPlot, f plot.Figure, name string, thumbs ...gplot.Thumbnailer) {
	if f.Legend != plot.LegendNone && name != "" {
		p.Legend.Add(name, thumbs...)
	}
}

// margin is the fraction of a fitted axis range added at each end.
const margin = 0.03

// finish adds the reference lines and settles the axis ranges: fixed
// ranges win; a fitted range gets a margin of 3% at each end (on a log
// axis, 3% of its decades); a degenerate one is widened by ±1 on a linear
// axis and by a factor 2 on a log axis (where gonum's ±1 could reach 0).
func finish(p *figPlot, f plot.Figure) {
	for _, v := range f.RefY {
		p.Add(hline{y: v})
	}
	settle := func(a *gplot.Axis, r [2]float64, log bool) {
		if r != [2]float64{} {
			a.Min, a.Max = r[0], r[1]
			return
		}
		switch {
		case math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0):
			// nothing was added; gonum falls back to [-1, 1]
		case log:
			a.Min, a.Max = logPad(a.Min, a.Max)
		case a.Min < a.Max:
			pad := (a.Max - a.Min) * margin
			if lo, hi := a.Min-pad, a.Max+pad; !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
				a.Min, a.Max = lo, hi
			}
		}
	}
	settle(&p.Plot.X, f.XRange, f.LogX)
	settle(&p.Plot.Y, f.YRange, f.LogY)
}

// logPad widens the positive range [lo, hi] of a log axis by the margin
// in decades, or by a factor 2 each way when lo = hi, never reaching 0 or
// +Inf (data near the limits of float64 keep their range).
func logPad(lo, hi float64) (float64, float64) {
	l, h := math.Log10(lo), math.Log10(hi)
	pad := (h - l) * margin
	if lo == hi {
		pad = math.Log10(2)
	}
	if v := math.Pow(10, l-pad); v > 0 && v < lo {
		lo = v
	}
	if v := math.Pow(10, h+pad); !math.IsInf(v, 0) && v > hi {
		hi = v
	}
	if lo == hi { // both limits pinned: widen whichever side can move
		if hi < math.MaxFloat64/2 {
			hi *= 2
		} else {
			lo /= 2
		}
	}
	return lo, hi
}

// save renders p and writes it to path in the format of its extension.
func save(path, format string, f plot.Figure, p *figPlot) (err error) {
	w, h, dpi, err := size(f)
	if err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
	default:
		c = vgsvg.New(w, h)
	}
	defer func() {
		if r := recover(); r != nil { // gonum panics on some degenerate plots
			err = fmt.Errorf("plot: rendering %q: %v", path, r)
		}
	}()
	drawPlot(p, draw.New(c), f.Legend)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot: encoding %q: %v", path, err)
	}
	if err := output.WriteFile(path, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	return nil
}

// hline is a horizontal reference line across the whole plotting area.
type hline struct{ y float64 }

var refStyle = draw.LineStyle{
	Color:  color.Gray{Y: 110},
	Width:  vg.Points(1),
	Dashes: []vg.Length{vg.Points(5), vg.Points(3)},
}

func (l hline) Plot(c draw.Canvas, p *gplot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(l.y)
	if !c.ContainsY(y) {
		return
	}
	c.StrokeLine2(refStyle, c.Min.X, y, c.Max.X, y)
}

// DataRange widens only the y range; ±Inf leaves x alone.
func (l hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.y, l.y
}

// vline is a vertical line across the whole plotting area at x.
type vline struct {
	x     float64
	style draw.LineStyle
}

func (l vline) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if !c.ContainsX(x) {
		return
	}
	c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
}

// DataRange widens only the x range.
func (l vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, math.Inf(1), math.Inf(-1)
}
