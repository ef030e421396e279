package iosim

import (
	"io"
	"strings"
	"testing"
)

// A --config replaces the default platform unless --platform is given, and
// a config on stdin is read once and can be read again by Validate and Run.
func TestWithInputPlatformAndStdin(t *testing.T) {
	s := Simulation{Source: Source{Config: "-", Platform: "cielo"}}
	got, err := s.WithInput(io.MultiReader(strings.NewReader("platform: x")), false) // no Seek
	if err != nil || got.Platform != "" {
		t.Fatalf("WithInput(not given) = platform %q, %v; want none", got.Platform, err)
	}
	sk, ok := got.Stdin.(io.ReadSeeker)
	if !ok {
		t.Fatalf("stdin is a %T, want it buffered", got.Stdin)
	}
	for range 2 { // Validate, then Run
		b, _ := io.ReadAll(sk)
		if string(b) != "platform: x" {
			t.Fatalf("stdin reads %q, want the config", b)
		}
		if _, err := sk.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.WithInput(strings.NewReader(""), true); got.Platform != "cielo" {
		t.Errorf("WithInput(given) = platform %q, want cielo", got.Platform)
	}
	if got, _ := (Simulation{Source: Source{Platform: "cielo"}}).WithInput(nil, false); got.Platform != "cielo" {
		t.Errorf("without a config the platform stays, got %q", got.Platform)
	}
}
