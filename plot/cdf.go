package plot

import (
	"math"
	"slices"
)

// NamedSamples is a sample of one quantity, named for the legend.
type NamedSamples struct {
	Name   string
	Values []float64
}

// corner is a corner of an empirical CDF drawn as a post-step line.
type corner struct{ X, Y float64 }

// SortedFinite returns the finite values of xs, sorted: what a CDF or a
// box of xs shows (NaN and ±Inf are left out).
func SortedFinite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// ecdfSteps returns the corners of the empirical CDF of sorted xs as
// points for a post-step line: (x₁, 0) then (x_i, i/n) for i = 1…n, so
// that the curve jumps by 1/n at each sample (by k/n at a k-fold tie) and
// is right-continuous.
func ecdfSteps(sorted []float64) []corner {
	n := float64(len(sorted))
	xys := make([]corner, 0, len(sorted)+1)
	xys = append(xys, corner{X: sorted[0], Y: 0})
	for i, x := range sorted {
		xys = append(xys, corner{X: x, Y: float64(i+1) / n})
	}
	return xys
}

// maxSteps bounds the corners drawn per empirical CDF: a larger sample is
// decimated to the ECDF at maxSteps evenly spaced ranks, within 1/maxSteps
// of the exact curve everywhere (under a pixel at any laptop size), so
// that a figure's size does not grow with the sample.
const maxSteps = 2000

// decimate keeps the corners of an ECDF (from ecdfSteps) at ranks
// ⌈k·n/maxSteps⌉, k = 1…maxSteps, with the first and last corners; the
// curve drawn through them as a post-step function is within 1/maxSteps
// of the exact one. Short curves are returned as they are.
func decimate(xys []corner) []corner {
	n := len(xys) - 1 // corners after the (x₁, 0) start
	if n <= maxSteps {
		return xys
	}
	out := make([]corner, 0, maxSteps+1)
	out = append(out, xys[0])
	for k := 1; k <= maxSteps; k++ {
		i := (k*n + maxSteps - 1) / maxSteps // ⌈k·n/maxSteps⌉ ∈ [1, n]
		out = append(out, xys[i])
	}
	return out
}

// StepCDF draws the empirical cumulative distribution function of each
// sample as a step function, F(x) = (number of values ≤ x)/n, from 0 at
// the smallest value to 1 at the largest, and writes the figure to path
// (.png or .svg). Non-finite values are skipped. The y axis spans [0, 1]
// unless fig.YRange says otherwise, and its label defaults to
// "fraction ≤ x"; a log-y axis is an error. Samples of more than 2000
// values are drawn through 2000 evenly spaced ranks (see maxSteps).
func StepCDF(path string, fig Figure, samples ...NamedSamples) error {
	r, err := renderer()
	if err != nil {
		return err
	}
	return r.StepCDF(path, fig, samples)
}

// ECDFSteps returns the corners of the empirical CDF of the finite values,
// the points of a post-step line: (x₁, 0) then (x_i, i/n) for i = 1…n
// over the sorted values, through at most maxSteps ranks (see maxSteps),
// as StepCDF draws them; no finite value gives none. x[0], if any, is the
// smallest finite value. O(n log n).
func ECDFSteps(values []float64) (x, y []float64) {
	xs := SortedFinite(values)
	if len(xs) == 0 {
		return nil, nil
	}
	corners := decimate(ecdfSteps(xs))
	x, y = make([]float64, len(corners)), make([]float64, len(corners))
	for i, c := range corners {
		x[i], y[i] = c.X, c.Y
	}
	return x, y
}

// ECDFSeries is the empirical CDF of the finite values as a Series whose
// line (Lines, or a Panel's Lines) is the step function that StepCDF
// draws: flat between samples, jumping by 1/n at each (k/n at a k-fold
// tie), through at most maxSteps ranks. Its points come in pairs, one at
// each end of a jump. No finite value gives a Series with no point, which
// Lines and Stack refuse. O(n log n).
func ECDFSeries(name string, values []float64) Series {
	s := Series{Name: name}
	xs := SortedFinite(values)
	if len(xs) == 0 {
		return s
	}
	corners := decimate(ecdfSteps(xs))
	s.X, s.Y = make([]float64, 0, 2*len(corners)), make([]float64, 0, 2*len(corners))
	prev := 0.0
	for _, c := range corners {
		s.X, s.Y = append(s.X, c.X, c.X), append(s.Y, prev, c.Y)
		prev = c.Y
	}
	return s
}
