package iosim

import (
	"context"
	"strings"

	"github.com/ckpt-hpc/ckpt/runner"
	"math"
	"reflect"
	"testing"
)

// Simulate is SimulateContext without cancellation, as the tests run it.
func Simulate(c *Config, st Strategy, opt Options) (Run, error) {
	return SimulateContext(context.Background(), c, st, opt)
}

// small is a 64-node test platform with three classes (one with regular
// I/O) and frequent failures.
func small() Config {
	return Config{
		Platform: Platform{Name: "small", Nodes: 64, MemoryPerNode: 1e9, Bandwidth: 1e8, NodeMTBF: Seconds(40 * Day)},
		Classes: []Class{
			{Name: "A", Nodes: 16, Walltime: 10 * 3600, Input: 0.2, Output: 0.5, Checkpoint: 1, Share: 0.5},
			{Name: "B", Nodes: 8, Walltime: 5 * 3600, Input: 0.1, Output: 0.3, Checkpoint: 0.5, RegularIO: 2, Share: 0.3},
			{Name: "C", Nodes: 32, Walltime: 20 * 3600, Input: 0.5, Output: 1, Checkpoint: 2, Share: 0.2},
		},
	}
}

func allStrategies(t *testing.T) []Strategy {
	var out []Strategy
	for _, n := range Names() {
		st, err := Lookup(n, 3600)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return append(out, Baseline())
}

// Conservation: for every run the five parts add up to nodes × window.
func TestConservation(t *testing.T) {
	c := small()
	for _, st := range allStrategies(t) {
		for seed := range uint64(4) {
			r, err := Simulate(&c, st, Options{Span: 12 * Day, Skip: Day, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			want := float64(c.Platform.Nodes) * r.Window
			if d := math.Abs(r.Split.Total() - want); d > 1e-9*want {
				t.Errorf("%s seed %d: total %v, want %v (diff %v)", st.Name, seed, r.Split.Total(), want, d)
			}
			for name, v := range map[string]float64{"work": r.Split.Work, "io": r.Split.IO, "ckpt": r.Split.Checkpoint, "lost": r.Split.Lost, "idle": r.Split.Idle} {
				if v < -1e-6*want {
					t.Errorf("%s seed %d: negative %s %v", st.Name, seed, name, v)
				}
			}
			if st.Name != "baseline" && (r.JobFailures == 0 || r.Split.Lost <= 0 || r.Checkpoints == 0) {
				t.Errorf("%s seed %d: test exercises nothing: %+v", st.Name, seed, r)
			}
		}
	}
}

// Same seed ⇒ same run; another seed ⇒ another run.
func TestDeterministic(t *testing.T) {
	c := small()
	for _, n := range []string{"oblivious-daly", "least-waste"} {
		st, err := Lookup(n, 3600)
		if err != nil {
			t.Fatal(err)
		}
		var runs [3]Run
		for i, seed := range []uint64{7, 7, 8} {
			if runs[i], err = Simulate(&c, st, Options{Span: 8 * Day, Skip: Day, Seed: seed}); err != nil {
				t.Fatalf("%s seed %d: %v", n, seed, err)
			}
		}
		if runs[0].Events == 0 || runs[0].JobFailures == 0 {
			t.Fatalf("%s: the run exercises nothing: %+v", n, runs[0])
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Fatalf("%s: runs differ:\n%+v\n%+v", n, runs[0], runs[1])
		}
		if reflect.DeepEqual(runs[0].Split, runs[2].Split) {
			t.Fatalf("%s: seeds 7 and 8 give the same split", n)
		}
	}
}

// onePlatformJob is a platform filled by one job with no input/output.
func onePlatformJob() Config {
	return Config{
		Platform: Platform{Nodes: 10, MemoryPerNode: 1e9, Bandwidth: 1e8, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 10, Walltime: 1000 * 3600, Checkpoint: 3.6, Share: 1}},
	}
}

// Without failures or contention the waste is the checkpoint time alone:
// C = 10×3.6e9/1e8 = 360 s in every period P = 3600 s, so 10 %.
func TestWasteIsCheckpointTimeWithoutFailures(t *testing.T) {
	c := onePlatformJob()
	opt := Options{Span: 100 * 3600, Skip: 0, NoFailures: true, Jobs: []Job{{Class: 0, Work: 1000 * 3600}}}
	base, err := Simulate(&c, Baseline(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if base.Split.Useful() != 10*100*3600 {
		t.Fatalf("baseline useful %v", base.Split.Useful())
	}
	for _, n := range Names() {
		st, _ := Lookup(n, 3600)
		st.Period = Fixed(3600) // Daly would be P = √(2·μ/10·360): same test, other P
		r, err := Simulate(&c, st, opt)
		if err != nil {
			t.Fatal(err)
		}
		if w := Waste(r, base); math.Abs(w-0.1) > 1e-12 {
			t.Errorf("%s: waste %v, want 0.1", n, w)
		}
		if math.Abs(r.Split.Checkpoint-0.1*10*100*3600) > 1e-6 || r.Checkpoints != 100 {
			t.Errorf("%s: checkpoint %v over %d checkpoints", n, r.Split.Checkpoint, r.Checkpoints)
		}
		if s := r.Slowdown(); math.Abs(s-1) > 1e-12 {
			t.Errorf("%s: slowdown %v without contention", n, s)
		}
	}
	// The paper's simulator computes P between checkpoints: C/(P+C) = 360/3960.
	st, _ := Lookup("ordered-fixed", 3600)
	o := opt
	o.Span = 3960 * 90
	o.ComputeFullPeriod = true
	base, _ = Simulate(&c, Baseline(), o)
	r, _ := Simulate(&c, st, o)
	if w := Waste(r, base); math.Abs(w-360.0/3960) > 1e-12 {
		t.Errorf("full-period waste %v, want %v", w, 360.0/3960)
	}
}

// Section III-B: two jobs of q nodes request V bytes at once. Shared
// (Oblivious): both finish at 2V/β. Ordered: one at V/β, the other at
// 2V/β. Unlimited: both at V/β. Checked through the work done in the
// window [0, T]: Σ q (T − completion).
func TestTwoJobsSectionIIIB(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 20, MemoryPerNode: 1e9, Bandwidth: 1e9, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 10, Walltime: 100 * 3600, Input: 50, Checkpoint: 1, Share: 1}},
	}
	V := 50 * 10 * 1e9 // bytes per job
	T := 10 * 3600.0
	q := 10.0
	opt := Options{Span: T, NoFailures: true, Jobs: []Job{{Class: 0, Work: 100 * 3600}, {Class: 0, Work: 100 * 3600}}}
	beta := float64(c.Platform.Bandwidth)
	cases := []struct {
		st   Strategy
		work float64
	}{
		{Strategy{Name: "shared", Sharing: Proportional, Period: Never{}}, 2 * q * (T - 2*V/beta)},
		{Strategy{Name: "ordered", Sharing: Token, Arbiter: FCFS{}, Period: Never{}}, q*(T-V/beta) + q*(T-2*V/beta)},
		{Strategy{Name: "free", Sharing: Unlimited, Period: Never{}}, 2 * q * (T - V/beta)},
	}
	for _, tc := range cases {
		r, err := Simulate(&c, tc.st, opt)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.Work-tc.work) > 1e-6 {
			t.Errorf("%s: work %v, want %v", tc.st.Name, r.Split.Work, tc.work)
		}
		// I/O counted at the interference-free rate: 2 q V/β in every case.
		if math.Abs(r.Split.IO-2*q*V/beta) > 1e-6 {
			t.Errorf("%s: io %v, want %v", tc.st.Name, r.Split.IO, 2*q*V/beta)
		}
	}
}

// A sweep writes the same rows for 1 and 2 workers.
func TestSweepWorkersIdentical(t *testing.T) {
	c := small()
	pts := []SweepPoint{{Param: "bandwidth", Value: 1e8, Config: c}, {Param: "bandwidth", Value: 2e8, Config: c.WithBandwidth(2e8)}}
	var sts []Strategy
	for _, n := range []string{"oblivious-daly", "least-waste"} {
		st, _ := Lookup(n, 3600)
		sts = append(sts, st)
	}
	run := func(w int) string {
		var b strings.Builder
		_, err := Sweep(context.Background(), pts, sts, 3, Options{Span: 6 * Day, Skip: Day}, runner.Options{Seed: 9, Workers: w, Progress: runner.ProgressOff}, runner.NewCSV[TrialResult](&b))
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a, b := run(1), run(2)
	if a != b || len(a) < 100 {
		t.Fatalf("outputs differ or empty:\n%s\n%s", a, b)
	}
	agg := Aggregate(nil)
	if len(agg) != 0 {
		t.Fatal("aggregate of nothing")
	}
}

// Two jobs of q nodes reach their first checkpoint (volume V, C = V/β)
// at the same instant P − C. In the window [0, P + C]:
//
//	Oblivious: both commit at rate β/2 for 2C:    work 2q(P−C),       checkpoint 4qC
//	Ordered:   A commits in [P−C, P] then computes C more; B waits C,
//	           then commits in [P, P+C]:           work 2q(P−C) + qC,  checkpoint 3qC
//	Ordered-NB: B computes while waiting:          work 2q(P−C) + 2qC, checkpoint 2qC
//	Least-Waste: as Ordered-NB (both are checkpoint candidates).
func TestTwoJobsCheckpointModels(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 20, MemoryPerNode: 1e9, Bandwidth: 1e9, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 10, Walltime: 100 * 3600, Checkpoint: 30, Share: 1}},
	}
	q, C, P := 10.0, 300.0, 3600.0 // C = 30·10·1e9 B / 1e9 B/s
	opt := Options{Span: P + C, NoFailures: true, Jobs: []Job{{Class: 0, Work: 100 * 3600}, {Class: 0, Work: 100 * 3600}}}
	cases := []struct {
		name       string
		work, ckpt float64
	}{
		{"oblivious-fixed", 2 * q * (P - C), 4 * q * C},
		{"ordered-fixed", 2*q*(P-C) + q*C, 3 * q * C},
		{"ordered-nb-fixed", 2*q*(P-C) + 2*q*C, 2 * q * C},
	}
	for _, tc := range cases {
		st, _ := Lookup(tc.name, P)
		r, err := Simulate(&c, st, opt)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.Work-tc.work) > 1e-6 || math.Abs(r.Split.Checkpoint-tc.ckpt) > 1e-6 || math.Abs(r.Split.Idle) > 1e-6 {
			t.Errorf("%s: work %v ckpt %v idle %v, want %v %v 0", tc.name, r.Split.Work, r.Split.Checkpoint, r.Split.Idle, tc.work, tc.ckpt)
		}
	}
	st, _ := Lookup("least-waste", P)
	st.Period = Fixed(P)
	r, _ := Simulate(&c, st, opt)
	if math.Abs(r.Split.Work-cases[2].work) > 1e-6 || math.Abs(r.Split.Checkpoint-cases[2].ckpt) > 1e-6 {
		t.Errorf("least-waste: work %v ckpt %v", r.Split.Work, r.Split.Checkpoint)
	}
}

// One job on the whole platform (q = 10, P = 3600, C = 360), node 3 fails
// at t = 5000: compute [0, 3240], commit [3240, 3600] (saves 3240 s),
// compute [3600, 5000] — 1400 s lost —, recovery read [5000, 5360], compute
// [5360, 8600]. In [0, 8600]: work 10·(3240+3240), checkpoint 10·(360+360),
// lost 10·1400.
func TestFailureHandComputed(t *testing.T) {
	c := onePlatformJob()
	st, _ := Lookup("ordered-fixed", 3600)
	r, err := Simulate(&c, st, Options{Span: 8600, Jobs: []Job{{Class: 0, Work: 1000 * 3600}}, Failures: []NodeFailure{{Time: 5000, Node: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	want := Split{Work: 64800, Checkpoint: 7200, Lost: 14000}
	if d := math.Abs(r.Split.Work-want.Work) + math.Abs(r.Split.Checkpoint-want.Checkpoint) + math.Abs(r.Split.Lost-want.Lost) + math.Abs(r.Split.Idle) + math.Abs(r.Split.IO); d > 1e-6 {
		t.Fatalf("split %+v, want %+v", r.Split, want)
	}
	if r.JobFailures != 1 || r.NodeFailures != 1 || r.JobsStarted != 2 {
		t.Fatalf("%+v", r)
	}
	// A failure on a node outside the platform is an error, not a panic.
	if _, err := Simulate(&c, st, Options{Span: 8600, Failures: []NodeFailure{{Time: 1, Node: 99}}}); err == nil {
		t.Fatal("bad failure accepted")
	}
}

// BandwidthFor returns a bandwidth at which the mean waste meets the
// target, and the bandwidth one tolerance step below it does not. The
// wastes are evaluated independently of the bisection and of Sweep: one
// Trial per replicate seed, averaged here.
func TestBandwidthFor(t *testing.T) {
	c := small()
	st, err := Lookup("ordered-nb-daly", 3600)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Span: 8 * Day, Skip: Day}
	ro := runner.Options{Seed: 3, Workers: 2, Progress: runner.ProgressOff}
	const eff, tol, reps = 0.7, 0.05, 2
	b, err := BandwidthFor(context.Background(), c, st, eff, reps, opt, ro, 1e6, 1e12, tol)
	if err != nil {
		t.Fatal(err)
	}
	waste := func(beta float64) float64 {
		cb := c.WithBandwidth(beta)
		if cb.CheckProgress() != nil {
			return 1 // refused: no progress at all
		}
		sum := 0.0
		for r := range reps {
			o := opt
			o.Seed = runner.Seed(ro.Seed, 0, r)
			out, err := Trial(&cb, []Strategy{st}, o)
			if err != nil {
				t.Fatal(err)
			}
			sum += out.Waste[0]
		}
		return sum / reps
	}
	if w := waste(b); !(w <= 1-eff) {
		t.Fatalf("waste %v > %v at the answer %v", w, 1-eff, b)
	}
	if w := waste(b / (1 + tol)); !(w > 1-eff) {
		t.Fatalf("waste %v ≤ %v already at %v (answer %v)", w, 1-eff, b/(1+tol), b)
	}
	// The waste falls with the bandwidth: the answer separates a low
	// bandwidth that fails from a high one that passes.
	if !(waste(b/10) > 1-eff && waste(b*10) <= 1-eff) {
		t.Fatalf("waste not monotone around %v", b)
	}
	if _, err := BandwidthFor(context.Background(), c, st, 0.99999, 1, opt, ro, 1e6, 1e7, tol); err == nil {
		t.Fatal("unreachable efficiency accepted")
	}
}

// A stop closer than the clock can resolve ends the work. One node, no
// failures, no I/O: job A computes 5·10⁷ s, then job B 0.3 s. At
// 5·10⁷ s a unit in the last place is 7.5·10⁻⁹ s, so B's stop, planned
// 0.3 s after its start, leaves B about 3·10⁻⁹ s short of its work, more
// than the relative 10⁻⁹ tolerance; a stop planned for that rest fires at
// the same instant. Both jobs must complete.
func TestStopBelowClockResolution(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 1, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "A", Nodes: 1, Walltime: 100, Checkpoint: 1, Share: 1}},
	}
	st, err := Lookup("interference-free-fixed", 1e12)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0.3, 0.304, 0.307} {
		r, err := Simulate(&c, st, Options{Span: 1e8, NoFailures: true, MaxEvents: 1000,
			Jobs: []Job{{Class: 0, Work: 5e7}, {ID: 1, Class: 0, Work: w}}})
		if err != nil {
			t.Fatalf("work %g: %v", w, err)
		}
		if r.JobsCompleted != 2 {
			t.Errorf("work %g: %d jobs completed, want 2", w, r.JobsCompleted)
		}
	}
}

// Trial runs the fault-free, checkpoint-free, interference-free baseline
// and every strategy on the same job list and failure times (both drawn
// from opt.Seed), and returns each strategy's run with its waste against
// the baseline. It is TrialContext without cancellation.
func Trial(c *Config, sts []Strategy, opt Options) (Outcome, error) {
	return TrialContext(context.Background(), c, sts, opt)
}
