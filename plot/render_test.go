package plot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestNoRenderer: without a registered renderer every drawing function
// returns ErrNoRenderer and creates no file. (This test binary links
// plot/draw through example_test.go, so the renderer is taken away here.)
func TestNoRenderer(t *testing.T) {
	saved := registered
	registered = nil
	t.Cleanup(func() { registered = saved })

	dir := t.TempDir()
	s := Series{X: []float64{1, 2}, Y: []float64{1, 2}}
	pn := Panel{Lines: []Series{s}}
	calls := map[string]func(path string) error{
		"Lines":   func(p string) error { return Lines(p, Figure{}, s) },
		"Scatter": func(p string) error { return Scatter(p, Figure{}, s) },
		"StepCDF": func(p string) error { return StepCDF(p, Figure{}, NamedSamples{Values: []float64{1}}) },
		"Box":     func(p string) error { return Box(p, Figure{}, BoxGroup{Values: []float64{1}}) },
		"Stack":   func(p string) error { return Stack(p, 0, 0, pn) },
		"StackBytes": func(string) error {
			b, err := StackBytes("svg", 0, 0, pn)
			if b != nil {
				t.Errorf("StackBytes gave %d bytes", len(b))
			}
			return err
		},
	}
	for name, call := range calls {
		path := filepath.Join(dir, name+".svg")
		if err := call(path); !errors.Is(err, ErrNoRenderer) {
			t.Errorf("%s: %v, want ErrNoRenderer", name, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s created %s (stat: %v)", name, path, err)
		}
	}
}

// TestRegisterTwicePanics: a second renderer is a programming error.
func TestRegisterTwicePanics(t *testing.T) {
	if registered == nil {
		t.Skip("no renderer linked")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Register did not panic")
		}
	}()
	Register(registered)
}
