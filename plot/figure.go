package plot

import "gonum.org/v1/plot/vg"

// Legend is where the legend goes inside the plotting area.
type Legend int

const (
	LegendTopRight Legend = iota // the default
	LegendTopLeft
	LegendBottomRight
	LegendBottomLeft
	LegendNone // no legend
)

// Figure holds what every plot kind shares. The zero value is a 6 × 4 inch
// figure with linear axes fitted to the data and the legend at top right.
type Figure struct {
	Title, XLabel, YLabel string

	// LogX and LogY make an axis logarithmic; the data on it must then
	// be positive.
	LogX, LogY bool

	// XRange and YRange fix an axis to [lo, hi]; the zero value fits the
	// axis to the data and the reference lines. Data outside is clipped.
	XRange, YRange [2]float64

	// RefY draws a thin dashed grey horizontal line at each value, such
	// as 1 on a plot normalised by a baseline.
	RefY []float64

	Legend Legend

	// Width and Height are the figure's size; zero means 6 and 4 inches.
	Width, Height vg.Length

	// DPI is the resolution of PNG output; zero means 150. SVG ignores it.
	DPI int
}
