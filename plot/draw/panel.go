package draw

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/plot"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Stack draws the panels one above the other in a figure of the given
// size (0 means 7 inches wide, 3 inches per panel) and writes it to path
// (.png or .svg, PNG at 150 DPI).
func (r renderer) Stack(path string, width, height vg.Length, panels []plot.Panel) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	b, err := r.StackBytes(ft, width, height, panels)
	if err != nil {
		return fmt.Errorf("plot: %q: %w", path, err)
	}
	if err := output.WriteFile(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	return nil
}

// StackBytes is Stack returning the image, "svg" or "png", as bytes (for
// inlining in an HTML page).
func (renderer) StackBytes(format string, width, height vg.Length, panels []plot.Panel) (out []byte, err error) {
	if format != "svg" && format != "png" {
		return nil, fmt.Errorf("unsupported format %q (want svg or png)", format)
	}
	ft := format
	if len(panels) == 0 {
		return nil, fmt.Errorf("no panel to draw")
	}
	if width == 0 {
		width = 7 * vg.Inch
	}
	if height == 0 {
		height = vg.Length(len(panels)) * 3 * vg.Inch
	}
	if _, _, _, err := size(plot.Figure{Width: width, Height: height}); err != nil {
		return nil, err
	}
	plots := make([]*figPlot, len(panels))
	total := 0.0
	for i, pn := range panels {
		if plots[i], err = build(pn); err != nil {
			return nil, fmt.Errorf("panel %d: %w", i+1, err)
		}
		total += weight(pn)
	}
	var c vg.CanvasWriterTo
	if ft == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(defaultDPI))}
	} else {
		c = vgsvg.New(width, height)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering: %v", r)
		}
	}()
	dc := draw.New(c)
	top := height
	for i, p := range plots {
		h := height * vg.Length(weight(panels[i])/total)
		tile := dc
		tile.Min.Y, tile.Max.Y = top-h, top
		tile.Min.X += vg.Points(4)
		tile.Max.X -= vg.Points(8)
		tile.Min.Y += vg.Points(4)
		tile.Max.Y -= vg.Points(4)
		drawPlot(p, tile, panels[i].Legend)
		top -= h
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding: %v", err)
	}
	return buf.Bytes(), nil
}

func weight(pn plot.Panel) float64 {
	if pn.Weight > 0 && !math.IsInf(pn.Weight, 0) {
		return pn.Weight
	}
	return 1
}

// markStyle is the line style of mark set i: style i's colour, thinner
// than a curve, solid or evenly dashed.
func markStyle(i int, dashed bool) draw.LineStyle {
	s := draw.LineStyle{Color: colorOf(i), Width: vg.Points(0.9)}
	if dashed {
		s.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return s
}

func build(pn plot.Panel) (*figPlot, error) {
	f := pn.Figure
	if err := check(f); err != nil {
		return nil, err
	}
	if len(pn.Bars) > 0 {
		return bars(pn)
	}
	if len(pn.Lines)+len(pn.Points)+len(pn.Marks)+len(pn.Rects) == 0 {
		return nil, fmt.Errorf("nothing to draw")
	}
	p := newPlot(f, true)
	for _, r := range pn.Rects {
		if err := checkRect(r, f); err != nil {
			return nil, err
		}
		p.Add(&rectItem{r})
	}
	for _, k := range pn.RectKeys {
		addLegend(p, f, k.Name, boxThumb{rectFill(k.Style, k.Solid)})
	}
	style := 0
	for _, s := range pn.Lines {
		xys, err := points(f, style, s)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(style)
		p.Add(l)
		addLegend(p, f, s.Name, l)
		style++
	}
	for _, s := range pn.Points {
		xys, err := points(f, style, s)
		if err != nil {
			return nil, err
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = glyphStyle(style)
		p.Add(sc)
		addLegend(p, f, s.Name, sc)
		style++
	}
	for _, m := range pn.Marks {
		ls := markStyle(m.Style, m.Dashed)
		n := 0
		for _, x := range m.X {
			if math.IsNaN(x) || math.IsInf(x, 0) || (f.LogX && x <= 0) {
				continue
			}
			p.Add(vline{x: x, style: ls})
			n++
		}
		if n > 0 {
			addLegend(p, f, m.Name, markThumb{ls})
		}
	}
	finish(p, f)
	return p, nil
}

// bars draws a horizontal bar chart, one bar per item, top to bottom in
// the given order, each in its own colour.
func bars(pn plot.Panel) (*figPlot, error) {
	f := pn.Figure
	f.Legend = plot.LegendNone
	p := newPlot(f, true)
	p.Plot.Y.Tick.Marker = gplot.DefaultTicks{}
	n := len(pn.Bars)
	names := make([]string, n)
	for i, b := range pn.Bars {
		if b.Value < 0 && !math.IsInf(b.Value, -1) {
			return nil, fmt.Errorf("bar %q: value %g is negative", b.Label, b.Value)
		}
		row := n - 1 - i // the first bar on top
		names[row] = b.Label
		style := 2
		if b.Highlight {
			style = 4
		}
		p.Add(newBarItem(float64(row), b.Value, style))
	}
	p.NominalY(names...)
	f.YRange = [2]float64{-0.6, float64(n) - 0.4}
	if f.XRange == [2]float64{} {
		hi, found := 0.0, false
		for _, b := range pn.Bars {
			if !math.IsNaN(b.Value) && !math.IsInf(b.Value, 0) {
				hi, found = math.Max(hi, b.Value), true
			}
		}
		if !found {
			hi = 1 / 1.12 // only undefined values: an axis from 0 to 1
		}
		f.XRange = [2]float64{0, math.Max(hi*1.12, 1e-300)} // room for the value labels
	}
	finish(p, f)
	return p, nil
}

func rectFill(style int, solid bool) color.Color {
	if solid {
		return colorOf(style)
	}
	return fillOf(style)
}

func checkRect(r plot.Rect, f plot.Figure) error {
	for _, v := range []float64{r.X0, r.X1, r.Y0, r.Y1} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("rectangle [%g, %g] × [%g, %g] is not finite", r.X0, r.X1, r.Y0, r.Y1)
		}
	}
	if (f.LogX && math.Min(r.X0, r.X1) <= 0) || (f.LogY && math.Min(r.Y0, r.Y1) <= 0) {
		return fmt.Errorf("rectangle [%g, %g] × [%g, %g] is not positive on a log axis", r.X0, r.X1, r.Y0, r.Y1)
	}
	return nil
}

// rectItem draws a Rect with a thin white edge, so that neighbours stay
// apart.
type rectItem struct{ plot.Rect }

func (r *rectItem) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1, y0, y1 := trX(r.X0), trX(r.X1), trY(r.Y0), trY(r.Y1)
	pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}, {X: x0, Y: y0}}
	c.FillPolygon(rectFill(r.Style, r.Solid), c.ClipPolygonXY(pts))
	c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(0.4)}, c.ClipLinesXY(pts)...)
}

func (r *rectItem) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Min(r.X0, r.X1), math.Max(r.X0, r.X1), math.Min(r.Y0, r.Y1), math.Max(r.Y0, r.Y1)
}

func (r *rectItem) footprint(trX, trY func(float64) vg.Length) ([][2]vg.Point, []vg.Rectangle) {
	a, b := vg.Point{X: trX(r.X0), Y: trY(r.Y0)}, vg.Point{X: trX(r.X1), Y: trY(r.Y1)}
	return nil, []vg.Rectangle{{Min: vg.Point{X: min(a.X, b.X), Y: min(a.Y, b.Y)}, Max: vg.Point{X: max(a.X, b.X), Y: max(a.Y, b.Y)}}}
}
