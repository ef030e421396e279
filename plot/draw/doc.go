// Package draw is plot's renderer over gonum/plot: linking it (a blank
// import, `import _ "github.com/ckpt-hpc/ckpt/plot/draw"`) registers it
// with package plot, as importing image/png registers the PNG decoder, and
// from then on plot.Lines, plot.Scatter, plot.StepCDF, plot.Box,
// plot.Stack and plot.StackBytes draw. It has no API of its own.
//
// # Why a separate package
//
// Go runs the init of every linked package, and gonum.org/v1/plot's
// (plot.go) parses all the Liberation fonts: a program importing only it
// took 12 ms of CPU to start against 5.3 ms for an empty one (measured
// 2026-11-29 on a 2-core VM, 30 alternated runs; there CPU ≈ page faults ×
// 40 µs). Package plot therefore keeps the data types and the API the
// capabilities call, importing only gonum.org/v1/plot/vg (no fonts parsed,
// no root package), and this package holds everything that needs the root
// package. cmd/ckpt links it in its full build (cmd/ckpt/draw.go, not in
// -tags lite), the reproductions' tests and every test that draws link it
// too; the capability packages never do (held by package layering), so
// that a command that does not draw does not pay for fonts.
//
// The layout, the styles, the legend placement, the data rules and the
// determinism of the output are those package plot documents; the
// complexity is stated there too.
package draw

import "github.com/ckpt-hpc/ckpt/plot"

// renderer is plot.Renderer over gonum/plot.
type renderer struct{}

func init() { plot.Register(renderer{}) }
