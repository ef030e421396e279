// Package plot draws the figures of ckpt's experiments (over gonum/plot,
// through the renderer of package plot/draw):
// line plots (Lines), scatter plots (Scatter), empirical CDFs as step
// functions (StepCDF) and box plots clustered by category (Box). It serves
// every reproduction (repro/...): for instance the cooperative-checkpointing
// paper's Figs. 1–4 (Herault et al., APDCM 2018, Section VI: waste and
// slowdown against bandwidth and MTBF, with boxes for the quartiles and
// deciles of Section V) and the makespan ratios of the reservation papers.
//
// Stack draws several panels one above the other in one file (lines,
// points, vertical marks, or horizontal bars with their values), as the
// pictures of `ckpt reserve --plot` do; StackBytes returns the image for
// an HTML page. ECDFSeries turns a sample into the step line of its
// empirical CDF for such a panel (decimated as StepCDF's; ECDFSteps
// gives the corners themselves), and TimeUnit picks the unit (s, min, h,
// d) a time axis reads best in.
//
// # The renderer is linked apart
//
// This package holds the data types and the drawing functions the
// capabilities call, but not gonum/plot's root package: its init parses
// every Liberation font, and Go runs the init of every linked package, so
// that a program importing only gonum.org/v1/plot took 12 ms of CPU to
// start against 5.3 ms for an empty one (2-core VM, 2026-11-29, issue 25).
// Package plot/draw holds the renderer over gonum/plot and registers it
// (Register) when linked, as image/png registers its decoder; cmd/ckpt's
// full build links it, ckpt -tags lite does not (it hands --plot and
// --html to ckpt-full). Without a renderer every drawing function returns
// ErrNoRenderer and creates no file. Only gonum.org/v1/plot/vg is imported
// here (lengths; no font is parsed), and package layering holds the rule.
//
// # Legends never cover data
//
// Figure.Legend names the preferred corner. When the legend's box there
// would touch a line segment, a marker, a box or a mark, the other corners
// are tried (top right, top left, bottom right, bottom left); when none is
// clear the plotting area narrows and the legend goes to its right (a
// title wider than the narrowed area is then centred on the whole width,
// so that it is never cut). A figure whose preferred corner is clear is
// drawn as before.
//
// Every function takes the output path first and writes PNG or SVG as its
// extension says (".png" or ".svg", case-insensitive); any other extension
// is an error. A Figure carries the title, axis labels, log axes, size,
// fixed axis ranges, horizontal reference lines (such as y = 1 on a plot
// normalised by a baseline) and the legend's place.
//
// # Data rules
//
// Points whose coordinates are NaN or ±Inf are skipped; a series left with
// no point, or no series at all, is an error. On a log axis every remaining
// value must be positive, otherwise the error names the series and the
// value. Errors are single lines; no input makes these functions panic.
//
// # Styles
//
// Series i gets the i-th colour of the Okabe–Ito palette (distinct for
// colour-blind readers), the i-th dash pattern and the i-th marker shape,
// so that series stay apart when printed in greyscale.
//
// # Determinism
//
// The same inputs give the same bytes: SVG output is text produced in a
// fixed order, and PNG output is rasterised by a pure-Go renderer and
// encoded by image/png, with no time stamp or other varying metadata. Both
// are checked by the tests. SVG text names the Liberation fonts without
// embedding them; viewers without them substitute a similar face.
//
// # Complexity
//
// A figure of n points in total is O(n) to lay out and draw, plus O(n)
// per corner tried for the legend (box plots
// O(n log n): each group is sorted for its quartiles, computed by
// distribution.SampleQuantile, type 7), plus the rasterisation of a PNG,
// O(width × height) pixels. Memory is O(n) plus the image.
package plot
