package draw

import (
	"github.com/ckpt-hpc/ckpt/plot"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Legend placement never covers data: the figure's corner is kept when
// the legend's box there is clear of every line segment, marker and box
// of the plot (with a margin of clearance); otherwise the other corners
// are tried in the order top right, top left, bottom right, bottom left;
// when none is clear the plotting area narrows and the legend goes to its
// right, outside. A clear corner costs nothing, so figures whose legend
// never touched their data are drawn exactly as before.

const clearance = 3 // points between a legend's box and the data

// footprinter is a plotter that can say where it draws, in canvas
// coordinates, for the legend's placement.
type footprinter interface {
	footprint(trX, trY func(float64) vg.Length) (segs [][2]vg.Point, rects []vg.Rectangle)
}

func (b *boxItem) footprint(trX, trY func(float64) vg.Length) ([][2]vg.Point, []vg.Rectangle) {
	r := vg.Rectangle{Min: vg.Point{X: trX(b.x - b.width/2), Y: trY(b.min)}, Max: vg.Point{X: trX(b.x + b.width/2), Y: trY(b.max)}}
	return nil, []vg.Rectangle{r}
}

// footprintOf returns the segments and boxes (markers as small boxes) of
// the plotters ckpt draws with.
func footprintOf(pl gplot.Plotter, trX, trY func(float64) vg.Length) (segs [][2]vg.Point, rects []vg.Rectangle) {
	pt := func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} }
	switch v := pl.(type) {
	case footprinter:
		return v.footprint(trX, trY)
	case *plotter.Line:
		for i := 1; i < len(v.XYs); i++ {
			a, b := pt(v.XYs[i-1]), pt(v.XYs[i])
			if v.StepStyle == plotter.PostStep {
				corner := vg.Point{X: b.X, Y: a.Y}
				segs = append(segs, [2]vg.Point{a, corner}, [2]vg.Point{corner, b})
				continue
			}
			segs = append(segs, [2]vg.Point{a, b})
		}
	case *plotter.Scatter:
		r := v.GlyphStyle.Radius
		for _, xy := range v.XYs {
			p := pt(xy)
			rects = append(rects, vg.Rectangle{Min: vg.Point{X: p.X - r, Y: p.Y - r}, Max: vg.Point{X: p.X + r, Y: p.Y + r}})
		}
	case vline:
		x := trX(v.x)
		segs = append(segs, [2]vg.Point{{X: x, Y: -1e9}, {X: x, Y: 1e9}})
	}
	return segs, rects
}

// legendBox is where Legend.Draw puts a legend of size w × h inside area
// at the given corner (gonum's own Rectangle method mirrors x).
func legendBox(l *gplot.Legend, area vg.Rectangle, w, h vg.Length) vg.Rectangle {
	var r vg.Rectangle
	if l.Left {
		r.Min.X = area.Min.X + l.XOffs
	} else {
		r.Min.X = area.Max.X - w + l.XOffs
	}
	if l.Top {
		r.Min.Y = area.Max.Y - h + l.YOffs
	} else {
		r.Min.Y = area.Min.Y + l.YOffs
	}
	r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
	return r
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// segmentHits reports whether segment ab meets rectangle r (Liang–Barsky).
func segmentHits(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	clip := func(p, q float64) bool {
		if p == 0 {
			return q >= 0
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return false
			}
			t1 = min(t1, t)
		}
		return true
	}
	return clip(-dx, float64(a.X-r.Min.X)) && clip(dx, float64(r.Max.X-a.X)) &&
		clip(-dy, float64(a.Y-r.Min.Y)) && clip(dy, float64(r.Max.Y-a.Y)) && t0 <= t1
}

// legendSize is the width and height of p's legend.
func legendSize(l *gplot.Legend) (vg.Length, vg.Length) {
	r := l.Rectangle(draw.Canvas{})
	return r.Max.X - r.Min.X, r.Max.Y - r.Min.Y
}

// placeLegend moves p's legend to a corner clear of the data drawn on
// canvas c, and reports false when no corner is clear.
func placeLegend(p *figPlot, c draw.Canvas, want plot.Legend) bool {
	w, h := legendSize(&p.Legend)
	if w == 0 || h == 0 {
		return true
	}
	dc := p.DataCanvas(c)
	trX, trY := p.Transforms(&dc)
	var segs [][2]vg.Point
	var rects []vg.Rectangle
	for _, pl := range p.items {
		s, r := footprintOf(pl, trX, trY)
		segs, rects = append(segs, s...), append(rects, r...)
	}
	area := dc.Rectangle
	clear := func(corner plot.Legend) bool {
		l := p.Legend
		l.Top = corner == plot.LegendTopRight || corner == plot.LegendTopLeft
		l.Left = corner == plot.LegendTopLeft || corner == plot.LegendBottomLeft
		box := legendBox(&l, area, w, h)
		box.Min.X -= clearance
		box.Min.Y -= clearance
		box.Max.X += clearance
		box.Max.Y += clearance
		for _, r := range rects {
			if overlaps(box, r) {
				return false
			}
		}
		for _, s := range segs {
			if segmentHits(s[0], s[1], box) {
				return false
			}
		}
		return true
	}
	for _, corner := range []plot.Legend{want, plot.LegendTopRight, plot.LegendTopLeft, plot.LegendBottomRight, plot.LegendBottomLeft} {
		if clear(corner) {
			setCorner(p, corner)
			return true
		}
	}
	return false
}

// setCorner sets the legend's corner and its offsets from the axes.
func setCorner(p *figPlot, corner plot.Legend) {
	p.Legend.Top = corner == plot.LegendTopRight || corner == plot.LegendTopLeft
	p.Legend.Left = corner == plot.LegendTopLeft || corner == plot.LegendBottomLeft
	p.Legend.XOffs = vg.Points(-6)
	if p.Legend.Left {
		p.Legend.XOffs = vg.Points(6)
	}
	p.Legend.YOffs = vg.Points(-4)
	if !p.Legend.Top {
		p.Legend.YOffs = vg.Points(4)
	}
}

// drawPlot draws p on c with its legend where it covers no data: in a
// clear corner, or else in a strip to the right of a narrowed plot.
func drawPlot(p *figPlot, c draw.Canvas, want plot.Legend) {
	if placeLegend(p, c, want) {
		p.Draw(c)
		return
	}
	w, _ := legendSize(&p.Legend)
	strip := w + vg.Points(10)
	if title := p.Title.Text; title != "" && p.Title.TextStyle.Width(title) > c.Max.X-c.Min.X-strip {
		// A title wider than the narrowed plot is centred on the whole
		// width instead, so that it is not cut at the left edge.
		descent := p.Title.TextStyle.FontExtents().Descent
		c.FillText(p.Title.TextStyle, vg.Point{X: c.Center().X, Y: c.Max.Y + descent}, title)
		c.Max.Y -= p.Title.TextStyle.Rectangle(title).Size().Y + p.Title.Padding
		p.Title.Text = ""
		defer func() { p.Title.Text = title }()
	}
	leg := p.Legend
	p.Legend = gplot.NewLegend()
	p.Draw(draw.Crop(c, 0, -strip, 0, 0))
	leg.Top, leg.Left = true, true
	leg.XOffs, leg.YOffs = vg.Points(4), vg.Points(-4)
	right := draw.Crop(c, c.Max.X-c.Min.X-strip, 0, 0, 0)
	dc := p.DataCanvas(draw.Crop(c, 0, -strip, 0, 0))
	right.Max.Y = dc.Max.Y
	leg.Draw(right)
	p.Legend = leg
}

// markThumb is a vertical line's legend swatch.
type markThumb struct{ style draw.LineStyle }

func (t markThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(t.style, x, c.Min.Y, x, c.Max.Y)
}
