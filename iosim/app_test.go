package iosim

import (
	"context"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// quickSim is a small simulation request: 2 trials of 3 days.
func quickSim() Simulation {
	return Simulation{Strategies: []string{"least-waste", "ordered-nb-daly"}, Seeds: 2, Seed: 7, Span: 3 * Day, Skip: Day / 2,
		FixedPeriod: 3600, IOChunk: 3600, Workers: 1, MaxEvents: DefaultMaxEvents}
}

// Validate names the field of every refusal, as a usage error, without
// simulating.
func TestRequestsValidateNameTheField(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		field string
		edit  func(*RunRequest)
	}{
		{"seeds", func(r *RunRequest) { r.Seeds = 0 }},
		{"span", func(r *RunRequest) { r.Span = math.Inf(1) }},
		{"span", func(r *RunRequest) { r.Span, r.Skip = 1.5, 0.5 }},
		{"skip", func(r *RunRequest) { r.Skip = -1 }},
		{"io-chunk", func(r *RunRequest) { r.IOChunk = 5e-324 }},
		{"bandwidth", func(r *RunRequest) { r.Bandwidth = f(1e308) }},
		{"bandwidth", func(r *RunRequest) { r.Bandwidth = f(0) }},
		{"mtbf", func(r *RunRequest) { r.NodeMTBF = f(-1) }},
		{"platform", func(r *RunRequest) { r.Platform = "mars" }},
		{"platform", func(r *RunRequest) { r.Platform, r.Config = "cielo", "x.yaml" }},
		{"strategies", func(r *RunRequest) { r.Strategies = []string{"nope"} }},
		{"scheduler", func(r *RunRequest) { r.Scheduler = "fifo" }},
		{"timeline", func(r *RunRequest) { r.Timeline = "5d" }},
	} {
		r := RunRequest{Simulation: quickSim()}
		c.edit(&r)
		err := r.Validate()
		var ue *usage.Error
		if !usage.Is(err) || !errorsAs(err, &ue) || ue.Field != c.field {
			t.Errorf("%s: %v", c.field, err)
		}
	}
	if err := (RunRequest{Simulation: quickSim()}).Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (BoundRequest{Source: Source{Platform: "nope"}}).Validate(); !usage.Is(err) {
		t.Errorf("bound: %v", err)
	}
	if err := (SweepRequest{Simulation: quickSim(), Vary: "colour", Values: "1"}).Validate(); !usage.Is(err) || !strings.HasPrefix(err.Error(), "vary: ") {
		t.Errorf("sweep: %v", err)
	}
	bf := BandwidthForRequest{Simulation: quickSim(), Strategy: "least-waste", Efficiency: 0.8, Lo: 1e9, Hi: 1e12, Tolerance: 0.1}
	if err := bf.Validate(); !usage.Is(err) || !strings.HasPrefix(err.Error(), "strategies: ") {
		t.Errorf("bandwidth-for with strategies: %v", err)
	}
}

// A sweep refuses the swept parameter's fixed override, for every
// parameter (SweepParams): --vary bandwidth --bandwidth 80GB/s ran the
// values and silently dropped the 80GB/s.
func TestSweepRefusesFixedSweptParam(t *testing.T) {
	bw, mtbf := 80e9, 3*365*Day
	vals := map[string]string{"bandwidth": "40GB/s,60GB/s", "mtbf": "2y,5y"}
	for _, p := range SweepParams {
		sim := quickSim()
		sim.Bandwidth, sim.NodeMTBF = &bw, &mtbf
		err := (SweepRequest{Simulation: sim, Vary: p, Values: vals[p]}).Validate()
		var ue *usage.Error
		if !errorsAs(err, &ue) || ue.Field != p || !strings.Contains(err.Error(), "given with vary "+p) {
			t.Errorf("%s: %v", p, err)
		}
	}
	sim := quickSim()
	sim.NodeMTBF = &mtbf
	if err := (SweepRequest{Simulation: sim, Vary: "bandwidth", Values: vals["bandwidth"]}).Validate(); err != nil {
		t.Errorf("the other parameter fixed: %v", err)
	}
}

func errorsAs(err error, ue **usage.Error) bool {
	e, ok := err.(*usage.Error)
	*ue = e
	return ok
}

// RunTrials is Sweep on one point summarised by Report: the same numbers
// through the old path. Its timelines are those of the first trial's seed.
func TestRunTrialsIsSweepAndReport(t *testing.T) {
	r := RunRequest{Simulation: quickSim(), Timeline: "6h"}
	rep, err := RunTrials(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	c, opt, sts, err := r.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Sweep(context.Background(), []SweepPoint{{Param: "bandwidth", Value: float64(c.Platform.Bandwidth), Config: c}}, sts, 2, opt,
		runner.Options{Seed: 7, Workers: 1, Progress: runner.ProgressOff}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Report(c, rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Strategies, want.Strategies) || rep.BaselineBusy != want.BaselineBusy || rep.Bound != want.Bound {
		t.Fatalf("RunTrials differs from Sweep + Report")
	}
	o := opt
	o.Seed = TrialSeed(7, 0)
	tls, err := Timelines(context.Background(), &c, sts, o, Day/2, Day/2+6*3600)
	if err != nil || !reflect.DeepEqual(tls, rep.Timelines) || len(tls) != 2 {
		t.Fatalf("timelines: %v", err)
	}
	if err := rep.WriteText(io.Discard); err != nil {
		t.Fatal(err)
	}
}

// The bound refuses an MTBF at which Eq. (8) overflows instead of +Inf.
func TestRunBoundRefusesOverflow(t *testing.T) {
	for _, mu := range []float64{1e304, 1e308} {
		_, err := RunBound(context.Background(), BoundRequest{Source: Source{NodeMTBF: &mu}})
		if !usage.Is(err) || !strings.HasPrefix(err.Error(), "mtbf: ") {
			t.Errorf("mtbf %g: %v", mu, err)
		}
	}
	mu := 1e290
	rep, err := RunBound(context.Background(), BoundRequest{Source: Source{NodeMTBF: &mu}})
	if err != nil || !(float64(rep.Waste) >= 0 && float64(rep.Waste) < 1e-100) {
		t.Fatalf("mtbf 1e290: %v %v", rep.Waste, err)
	}
}

// A config with trailing data or a second document is refused.
func TestLoadNamedRefusesTrailingData(t *testing.T) {
	good := "platform: {nodes: 100, memory_per_node: 1e9, bandwidth: 20GB/s, node_mtbf: 5y}\nclasses:\n  - {name: a, nodes: 10, walltime: 24h, checkpoint: 1, share: 1}\n"
	if _, err := LoadNamed(strings.NewReader(good+"# a comment\n"), "c.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{good + "---\n" + good, good + "]junk\n", `{"platform": {}} junk`} {
		if _, err := LoadNamed(strings.NewReader(bad), "c.yaml"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
