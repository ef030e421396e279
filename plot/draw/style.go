package draw

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is Okabe & Ito's colour-blind-safe set ("Color Universal
// Design", 2008), ordered so that neighbours differ in lightness too;
// their yellow is darkened to read on white.
var palette = []color.RGBA{
	{0, 0, 0, 255},       // black
	{230, 159, 0, 255},   // orange
	{0, 114, 178, 255},   // blue
	{0, 158, 115, 255},   // bluish green
	{213, 94, 0, 255},    // vermillion
	{86, 180, 233, 255},  // sky blue
	{204, 121, 167, 255}, // reddish purple
	{170, 150, 20, 255},  // dark yellow
}

// dashes are the line patterns, cycled with a period (6) prime to the
// palette's (8) so that colour and dash pairs repeat only after 24 series.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(10), vg.Points(4)},
	{vg.Points(3), vg.Points(2), vg.Points(3), vg.Points(5)},
}

// glyphs are the marker shapes, cycled with period 7.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.PyramidGlyph{},
	draw.PlusGlyph{},
}

func colorOf(i int) color.RGBA { return palette[i%len(palette)] }

func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: colorOf(i), Width: vg.Points(1.6), Dashes: dashes[i%len(dashes)]}
}

func glyphStyle(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(3), Shape: glyphs[i%len(glyphs)]}
}

// fillOf lightens series i's colour towards white for box fills, so that
// black outlines and median lines stay visible on every box.
func fillOf(i int) color.RGBA {
	c := colorOf(i)
	mix := func(v uint8) uint8 { return uint8(float64(v) + 0.45*float64(255-int(v))) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}
