package plot

// BoxGroup is the sample behind one box. Boxes sharing a Category stand
// side by side at that category's place on the x axis (categories in order
// of first appearance); boxes sharing a Series share a colour and a legend
// entry and keep the same slot within every category. For a
// "strategy × parameter" figure, Category is the parameter value and
// Series the strategy. A plain box plot leaves Series empty.
type BoxGroup struct {
	Category string
	Series   string
	Values   []float64
}

// Box draws one box per group and writes the figure to path (.png or
// .svg). A box spans the first to the third quartile (linear
// interpolation, as R's and NumPy's defaults) with a thick line at the
// median; its whiskers reach the most extreme values within 1.5
// interquartile ranges of the box (Tukey), and values beyond them are drawn
// as rings. Non-finite values are skipped. The x axis holds the categories,
// so fig.LogX and fig.XRange are errors; a log-y axis is allowed.
func Box(path string, fig Figure, groups ...BoxGroup) error {
	r, err := renderer()
	if err != nil {
		return err
	}
	return r.Box(path, fig, groups)
}
