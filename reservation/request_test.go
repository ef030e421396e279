package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// fieldOf returns the Field of a usage error, "" for another error.
func fieldOf(err error) string {
	var ue *usage.Error
	if errors.As(err, &ue) {
		return ue.Field
	}
	return ""
}

func TestDefaultRequestIsValid(t *testing.T) {
	if err := DefaultRequest().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Validate names the field out of range, as a usage error.
func TestRequestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Request)
	}{
		{"Costs.Alpha", func(r *Request) { r.Costs.Alpha = 0 }},
		{"Costs.Beta", func(r *Request) { r.Costs.Beta = -1 }},
		{"Costs.Gamma", func(r *Request) { r.Costs.Gamma = math.Inf(1) }},
		{"Costs.C", func(r *Request) { r.Costs.C = 2 * MaxWalltime }},
		{"Costs.R", func(r *Request) { r.Costs.R = math.NaN() }},
		{"Epsilon", func(r *Request) { r.Epsilon = 0 }},
		{"Epsilon", func(r *Request) { r.Epsilon = math.Inf(1) }},
		{"N", func(r *Request) { r.N = MaxGridPoints + 1 }},
		{"N", func(r *Request) { r.N = -1 }},
		{"MaxN", func(r *Request) { r.MaxN = 0 }},
		{"MaxTau", func(r *Request) { r.MaxTau = MaxTauLimit + 1 }},
		{"TailMass", func(r *Request) { r.TailMass = 1 }},
		{"Algorithm", func(r *Request) { r.Algorithm = "dp" }},
		{"Algorithm", func(r *Request) { r.Algorithm = AlgoNoCkpt; r.Evaluate = Strategy{{Milestone: 10}} }},
		{"Evaluate", func(r *Request) { r.Evaluate = Strategy{{Milestone: 10}, {Milestone: 5}} }},
		{"Walltime", func(r *Request) { r.Walltime = LawSpec(" ") }},
	} {
		r := DefaultRequest()
		tc.edit(&r)
		err := r.Validate()
		if got := fieldOf(err); got != tc.field || !usage.Is(err) {
			t.Errorf("want field %s, got %q (%v)", tc.field, got, err)
		}
		if _, err := Run(context.Background(), r); fieldOf(err) != tc.field {
			t.Errorf("Run: want field %s, got %v", tc.field, err)
		}
	}
}

// Run is PlanContext on the loaded law, with the report's fields read off
// the result.
func TestRunIsPlanContextOnTheLaw(t *testing.T) {
	r := DefaultRequest()
	r.Walltime, r.N = LawSpec("uniform:a=1h,b=10h"), 400
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := PlanContext(context.Background(), distribution.Uniform{A: 3600, B: 36000}, r.Options())
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExpectedCost != want.ExpectedCost || len(rep.Reservations) != len(want.Reservations) || rep.N != 400 {
		t.Fatalf("Run: cost %v with %d reservations, PlanContext: %v with %d", rep.ExpectedCost, len(rep.Reservations), want.ExpectedCost, len(want.Reservations))
	}
	for i, rv := range rep.Reservations {
		if rv.Index != i+1 || rv.Length != want.Reservations[i].Length || rv.Milestone != want.Reservations[i].Milestone {
			t.Errorf("reservation %d: %+v, want %+v", i+1, rv, want.Reservations[i])
		}
	}
	if rep.Law.Spec != "uniform:a=3600,b=36000" || rep.Law.History != "" || *rep.Law.Mean != 19800 {
		t.Errorf("law %+v", rep.Law)
	}
	if rep.Epsilon == nil || *rep.Epsilon != want.Epsilon || rep.LowerBound == nil || len(rep.BaselineDetails) != len(want.Baselines) {
		t.Errorf("report %+v", rep)
	}
	var text strings.Builder
	if err := rep.WriteText(&text, false); err != nil || !strings.Contains(text.String(), "walltime law: uniform:a=3600,b=36000") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
}

// The JSON keys are the plan's schema; renaming one breaks every script
// that reads it.
func TestReportJSONKeys(t *testing.T) {
	r := DefaultRequest()
	r.N = 300
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"algorithm", "baseline_details", "baselines", "costs", "epsilon", "expected_cost", "law", "lower_bound",
		"n", "omniscient_cost", "reservations", "support_s", "tail_mass"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	// The nested objects: every duration ends in _s (issue 21).
	for _, c := range []struct {
		raw  json.RawMessage
		want []string
	}{
		{m["costs"], []string{"alpha", "beta", "checkpoint_s", "gamma", "restart_s"}},
		{m["law"], []string{"mean_s", "median_s", "spec"}},
		{firstOf(t, m["reservations"]), []string{"checkpoint", "checkpoint_time_s", "index", "length_s", "milestone_s", "prob_needed", "restart_s", "saved_s", "slurm_time", "work_s"}},
	} {
		if got := keysOf(t, c.raw); !slices.Equal(got, c.want) {
			t.Errorf("keys %v, want %v", got, c.want)
		}
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// firstOf returns the first element of a JSON array.
func firstOf(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || len(a) == 0 {
		t.Fatalf("want a non-empty array: %v", err)
	}
	return a[0]
}

// An evaluated plan is priced, not optimised, and a discrete law refuses
// a grid size.
func TestRunEvaluateAndDiscreteLaw(t *testing.T) {
	r := DefaultRequest()
	r.Walltime = LawSpec("discrete:1h@0.5,3h@0.5")
	r.Evaluate = Strategy{{Milestone: 3600, Checkpoint: true}, {Milestone: 3 * 3600}}
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Costs
	// Theorem 1 by hand: W1 = 3600 + C always; W2 = R + 7200 with prob. 1/2.
	want := c.Alpha*(3600+c.C) + 0.5*c.Alpha*(c.R+7200)
	if rep.Algorithm != "given" || math.Abs(rep.ExpectedCost-want) > 1e-9*want {
		t.Errorf("evaluate: %s costs %v, want %v", rep.Algorithm, rep.ExpectedCost, want)
	}
	r.Evaluate, r.N = nil, 100
	if _, err := Run(context.Background(), r); fieldOf(err) != "N" || !strings.Contains(err.Error(), "discrete") {
		t.Errorf("N on a discrete law: %v", err)
	}
}

// A cancelled context stops Run with ctx.Err(), not a usage error.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := DefaultRequest()
	r.N = 20000
	if _, err := Run(ctx, r); !errors.Is(err, context.Canceled) || usage.Is(err) {
		t.Errorf("got %v", err)
	}
}

// FromHistory keeps the complete runs for the baselines, names the
// Kaplan-Meier estimate, and warns about skipped sacct jobs.
func TestFromHistory(t *testing.T) {
	walltimes := []float64{100, 200, 300, 400}
	censored := []bool{false, true, false, false}
	fit, err := distribution.FitHistoryCensored(walltimes, censored, "empirical")
	if err != nil {
		t.Fatal(err)
	}
	w := FromHistory(LearnedHistory{Name: "runs", Walltimes: walltimes, Censored: censored, Method: "empirical", Fit: fit,
		Sacct: &SacctCounts{Complete: 3, Censored: 1, Skipped: map[string]int{"state FAILED": 2}}})
	if !slices.Equal(w.History, []float64{100, 300, 400}) {
		t.Errorf("history %v", w.History)
	}
	if !strings.HasPrefix(w.Source.Spec, "Kaplan-Meier estimate of 4 runs, 1 censored") || w.Source.Runs != 4 || w.Source.KS != nil {
		t.Errorf("source %+v", w.Source)
	}
	if len(w.Warnings) != 1 || w.Warnings[0] != "runs: skipped 2 state FAILED" {
		t.Errorf("warnings %q", w.Warnings)
	}
	if err := CheckWalltimes("runs", []float64{1, 2 * MaxWalltime}); !usage.Is(err) || !strings.Contains(err.Error(), "2e+10") {
		t.Errorf("CheckWalltimes: %v", err)
	}
}

// A sweep prices each point as PlanContext does, in point order.
func TestSweepRowsArePlans(t *testing.T) {
	s := SweepRequest{Request: DefaultRequest(), Ckpts: []float64{60, 600}, Epsilons: []float64{1, 2}}
	s.Walltime, s.MaxN = LawSpec("uniform:a=1h,b=5h"), 300
	sw, err := NewSweep(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var rows []runner.Result[SweepRow]
	if err := sw.Run(context.Background(), runner.Options{Workers: 2}, runner.Collect(&rows)); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, p := range s.Points() {
		o := s.at(p).Options()
		want, err := PlanContext(context.Background(), distribution.Uniform{A: 3600, B: 5 * 3600}, o)
		if err != nil {
			t.Fatal(err)
		}
		got := rows[i].Value
		if got.Point != p || got.ByName[AlgoDynProgCount] != want.ExpectedCost || p.R != p.C {
			t.Errorf("point %+v: %v, want %v", p, got.ByName[AlgoDynProgCount], want.ExpectedCost)
		}
	}
	s.Ckpts = nil
	if _, err := NewSweep(context.Background(), s); fieldOf(err) != "Ckpts" {
		t.Errorf("empty grid: %v", err)
	}
	s.Ckpts, s.Epsilons = []float64{60}, []float64{1, -1}
	if _, err := NewSweep(context.Background(), s); fieldOf(err) != "Epsilon" {
		t.Errorf("bad epsilon: %v", err)
	}
}
