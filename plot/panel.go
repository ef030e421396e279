package plot

import "gonum.org/v1/plot/vg"

// Marks are thin vertical lines across a panel at each X, such as the
// ends of a plan's reservations, in the colour and dash pattern of style
// number Style (the same in every panel, unlike the positional styles of
// lines and points), solid or dashed.
type Marks struct {
	Name   string
	X      []float64
	Style  int
	Dashed bool // solid unless set
}

// Rect is a filled rectangle [X0, X1] × [Y0, Y1] in data coordinates, in
// the light fill of style number Style, or its full colour when Solid,
// such as one job's processors over one interval of a schedule.
type Rect struct {
	X0, X1, Y0, Y1 float64
	Style          int
	Solid          bool
}

// RectKey is a legend entry for the rectangles of one style.
type RectKey struct {
	Name  string
	Style int
	Solid bool
}

// Bar is one bar of a bar panel.
type Bar struct {
	Label string
	// Value is the bar's length: finite and non-negative, or NaN or ±Inf
	// for an undefined measure (no job completed, a ratio 0/0), drawn as
	// no bar and the label "n/a" (NaN), "+Inf" or "-Inf" at the axis:
	// never as a bar of length 0.
	Value float64
	// Highlight draws the bar in vermillion; the others are blue.
	Highlight bool
}

// Panel is one plot of a stacked figure (Stack). Its Figure gives the
// title, labels, axes and legend (Width, Height and DPI are Stack's);
// the styles go to Lines, then Points, in order. A panel
// with Bars is a horizontal bar chart of them instead, labelled on the y
// axis, with Figure.XLabel under the values and each value printed at
// its bar's end; a bar beyond a fixed Figure.XRange is cut at the edge,
// its value printed inside it with an arrow; an undefined value (NaN, ±Inf)
// has no bar, only "n/a", "+Inf" or "-Inf" at the axis (see Bar).
type Panel struct {
	Figure
	Lines  []Series
	Points []Series
	Marks  []Marks
	Rects  []Rect // drawn first, under everything else
	// RectKeys are the legend entries of the rectangles.
	RectKeys []RectKey
	Bars     []Bar
	// Weight is the panel's share of the height relative to the others
	// (0 means 1).
	Weight float64
}

// Stack draws the panels one above the other in a figure of the given
// size (0 means 7 inches wide, 3 inches per panel) and writes it to path
// (.png or .svg, PNG at 150 DPI).
func Stack(path string, width, height vg.Length, panels ...Panel) error {
	r, err := renderer()
	if err != nil {
		return err
	}
	return r.Stack(path, width, height, panels)
}

// StackBytes is Stack returning the image, "svg" or "png", as bytes (for
// inlining in an HTML page).
func StackBytes(format string, width, height vg.Length, panels ...Panel) ([]byte, error) {
	r, err := renderer()
	if err != nil {
		return nil, err
	}
	return r.StackBytes(format, width, height, panels)
}
