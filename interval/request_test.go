package interval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Validate names the bad field, as a usage error, and reads no file.
func TestRequestValidateNamesTheField(t *testing.T) {
	ey := 2.0
	ok := Request{Te: 100, C: 1, Failures: FailureSource{ExpectedFailures: &ey}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	neg := -1.0
	for field, edit := range map[string]func(*Request){
		"te_s":                       func(r *Request) { r.Te = 0 },
		"c_s":                        func(r *Request) { r.C = 2 * MaxDuration },
		"r_s":                        func(r *Request) { r.R = &neg },
		"memory_mb":                  func(r *Request) { r.MemoryMB = math.Inf(1) },
		"blcr":                       func(r *Request) { r.BLCR = "dir" },
		"failures.expected_failures": func(r *Request) { r.Failures.ExpectedFailures = &neg },
		"failures.mtbf_s":            func(r *Request) { r.Failures.MTBF = math.NaN() },
		"failures.gloudsim":          func(r *Request) { r.Failures.GloudSim = "x.dat" },
		"failures.nodes":             func(r *Request) { r.Failures.Nodes = 3 },
		"failures.dist":              func(r *Request) { r.Failures.Dist, r.Failures.MTBF = "exponential:rate=1", 60 },
		"failures.lanl":              func(r *Request) { r.Failures.LANL, r.Failures.MTBF = "x.csv", 60 },
		"failures":                   func(r *Request) { r.Failures = FailureSource{LANL: "a", FTA: "b", Nodes: 1} },
	} {
		r := ok
		edit(&r)
		err := r.Validate()
		if err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), field+": ") {
			t.Errorf("%s: error %v, want a usage error naming the field", field, err)
		}
	}
}

// Run's report is Advise's plan, with the JSON keys of `ckpt interval
// --json`, and the text renders its numbers.
func TestRunGivenFailures(t *testing.T) {
	ey := 2.0
	rep, err := Run(context.Background(), Request{Te: 18, C: 2, Failures: FailureSource{ExpectedFailures: &ey}})
	if err != nil {
		t.Fatal(err)
	}
	// Theorem 1 by hand: x* = √(Te·E(Y)/2C) = 3, E(Tw) = 18 + 2·2 + 18·2/6 = 28.
	if rep.MNOF.Intervals != 3 || rep.MNOF.ExpectedWallclock != 28 || rep.MTBF != 9 || rep.R != 0 || rep.Source != "given" {
		t.Errorf("report %+v", rep)
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(rep); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"te_s":18`, `"mtbf_s":9`, `"expected_wallclock_eq4_s":28`, `"mnof":{"intervals":3`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s: %s", key, b.String())
		}
	}
	b.Reset()
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "mnof          3            2           6                 28") {
		t.Errorf("text (%v):\n%s", err, b.String())
	}
}

// A plan whose E(Tw) overflows is refused, naming the field and the values.
func TestRunRefusesInfinitePlan(t *testing.T) {
	ey := 1e308
	_, err := Run(context.Background(), Request{Te: 100, C: 1, Failures: FailureSource{ExpectedFailures: &ey}})
	if err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), "failures.expected_failures: no finite plan for Te = 100 s, C = 1 s, E(Y) = 1e+308") {
		t.Errorf("error %v", err)
	}
}

// A plan of MaxIntervals intervals or more, or whose exact expectation
// overflows, is refused naming the failures' field: MTBF 1e-300 s gave
// 2⁵³ intervals of 2e-150 s (not 18 s in all), a 300-digit overhead and
// "Eq. (4) is NaN% off"; MTBF 1e-3 s with C = 2 s an exact +Inf. Theorem
// 1's limit: x* = √(Te·E(Y)/(2C)) < 2⁵³.
func TestRunRefusesUncountablePlan(t *testing.T) {
	for _, c := range []struct {
		mtbf float64
		want string
	}{
		{1e-300, "the young plan needs 9007199254740992 intervals or more"},
		{1e-3, "the young plan's exact expected wall-clock time overflows (+Inf)"},
	} {
		_, err := Run(context.Background(), Request{Te: 18, C: 2, Failures: FailureSource{MTBF: c.mtbf}})
		if err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), "failures.mtbf_s: no finite plan for Te = 18 s, C = 2 s") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("MTBF %v: %v", c.mtbf, err)
		}
	}
	// One method's exact expectation overflows, the others' do not: the
	// report stands, that method's exact columns +Inf with a note saying
	// so (it was refused whole; before that, "NaN% off").
	ey, r := 2.0, 1.0
	rep, err := Run(context.Background(), Request{Te: 200, C: 1e5, R: &r, Failures: FailureSource{ExpectedFailures: &ey}})
	// Young: one interval of 200 s at MTBF 100 s and R = 1 s, replay
	// (MTBF + R)·(e^{200/100} − 1).
	if err != nil || rep.Young.Intervals != 1 || math.Abs(float64(rep.Young.ExactReplay)/(101*math.Expm1(2))-1) > 1e-12 || !math.IsInf(float64(rep.Daly.ExactExponential), 1) {
		t.Fatalf("one method overflowing: %+v, %v", rep, err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "note: for daly, the exact expectation overflows (exact exp. +Inf s, exact replay +Inf s)") || strings.Contains(b.String(), "NaN") {
		t.Errorf("text (%v):\n%s", err, b.String())
	}
	// Below the limit, exact expectation finite: x*² = Te²/(2·C·MTBF) =
	// 2¹⁰⁰, so x* = 2⁵⁰ intervals, (P+C)/MTBF about 0.25.
	te, c := 1e10, 1e-6
	mtbf := te * te / (2 * c * math.Ldexp(1, 100))
	rep, err = Run(context.Background(), Request{Te: te, C: c, Failures: FailureSource{MTBF: mtbf}})
	if err != nil || math.Abs(float64(rep.MNOF.Intervals)/math.Ldexp(1, 50)-1) > 1e-9 {
		t.Errorf("below the limit: %+v, %v", rep, err)
	}
}

// The storage costs replace a missing C and R; the choice is Section
// 4.2.2's (TestPlanStorage checks the numbers).
func TestRunStorages(t *testing.T) {
	ey := 2.0
	rep, err := Run(context.Background(), Request{Te: 200, Failures: FailureSource{ExpectedFailures: &ey},
		Storages: []Storage{{Name: "local", C: 0.632, R: 3.22}, {Name: "shared", C: 1.67, R: 1.45}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.StorageChoice != "local" || rep.C != 0.632 || rep.R != 3.22 || len(rep.Storage) != 2 {
		t.Errorf("report %+v", rep)
	}
}

// Each source loads itself: a replay list, a law spec, an MTBF, E(Y).
func TestFailureSourceLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times.txt")
	if err := os.WriteFile(path, []byte("# failures\n10\n30\n1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := FailureSource{FailureTimes: path}.Load(100, false)
	if err != nil || len(f.Replay) != 3 || f.MTBF != 20 || f.Law != nil {
		t.Errorf("replay: %+v, %v", f, err)
	}
	f, err = FailureSource{Dist: "weibull:k=0.7,lambda=6h"}.Load(100, false)
	if w, ok := f.Law.(distribution.Weibull); err != nil || !ok || w.K != 0.7 || f.MTBF != w.Mean() || !math.IsNaN(f.EY) {
		t.Errorf("dist: %+v, %v", f, err)
	}
	f, err = FailureSource{MTBF: 50}.Load(100, false)
	if e, ok := f.Law.(distribution.Exponential); err != nil || !ok || e.Rate != 0.02 || f.MTBF != 50 || !math.IsNaN(f.EY) {
		t.Errorf("mtbf: %+v, %v", f, err)
	}
	ey := 4.0
	f, err = FailureSource{ExpectedFailures: &ey}.Load(100, false)
	if e, ok := f.Law.(distribution.Exponential); err != nil || !ok || e.Rate != 0.04 || f.EY != 4 || !math.IsNaN(f.MTBF) {
		t.Errorf("E(Y): %+v, %v", f, err)
	}
	if _, err := (FailureSource{LANL: filepath.Join(t.TempDir(), "missing.csv"), System: 2}).Load(100, false); err == nil || !usage.Is(err) {
		t.Errorf("missing file: %v, want a usage error", err)
	}
}

// FTA: E(Y) = nodes·Te/node MTBF; the fits are FitFTA's. Regression pin:
// the Weibull (shape below 1: decreasing hazard) has the best AIC, as the
// Failure Trace Archive paper reports for Grid'5000.
func TestFailureSourceFTA(t *testing.T) {
	dir := datadirtest.ForTest(t, "failures")
	f, err := FailureSource{FTA: dir, Nodes: 64}.Load(3600, true)
	if err != nil {
		t.Fatal(err)
	}
	// Node MTBF 117020.505184 s (trace.TestFTAGrid5000, counted with awk).
	if math.Abs(f.MTBF*64-117020.505184) > 1e-3 || math.Abs(f.EY-64*3600/117020.505184) > 1e-9 {
		t.Errorf("E(Y) %v, MTBF %v", f.EY, f.MTBF)
	}
	if f.Data == nil || len(f.Data.Fits) != len(FTAFitFamilies) || f.Data.Fits[0].Family != "weibull" || f.Data.Fits[0].Dist.(distribution.Weibull).K > 0.6 {
		t.Errorf("fits %+v", f.Data)
	}
}

// Simulate with a replayed list: every run is the same, so the mean is
// one run of SimulateTask (checked by hand in TestSimulateTaskReplay) and
// the interval is 0; sources that give no law are refused by field.
func TestSimulateReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times.txt")
	if err := os.WriteFile(path, []byte("3\n20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := SimModel{RestartFailures: true, CheckpointFailures: true, FirstRestart: true}
	rep, err := Simulate(context.Background(), SimRequest{Te: 10, C: 1, R: 2, Strategy: "period:5", Failures: FailureSource{FailureTimes: path}, Model: m, Runs: 3}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	gaps := []float64{3, 17}
	i := 0
	one, err := SimulateTask(10, 5, 1, 2, m, func() (float64, bool) {
		if i == len(gaps) {
			return 0, false
		}
		i++
		return gaps[i-1], true
	})
	if err != nil || float64(rep.MeanWallclock) != one.Wallclock || rep.HalfWidth != 0 || rep.Intervals != 2 || rep.Runs != 3 {
		t.Errorf("report %+v, want the run %+v (%v)", rep, one, err)
	}
	_, err = Simulate(context.Background(), SimRequest{Te: 10, C: 1, Failures: FailureSource{GloudSim: "x.dat"}, Runs: 1}, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "failures: ") {
		t.Errorf("GloudSim source: %v", err)
	}
}

// StatsRequest names the bad field; Google task events give MNOF and
// MTBF per priority (the sample read by hand in trace's TestEstimateGoogle:
// priority 9, 10 tasks, one failure of 18 s).
func TestRunStats(t *testing.T) {
	for field, r := range map[string]StatsRequest{
		"path":   {},
		"format": {Path: "x", Format: "lanl"},
		"task_s": {Path: "x.csv", Task: 3600, On: 2},
		"on":     {Path: t.TempDir(), Task: 3600, On: -1},
	} {
		if err := r.Validate(); err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), field+": ") {
			t.Errorf("%s: %v", field, err)
		}
	}
	g := datadirtest.ForTest(t, "google2011", "cloudsimplus_task-events-sample-1.csv")
	rep, err := RunStats(context.Background(), StatsRequest{Path: g})
	if err != nil || rep.FTA != nil || len(rep.Google) != 1 || rep.Google[0].Tasks != 10 || rep.Google[0].MNOF != 0.1 || rep.Google[0].MTBF != 18 {
		t.Fatalf("%+v, %v", rep, err)
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.HasPrefix(string(b), `[{"priority":9,"tasks":10,"failures":1,"mnof":0.1,"mtbf_s":18,`) {
		t.Errorf("JSON %s, %v", b, err)
	}
}

// A Request is JSON with unit-suffixed keys, and reads back the same.
func TestRequestJSON(t *testing.T) {
	r := Request{Te: 200, R: new(1.5), Failures: FailureSource{ExpectedFailures: new(2.0), Priority: -1, System: -1},
		Storages: []Storage{{Name: "local", C: 0.632, R: 3.22}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"te_s":200,"r_s":1.5,"failures":{"expected_failures":2,"priority":-1,"system":-1},"storages":[{"name":"local","c_s":0.632,"r_s":3.22}]}`
	var back Request
	if string(b) != want || json.Unmarshal(b, &back) != nil || *back.R != 1.5 || *back.Failures.ExpectedFailures != 2 || back.Storages[0] != r.Storages[0] {
		t.Errorf("JSON %s\nwant %s\nback %+v", b, want, back)
	}
}

// A simulation whose runs could not finish is refused by Validate, before
// any run (issue 22): E(Y) = 1e308, a period far below the checkpoint cost
// in a day's work, failures far more frequent than a checkpoint, or E(Y)
// = 0. A request that can run passes, and so do file sources whose law is
// known only once loaded.
func TestSimRequestValidateRefusesHopelessRuns(t *testing.T) {
	f := func(ey float64) FailureSource { return FailureSource{ExpectedFailures: &ey, System: -1} }
	base := SimRequest{Te: 86400, C: 300, Failures: f(3), Runs: 10, Model: SimModel{CheckpointFailures: true}}
	if err := base.Validate(); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(*SimRequest)
	}{
		{"failures.expected_failures", func(r *SimRequest) { r.Failures = f(1e308) }},
		{"failures.expected_failures", func(r *SimRequest) { r.Failures = f(1e308); r.Strategy = "count:3" }},
		{"failures.expected_failures", func(r *SimRequest) { r.Failures = f(3000) }},
		{"failures.expected_failures", func(r *SimRequest) { r.Failures = f(0) }},
		{"failures.mtbf_s", func(r *SimRequest) { r.Failures = FailureSource{MTBF: 1e-6, System: -1} }},
		{"strategy", func(r *SimRequest) { r.Strategy = "period:1e-9" }},
		{"strategy", func(r *SimRequest) {
			r.Failures = FailureSource{Dist: "exponential:rate=1e-10", System: -1}
			r.Strategy = "period:1e-9"
		}},
		{"strategy", func(r *SimRequest) { r.Strategy = "count:1e12" }},
	} {
		r := base
		c.edit(&r)
		err := r.Validate()
		if err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), c.field+": ") {
			t.Errorf("%+v: error %v, want a usage error naming %s", r, err, c.field)
		}
	}
	for _, r := range []SimRequest{
		{Te: 86400, C: 300, Failures: FailureSource{Dist: "exponential:rate=1", System: -1}, Runs: 1},
		{Te: 86400, C: 300, Failures: FailureSource{LANL: "x.csv", System: 20}, Strategy: "young", Runs: 1},
		{Te: 86400, C: 300, Failures: f(3000), Model: SimModel{}, Strategy: "count:600", Runs: 1},
	} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v, want it to pass", r, err)
		}
	}
}

// A task's node named twice (the same name or id, or a node's name and its
// id) is refused naming the nodes: it counted the node's failures again
// (nodes 1,1,1,1 gave four times node 1's E(Y)). The trace is trace's
// TestFTAByHand's: node 1 G/s/c1/n1, node 2 G/s/c2/n2.
func TestRunStatsDistinctNodes(t *testing.T) {
	line := func(id, node int, name string, typ int, start, stop float64) string {
		return fmt.Sprintf("%d\t0\t%d\t5\t%s\t%d\t%g\t%g\tNULL\n", id, node, name, typ, start, stop)
	}
	path := filepath.Join(t.TempDir(), "t_event_trace.tab")
	in := "# event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason\n" +
		line(0, 1, "G/s/c1/n1", 1, 0, 100) + line(1, 1, "G/s/c1/n1", 0, 100, 110) + line(2, 1, "G/s/c1/n1", 1, 110, 200) +
		line(3, 2, "G/s/c2/n2", 1, 0, 50) + line(4, 2, "G/s/c2/n2", 0, 50, 60) + line(5, 2, "G/s/c2/n2", 1, 60, 260)
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, nodes := range [][]string{{"1", "1", "1", "1"}, {"1", "G/s/c1/n1"}, {"G/s/c2/n2", "2"}} {
		_, err := RunStats(context.Background(), StatsRequest{Path: path, Task: 3600, Nodes: nodes})
		if err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), "nodes: "+strings.Join(nodes, ",")+": ") || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("%v: %v", nodes, err)
		}
	}
	for _, nodes := range [][]string{{"1", "2"}, {"G/s/c1/n1", "G/s/c2/n2"}} {
		if rep, err := RunStats(context.Background(), StatsRequest{Path: path, Task: 3600, Nodes: nodes}); err != nil || rep.FTA.Expected == nil {
			t.Errorf("%v: %v", nodes, err)
		}
	}
}
