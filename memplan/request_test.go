package memplan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/usage"
)

// TestRequestValidateNamesTheField: every field out of range is a
// usage.Error naming that field; the numeric ones carry an *OptionError.
func TestRequestValidateNamesTheField(t *testing.T) {
	neg, inf, big := -1.0, math.Inf(1), 2e10
	for _, c := range []struct {
		field  string
		change func(*Request)
		option bool
	}{
		{"Profile", func(r *Request) { r.Profile = "" }, false},
		{"Tasks", func(r *Request) { r.Tasks = "runs" }, false},
		{"Fit", func(r *Request) { r.Fit = "gamma" }, false},
		{"Phases", func(r *Request) { r.Phases = 3 }, false},
		{"Strategy", func(r *Request) { r.Strategy = "nope" }, false},
		{"N", func(r *Request) { r.N = 1 }, true},
		{"N", func(r *Request) { r.N = 50001 }, true},
		{"TailMass", func(r *Request) { r.TailMass = 0 }, true},
		{"CkptTau", func(r *Request) { r.CkptTau = 1 }, true},
		{"MemTau", func(r *Request) { r.MemTau = math.NaN() }, true},
		{"V2Eps", func(r *Request) { r.V2Eps = 0 }, true},
		{"MemMargin", func(r *Request) { r.MemMargin = 1e300 }, true},
		{"RestartS", func(r *Request) { r.RestartS = &big }, true},
		{"CkptLatencyS", func(r *Request) { r.CkptLatencyS = &neg }, true},
		{"CkptBandwidthGBps", func(r *Request) { r.CkptBandwidthGBps = &inf }, true},
	} {
		r := DefaultRequest()
		r.Profile = "slant"
		c.change(&r)
		err := r.Validate()
		var ue *usage.Error
		var oe *OptionError
		switch {
		case !errors.As(err, &ue) || ue.Field != c.field:
			t.Errorf("%s: %v, want a usage.Error naming %s", c.field, err, c.field)
		case errors.As(err, &oe) != c.option:
			t.Errorf("%s: %v: *OptionError %v, want %v", c.field, err, !c.option, c.option)
		}
	}
	r := DefaultRequest()
	r.Profile = "slant"
	if err := r.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	r.Profile, r.Tasks, r.Fit = "", "runs", "auto"
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "Fit: auto: choosing a family") {
		t.Errorf("Tasks with Fit auto: %v", err)
	}
	r.Fit = "bogus"
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), `Fit: "bogus" is not one of normal, `) {
		t.Errorf("Tasks with Fit bogus: %v", err)
	}
	r.Fit = "gamma"
	if err := r.Validate(); err != nil {
		t.Errorf("Tasks with Fit gamma: %v", err)
	}
}

// TestRunMatchesPlanApp: Run reports the plan PlanApp makes with the
// paper's options for SLANT (an independent path through the package), and
// the request's overrides reach it.
func TestRunMatchesPlanApp(t *testing.T) {
	r := DefaultRequest()
	r.Profile = "slant"
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	app, _ := profile.Builtin("slant")
	o := DefaultAppPlanOptions(app)
	o.MemTau = r.MemTau
	ps, err := PlanApp(context.Background(), app, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	want := ps.Plans[StrategyMemAllCkpt]
	if rep.Algorithm != StrategyMemAllCkpt || rep.ExpectedReservationTime != want.ExpectedTime || len(rep.Reservations) != len(want.Reservations) {
		t.Fatalf("report %s %v (%d reservations), PlanApp %v (%d)", rep.Algorithm, rep.ExpectedReservationTime, len(rep.Reservations), want.ExpectedTime, len(want.Reservations))
	}
	if len(rep.Others) != 2 || rep.Restart != o.Restart || rep.Reservations[0].SbatchMem != "47684M" {
		t.Errorf("others %+v, restart %v (want %v), first --mem %s", rep.Others, rep.Restart, o.Restart, rep.Reservations[0].SbatchMem)
	}
	lat, bw, rs := 10.0, 0.5, 120.0
	r.CkptLatencyS, r.CkptBandwidthGBps, r.RestartS, r.Others = &lat, &bw, &rs, false
	rep, err = Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CheckpointCost != "10 s + V / 0.5 GB/s" || rep.Restart != 120 || rep.Others != nil {
		t.Errorf("overrides: checkpoint %q, restart %v, others %v", rep.CheckpointCost, rep.Restart, rep.Others)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil || !strings.Contains(b.String(), "restart R = 2m00s") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

// TestRunInputErrors: a missing file, a strategy the model cannot have and a
// profile the parser refuses are usage errors.
func TestRunInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "p.yaml")
	os.WriteFile(bad, []byte("tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 1e308\n"), 0o644)
	for _, c := range []struct {
		change func(*Request)
		want   string
	}{
		{func(r *Request) { r.Profile = filepath.Join(dir, "none.yaml") }, "none.yaml: no such file"},
		{func(r *Request) { r.Profile = bad }, "p.yaml:3: task 1: mem 1e308 GB exceeds"},
		{func(r *Request) { r.Tasks = filepath.Join(dir, "none") }, "no such file"},
		{func(r *Request) { r.Profile = "slant"; r.TransferRuns = filepath.Join(dir, "none.csv") }, "none.csv: no such file"},
		{func(r *Request) { r.Profile = "slant"; r.Strategy = StrategyNeuro }, "Strategy: neuro needs past runs"},
		{func(r *Request) { r.Profile = "macruise"; r.Strategy = StrategyMemAllCkptV2 }, "Strategy: mem-all-ckpt-v2 is not defined for macruise"},
	} {
		r := DefaultRequest()
		c.change(&r)
		_, err := Run(context.Background(), r)
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error containing %q", r, err, c.want)
		}
	}
}

// TestRunStopsWithItsContext: a plan of MaxTasks tasks takes seconds; a
// context ended after 50 ms stops it well before, with the context's error
// (not a usage error). The bound is generous for a loaded machine.
func TestRunStopsWithItsContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("tasks:\n")
	for i := range profile.MaxTasks {
		fmt.Fprintf(&b, "  - walltime: normal:mu=%d,sigma=%d\n    mem: %d\n", 100+i%50, 10+i%7, 1+i%13)
	}
	p := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := DefaultRequest()
	r.Profile = p
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, r)
	if !errors.Is(err, context.DeadlineExceeded) || usage.Is(err) {
		t.Fatalf("Run: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopped after %v", d)
	}
}

// TestMemAllCkptStopsWithItsContext: the O(n²) DPs return the context's
// error once it has ended, and plan with a live one.
func TestMemAllCkptStopsWithItsContext(t *testing.T) {
	n := 500
	m := MemLaw{Values: make([]float64, n), Probs: make([]float64, n), Ckpt: make([]float64, n), Mem: make([]float64, n), Restart: 60}
	for i := range n {
		m.Values[i], m.Probs[i], m.Ckpt[i] = float64(i+1), 1/float64(n), 30
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MemAllCkpt(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("MemAllCkpt: %v, want context.Canceled", err)
	}
	if _, err := MemAllCkptV2(ctx, m, 10, 0, -1); !errors.Is(err, context.Canceled) {
		t.Errorf("MemAllCkptV2: %v, want context.Canceled", err)
	}
	if p, err := MemAllCkpt(context.Background(), m); err != nil || len(p.Reservations) == 0 {
		t.Errorf("live context: %v", err)
	}
}

// TestProfileBoundsAreThePlanners: profile caps a file's durations with its
// own constant (it cannot import reservation); it must be the planner's.
func TestProfileBoundsAreThePlanners(t *testing.T) {
	if profile.MaxSeconds != reservation.MaxWalltime {
		t.Errorf("profile.MaxSeconds %g, reservation.MaxWalltime %g", profile.MaxSeconds, reservation.MaxWalltime)
	}
}
