package draw

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/plot"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// boxStats are the statistics one box shows.
type boxStats struct {
	q1, med, q3 float64   // quartiles
	lo, hi      float64   // whisker ends
	out         []float64 // values beyond the whiskers
	min, max    float64
}

// quantile is distribution.SampleQuantile: type 7 of Hyndman & Fan
// (1996), the default of R and NumPy.
func quantile(sorted []float64, p float64) float64 { return distribution.SampleQuantile(sorted, p) }

// statsOf computes Tukey's box of sorted (non-empty) xs: quartiles by
// quantile, whiskers to the most extreme values within 1.5 IQR of the box,
// and the values beyond them as outliers.
func statsOf(sorted []float64) boxStats {
	s := boxStats{
		q1: quantile(sorted, 0.25), med: quantile(sorted, 0.5), q3: quantile(sorted, 0.75),
		min: sorted[0], max: sorted[len(sorted)-1],
	}
	iqr := s.q3 - s.q1
	lowFence, highFence := s.q1-1.5*iqr, s.q3+1.5*iqr
	s.lo, s.hi = s.q1, s.q3
	for _, x := range sorted {
		if x < lowFence || x > highFence {
			s.out = append(s.out, x)
			continue
		}
		s.lo = math.Min(s.lo, x)
		s.hi = math.Max(s.hi, x)
	}
	return s
}

// Box draws one box per group and writes the figure to path (.png or
// .svg). A box spans the first to the third quartile (linear
// interpolation, as R's and NumPy's defaults) with a thick line at the
// median; its whiskers reach the most extreme values within 1.5
// interquartile ranges of the box (Tukey), and values beyond them are drawn
// as rings. Non-finite values are skipped. The x axis holds the categories,
// so fig.LogX and fig.XRange are errors; a log-y axis is allowed.
func (renderer) Box(path string, fig plot.Figure, groups []plot.BoxGroup) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	if err := check(fig); err != nil {
		return err
	}
	if fig.LogX || fig.XRange != [2]float64{} {
		return fmt.Errorf("plot: %q: a box plot's x axis holds categories, so it takes no log-x or x range", path)
	}
	if len(groups) == 0 {
		return fmt.Errorf("plot: %q: no box groups to draw", path)
	}
	var cats, series []string
	catIdx, serIdx := map[string]int{}, map[string]int{}
	seen := map[[2]string]bool{}
	for _, g := range groups {
		if _, ok := catIdx[g.Category]; !ok {
			catIdx[g.Category] = len(cats)
			cats = append(cats, g.Category)
		}
		if _, ok := serIdx[g.Series]; !ok {
			serIdx[g.Series] = len(series)
			series = append(series, g.Series)
		}
		key := [2]string{g.Category, g.Series}
		if seen[key] {
			return fmt.Errorf("plot: box group (category %q, series %q) appears twice", g.Category, g.Series)
		}
		seen[key] = true
	}

	p := newPlot(fig, false)
	slot := 0.8 / float64(len(series))
	for _, g := range groups {
		name := fmt.Sprintf("box group (category %q, series %q)", g.Category, g.Series)
		xs := plot.SortedFinite(g.Values)
		if len(xs) == 0 {
			return fmt.Errorf("plot: %s has no finite values", name)
		}
		if fig.LogY && xs[0] <= 0 {
			return fmt.Errorf("plot: %s: y = %g is not positive (log-y axis)", name, xs[0])
		}
		j := serIdx[g.Series]
		p.Add(&boxItem{
			x:        float64(catIdx[g.Category]) + (float64(j)-float64(len(series)-1)/2)*slot,
			width:    0.75 * slot,
			boxStats: statsOf(xs),
			fill:     fillOf(j),
		})
	}
	for j, s := range series {
		addLegend(p, fig, s, boxThumb{fillOf(j)})
	}
	p.NominalX(cats...)
	fig.XRange = [2]float64{-0.5, float64(len(cats)) - 0.5}
	finish(p, fig)
	return save(path, ft, fig, p)
}

var (
	boxLine    = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	medianLine = draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}
)

// boxItem draws one box in data coordinates, so its width follows the
// number of categories rather than the figure size.
type boxItem struct {
	x, width float64
	boxStats
	fill color.Color
}

func (b *boxItem) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, xc, x1 := trX(b.x-b.width/2), trX(b.x), trX(b.x+b.width/2)
	q1, med, q3 := trY(b.q1), trY(b.med), trY(b.q3)
	lo, hi := trY(b.lo), trY(b.hi)
	box := []vg.Point{{X: x0, Y: q1}, {X: x0, Y: q3}, {X: x1, Y: q3}, {X: x1, Y: q1}, {X: x0, Y: q1}}
	c.FillPolygon(b.fill, c.ClipPolygonXY(box))
	capW := (x1 - x0) / 4
	c.StrokeLines(boxLine, c.ClipLinesXY(
		[]vg.Point{{X: xc, Y: q3}, {X: xc, Y: hi}},
		[]vg.Point{{X: xc - capW, Y: hi}, {X: xc + capW, Y: hi}},
		[]vg.Point{{X: xc, Y: q1}, {X: xc, Y: lo}},
		[]vg.Point{{X: xc - capW, Y: lo}, {X: xc + capW, Y: lo}},
	)...)
	c.StrokeLines(boxLine, c.ClipLinesXY(box)...)
	c.StrokeLines(medianLine, c.ClipLinesXY([]vg.Point{{X: x0, Y: med}, {X: x1, Y: med}})...)
	gs := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.RingGlyph{}}
	for _, v := range b.out {
		pt := vg.Point{X: xc, Y: trY(v)}
		if c.Contains(pt) {
			c.DrawGlyphNoClip(gs, pt)
		}
	}
}

func (b *boxItem) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x - b.width/2, b.x + b.width/2, b.min, b.max
}

// boxThumb is a box's legend swatch.
type boxThumb struct{ fill color.Color }

func (t boxThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	dy := (r.Max.Y - r.Min.Y) * 0.12
	r.Min.Y += dy
	r.Max.Y -= dy
	r.Min.X += vg.Points(4)
	pts := []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}, r.Min}
	c.FillPolygon(t.fill, pts)
	c.StrokeLines(boxLine, pts)
}

// barItem is one horizontal bar from 0 to value at row y; with missing
// set (an undefined value) no bar, only the label at 0.
type barItem struct {
	y, value   float64
	fill, edge color.Color
	label      string // printed after the bar's end
	missing    bool
}

// newBarItem is the bar of value at row y in the given style, labelled with
// its value; a non-finite value is missing, labelled "n/a" (NaN), "+Inf" or
// "-Inf".
func newBarItem(y, value float64, style int) *barItem {
	b := &barItem{y: y, value: value, fill: fillOf(style), edge: colorOf(style), label: strconv.FormatFloat(value, 'g', 3, 64)}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		b.value, b.missing = 0, true
		if math.IsNaN(value) {
			b.label = "n/a"
		}
	}
	return b
}

func (b *barItem) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := trX(0), trX(b.value)
	y0, y1 := trY(b.y-0.35), trY(b.y+0.35)
	if !b.missing {
		pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}, {X: x0, Y: y0}}
		c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
		c.StrokeLines(draw.LineStyle{Color: b.edge, Width: vg.Points(1)}, c.ClipLinesXY(pts)...)
	}
	if b.label != "" {
		sty := draw.TextStyle{Color: color.Black, Font: font.From(sansFont, 9), YAlign: -0.5, Handler: p.X.Tick.Label.Handler}
		at := vg.Point{X: x1 + vg.Points(3), Y: (y0 + y1) / 2}
		label := b.label
		if x1 > c.Max.X { // cut at the edge: the value inside, right-aligned
			at.X, sty.XAlign, label = c.Max.X-vg.Points(3), -1, label+" →"
		}
		c.FillText(sty, at, label)
	}
}

func (b *barItem) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, b.value, b.y - 0.35, b.y + 0.35
}

func (b *barItem) footprint(trX, trY func(float64) vg.Length) ([][2]vg.Point, []vg.Rectangle) {
	if b.missing {
		return nil, nil
	}
	return nil, []vg.Rectangle{{Min: vg.Point{X: trX(0), Y: trY(b.y - 0.35)}, Max: vg.Point{X: trX(b.value), Y: trY(b.y + 0.35)}}}
}
