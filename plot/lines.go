package plot

// Series is one curve or point cloud: Y[i] against X[i].
type Series struct {
	// Name labels the series in the legend; unnamed series have no entry.
	Name string
	// X and Y have the same length.
	X, Y []float64
	// Markers also marks each point of a Lines series with the series'
	// glyph; Scatter always does.
	Markers bool
}

// Lines draws each series as a line through its points in the given
// order, optionally with markers, and writes the figure to path (.png or
// .svg). Non-finite points are skipped and the line joins their
// neighbours. A line of more than maxMarkers points carries markers at
// maxMarkers evenly spaced points only (the first and last included): the
// markers tell the series apart, the line draws every point.
func Lines(path string, fig Figure, series ...Series) error {
	r, err := renderer()
	if err != nil {
		return err
	}
	return r.Lines(path, fig, series)
}

// Scatter draws each series as unconnected markers and writes the figure
// to path (.png or .svg). Non-finite points are skipped.
func Scatter(path string, fig Figure, series ...Series) error {
	r, err := renderer()
	if err != nil {
		return err
	}
	return r.Scatter(path, fig, series)
}
