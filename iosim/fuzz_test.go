package iosim

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const smallYAML = `platform: {name: s, nodes: 64, memory_per_node: 1GB, bandwidth: 100MB/s, node_mtbf: 40d}
classes:
  - {name: A, nodes: 16, walltime: "10:00:00", input: 0.2, output: 0.5, checkpoint: 1, share: 0.5}
  - {name: B, nodes: 8, walltime: 5h, input: 0.1, output: 0.3, checkpoint: 0.5, regular_io: 2, share: 0.5}
`

// A loaded config goes through the bound and a short simulation: the
// bound is finite or refused with an error, and every strategy's waste is
// at most 1 (or the run is refused: no progress, too many events, too many
// jobs). Errors are one line.
func FuzzConfigBoundSimulate(f *testing.F) {
	f.Add(cieloYAML)
	f.Add(smallYAML)
	f.Add(strings.Replace(smallYAML, "node_mtbf: 40d", "node_mtbf: 1h", 1))
	f.Add(strings.Replace(smallYAML, "bandwidth: 100MB/s", "bandwidth: 1B/s", 1))
	f.Add(strings.Replace(smallYAML, "nodes: 64", "nodes: 64.5", 1))
	f.Add(`{"platform": {"nodes": 10, "memory_per_node": 1, "bandwidth": "1GB/s", "node_mtbf": "00:10:00"}, "classes": [{"name": "x", "nodes": 10, "walltime": 60, "checkpoint": 1, "share": 1}]}`)
	sts := []Strategy{obliviousDaly(3600), orderedFixed(3600), leastWaste(3600)}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Load(strings.NewReader(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("loaded config fails validation: %v", err)
		}
		if c.Platform.Name == "" {
			t.Fatal("loaded config has no name")
		}
		if b, err := c.LowerBound(BoundOptions{}); err == nil && (math.IsNaN(b.Waste) || math.IsInf(b.Waste, 0) || b.Waste < 0) {
			t.Fatalf("bound waste %v without an error", b.Waste)
		}
		if c.Platform.Nodes > 4096 {
			return // a short simulation stays short on small platforms only
		}
		span := 2 * Day
		out, err := Trial(c, sts, Options{Span: span, MaxEvents: 50_000, Seed: 1})
		if err != nil {
			var np *NoProgressError
			if !errors.As(err, &np) && !errors.Is(err, ErrTooManyEvents) && !strings.Contains(err.Error(), "jobs") {
				t.Fatalf("unexpected refusal: %v", err)
			}
			return
		}
		if !(out.Baseline.Split.Useful() > 0) {
			return // nothing useful in the window (e.g. one long input read): waste undefined
		}
		for i, w := range out.Waste {
			if !(w <= 1+1e-9) || math.IsNaN(w) {
				t.Fatalf("%s: waste %v", sts[i].Name, w)
			}
		}
	})
}
