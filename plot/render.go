package plot

import (
	"errors"

	"gonum.org/v1/plot/vg"
)

// Renderer draws the figures: one method per drawing function of this
// package, taking its arguments as they were given. Package plot/draw
// provides the renderer over gonum/plot and registers it when linked.
type Renderer interface {
	Lines(path string, fig Figure, series []Series) error
	Scatter(path string, fig Figure, series []Series) error
	StepCDF(path string, fig Figure, samples []NamedSamples) error
	Box(path string, fig Figure, groups []BoxGroup) error
	Stack(path string, width, height vg.Length, panels []Panel) error
	StackBytes(format string, width, height vg.Length, panels []Panel) ([]byte, error)
}

// ErrNoRenderer is what every drawing function returns, before touching
// any file, in a program that does not link package plot/draw (such as
// ckpt built with -tags lite, which hands --plot and --html to ckpt-full).
var ErrNoRenderer = errors.New(`plot: no renderer linked: import _ "github.com/ckpt-hpc/ckpt/plot/draw" (the lite ckpt hands drawing to ckpt-full)`)

var registered Renderer

// Register makes r the renderer of every drawing function. It is called
// from the init of the package providing r (plot/draw), as image/png
// registers its format; a second call, or a nil r, panics.
func Register(r Renderer) {
	if r == nil {
		panic("plot: Register of a nil renderer")
	}
	if registered != nil {
		panic("plot: Register called twice")
	}
	registered = r
}

// renderer returns the registered renderer, or ErrNoRenderer.
func renderer() (Renderer, error) {
	if registered == nil {
		return nil, ErrNoRenderer
	}
	return registered, nil
}
