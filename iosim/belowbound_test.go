package iosim

import (
	"context"
	"math"
	"strings"
	"testing"
)

// On a platform whose jobs are shorter than their optimal period, the
// printed bound (every job at the longest work, 1.2 w) is above what the
// strategies waste, and the report says why. Oracle: the closed form of
// a job that never checkpoints, f(q/μ (W/2 + R)) with f(x) = x/(1+x), at
// W = 1.2 w (the printed bound) and 0.8 w (the shortest job's).
func TestBelowBoundShortJobs(t *testing.T) {
	sim := Simulation{Source: Source{Config: "testdata/short-jobs.yaml"}, Strategies: []string{"least-waste", "oblivious-daly"},
		Seeds: 20, Seed: 1, Span: 30 * Day, Skip: Day, FixedPeriod: 3600, IOChunk: 3600, Workers: 1, MaxEvents: DefaultMaxEvents}
	rep, err := RunTrials(context.Background(), RunRequest{Simulation: sim})
	if err != nil {
		t.Fatal(err)
	}
	const q, mu, w = 10.0, 10 * Day, 2 * 3600.0
	C := 1 * q * 1e9 / 16.7e6
	if p := math.Sqrt(2 * C * mu / q); !(p > 1.2*w) {
		t.Fatalf("P* = %g: the platform is not one of short jobs", p)
	}
	f := func(W float64) float64 { h := q / mu * (W/2 + C); return h / (1 + h) }
	if b := float64(rep.Bound); math.Abs(b-f(1.2*w)) > 1e-3*b {
		t.Errorf("bound %g, closed form at 1.2 w %g", b, f(1.2*w))
	}
	if len(rep.BelowBound) != 2 {
		t.Fatalf("below bound: %+v (bound %g, strategies %+v)", rep.BelowBound, float64(rep.Bound), rep.Strategies)
	}
	for _, x := range rep.BelowBound {
		if x.Reason != "short-jobs" || math.Abs(x.ShortestJobs-f(0.8*w)) > 1e-3*x.ShortestJobs || !(x.Mean >= x.ShortestJobs) {
			t.Errorf("%+v; want short-jobs with the bound at 0.8 w = %g below the mean", x, f(0.8*w))
		}
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "the bound takes every job at the longest work, 1.2 w") {
		t.Errorf("the text does not say why:\n%s", b.String())
	}
}

// Few trials on a platform of rare failures: a mean below the bound is
// Monte Carlo noise, and the report says so rather than blaming the bound.
func TestBelowBoundNoise(t *testing.T) {
	c := Config{Platform: Platform{Name: "rare", Nodes: 100, MemoryPerNode: 1e9, Bandwidth: 1e10, NodeMTBF: Seconds(20 * Year)},
		Classes: []Class{{Name: "W", Nodes: 10, Walltime: 2 * 3600, Checkpoint: 1, Share: 1}}}
	r := RunReport{Nodes: 100, Seeds: 10, Window: 28 * Day, NodeMTBF: 20 * Year, BaselineBusy: 1,
		Strategies: []StrategySummary{{Name: "x"}}}
	b, err := BoundWaste(c)
	if err != nil {
		t.Fatal(err)
	}
	r.Bound = b
	r.Strategies[0].Waste.Mean = float64(b) / 5
	// 3.84 failures expected over the 10 trials: the mean is known to ±51%.
	got := belowBound(c, r, [][]float64{{0, 0, 0, 0, 0, 0, 0, 0, 0, float64(b) * 2}})
	if len(got) != 1 || got[0].Reason != "noise" || math.Abs(got[0].Failures-3.836) > 0.01 {
		t.Errorf("%+v", got)
	}
	// The same mean over 10000 trials is no longer noise.
	r.Seeds = 10000
	if got := belowBound(c, r, [][]float64{{0, 0}}); len(got) != 1 || got[0].Reason == "noise" {
		t.Errorf("%+v", got)
	}
}
