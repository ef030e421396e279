package iosim

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"
)

// twoJobQueue is the hand case of the queue switches: β = 1 B/s and 1 B
// of memory per node, so bytes are seconds. Job A (node 0) reads a 100 s
// input from t = 0; job B (node 1) has no input, 50 s of work and a 10 s
// checkpoint due at t = 20 (P = 30, P − C = 20); node 0 fails at t = 30.
// Job A's checkpoints take 1 s.
func twoJobQueue() (Config, Options) {
	c := Config{
		Platform: Platform{Nodes: 2, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes: []Class{
			{Name: "A", Nodes: 1, Walltime: 1000, Input: 100, Checkpoint: 1, Share: 0.5},
			{Name: "B", Nodes: 1, Walltime: 50, Checkpoint: 10, Share: 0.5},
		},
	}
	return c, Options{Span: 200, Jobs: []Job{{Class: 0, Work: 1000}, {ID: 1, Class: 1, Work: 50}},
		Failures: []NodeFailure{{Time: 30, Node: 0}}}
}

// Ordered-NB-Fixed and Least-Waste-Fixed (P = 30; A's checkpoints are
// P − C = 29 s apart, B's 20) on twoJobQueue, checkpoint node-seconds in
// our accounting (both strategies grant the same: at most one request
// waits at a time):
//   - the paper's model: B's request at 20 waits; A's failure at 30 frees
//     the token and B commits [30, 40]; A's restart reads its input
//     [40, 140] and commits [169, 170] and [199, 200]: 10 + 2 = 12.
//   - SkipLateCheckpoints: at 20 the token is busy until 100, after B's
//     work ends (50), so B never checkpoints; A's restart reads [30, 130]
//     and commits [159, 160] and [189, 190]: 2.
//   - KeepReservations (FCFS only): A's input keeps the token until 100
//     though A failed, for B's request waits behind it; B's request is
//     withdrawn when its work ends at 50; the restart reads [100, 200]: 0.
//   - both: B's request is dropped at 20, so nothing waits behind A's
//     input when A fails; Ordered-NB releases it (SimOrderedIOFCFS finds
//     no remaining entry in io_tasks) and the restart reads [30, 130] as
//     with SkipLateCheckpoints alone: 2.
func TestAuthorsQueueSwitches(t *testing.T) {
	c, opt := twoJobQueue()
	for _, tc := range []struct {
		strategy string
		m        AuthorsModel
		want     float64
	}{
		{"ordered-nb-fixed", AuthorsModel{}, 12},
		{"ordered-nb-fixed", AuthorsModel{SkipLateCheckpoints: true}, 2},
		{"ordered-nb-fixed", AuthorsModel{KeepReservations: true}, 0},
		{"ordered-nb-fixed", AuthorsModel{SkipLateCheckpoints: true, KeepReservations: true}, 2},
		{"least-waste-fixed", AuthorsModel{}, 12},
		{"least-waste-fixed", AuthorsModel{SkipLateCheckpoints: true}, 2},
		{"least-waste-fixed", AuthorsModel{KeepReservations: true}, 12},
	} {
		st, err := Lookup(tc.strategy, 30)
		if err != nil {
			t.Fatal(err)
		}
		o := opt
		o.Authors = tc.m
		r, err := Simulate(&c, st, o)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.Checkpoint-tc.want) > 1e-9 || math.Abs(r.Split.Total()-400) > 1e-9 {
			t.Errorf("%s %+v: checkpoint %v (split %+v), want %v of 400 node-seconds", tc.strategy, tc.m, r.Split.Checkpoint, r.Split, tc.want)
		}
	}
}

// Least-Waste's cancellation at a grant (SkipLateCheckpoints). One node
// each for A (input 100 s, 10 s of work), B (checkpoint 10 s due at 20,
// 150 s of work) and D (input 100 s); D's node fails at 120. A's input
// holds the token over [0, 100]; B's request at 20 waits (100 < 150). At
// 100 Least-Waste grants D's input (W_D = risk of B ≈ 5·10⁻⁴, W_B = D's
// idleness 110), which ends at 200, after B's work ends:
//   - the paper's model: B's request stays; D's failure at 120 frees the
//     token and B commits [120, 130]: 10 checkpoint node-seconds;
//   - SkipLateCheckpoints: B's request is dropped at the grant (100) and
//     B never checkpoints: 0.
func TestAuthorsLeastWasteGrantDrop(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 3, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes: []Class{
			{Name: "A", Nodes: 1, Walltime: 10, Input: 100, Checkpoint: 1, Share: 0.4},
			{Name: "B", Nodes: 1, Walltime: 150, Checkpoint: 10, Share: 0.3},
			{Name: "D", Nodes: 1, Walltime: 1000, Input: 100, Checkpoint: 10, Share: 0.3},
		},
	}
	st, err := Lookup("least-waste-fixed", 30)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    AuthorsModel
		want float64
	}{{AuthorsModel{}, 10}, {AuthorsModel{SkipLateCheckpoints: true}, 0}} {
		r, err := Simulate(&c, st, Options{Span: 200, Authors: tc.m, Failures: []NodeFailure{{Time: 120, Node: 2}},
			Jobs: []Job{{Class: 0, Work: 10}, {ID: 1, Class: 1, Work: 150}, {ID: 2, Class: 2, Work: 1000}}})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.Checkpoint-tc.want) > 1e-9 || math.Abs(r.Split.Total()-600) > 1e-9 {
			t.Errorf("%+v: checkpoint %v, want %v (split %+v)", tc.m, r.Split.Checkpoint, tc.want, r.Split)
		}
	}
}

// SwappedLeastWaste puts the authors' heuristic in the strategy's arbiter
// (its values are checked by hand in arbiter.TestLeastWasteSwappedHand),
// and leaves the other strategies alone.
func TestAuthorsSwappedStrategy(t *testing.T) {
	m := AuthorsModel{SwappedLeastWaste: true}
	for _, name := range []string{"least-waste", "least-waste-fixed"} {
		st, _ := Lookup(name, 3600)
		if lw, ok := m.strategy(st).Arbiter.(LeastWaste); !ok || !lw.Swapped {
			t.Errorf("%s: arbiter %#v, want the swapped heuristic", name, m.strategy(st).Arbiter)
		}
		if lw := st.Arbiter.(LeastWaste); lw.Swapped {
			t.Errorf("%s: the registry's strategy was changed", name)
		}
	}
	st, _ := Lookup("ordered-nb-daly", 0)
	if _, ok := m.strategy(st).Arbiter.(FCFS); !ok {
		t.Error("ordered-nb-daly's arbiter changed")
	}
}

// NarrowWork: one class of w = 1 000 s with 30 s of input and 20 s of
// output at β gives work in [900 − 50, 1100 − 50] = [850, 1050]; the
// default draws in [800, 1200] and, over hundreds of jobs, leaves that
// interval.
func TestAuthorsNarrowWork(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 10, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 1, Walltime: 1000, Input: 30, Output: 20, Checkpoint: 1, Share: 1}},
	}
	out := func(jobs []Job) int {
		n := 0
		for _, j := range jobs {
			if j.Work < 850-1e-9 || j.Work > 1050+1e-9 {
				n++
			}
		}
		return n
	}
	narrow, err := generateJobs(&c, Options{Span: 1e5, Seed: 3, Authors: AuthorsModel{NarrowWork: true}})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := generateJobs(&c, Options{Span: 1e5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(narrow) < 500 || out(narrow) != 0 {
		t.Errorf("narrow: %d jobs, %d outside [850, 1050]", len(narrow), out(narrow))
	}
	if out(wide) < len(wide)/4 {
		t.Errorf("default: only %d of %d jobs outside [850, 1050] (expect about half)", out(wide), len(wide))
	}
	c.Classes[0].Input = 900
	if _, err := generateJobs(&c, Options{Span: 1e5, Authors: AuthorsModel{NarrowWork: true}}); err == nil {
		t.Error("a class whose I/O leaves no work was accepted")
	}
}

// Window: one job computes [0, 1 000] on one of two nodes, no I/O, no
// checkpoint (P = ∞). With a 300 s window at offset u·(2 000 − 300) the
// work is the overlap of [0, 1 000] with the window; without it the
// window is the whole span.
func TestAuthorsWindow(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 2, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 1, Walltime: 1000, Checkpoint: 1, Share: 1}},
	}
	st := Strategy{Name: "never", Sharing: Unlimited, Period: Never{}}
	sawInside, sawOutside := false, false
	for seed := range uint64(12) {
		opt := Options{Span: 2000, Seed: seed, NoFailures: true, Jobs: []Job{{Class: 0, Work: 1000}}, Authors: AuthorsModel{Window: 300}}
		r, err := Simulate(&c, st, opt)
		if err != nil {
			t.Fatal(err)
		}
		w0 := rng.Stream(seed, streamWindow).Float64() * 1700
		want := math.Max(0, math.Min(1000, w0+300)-w0)
		if math.Abs(r.Window-300) > 1e-9 || math.Abs(r.Split.Work-want) > 1e-6 || math.Abs(r.Split.Total()-600) > 1e-6 {
			t.Errorf("seed %d: window %v work %v total %v, want 300, %v, 600", seed, r.Window, r.Split.Work, r.Split.Total(), want)
		}
		sawInside = sawInside || want == 300
		sawOutside = sawOutside || want == 0
	}
	if !sawInside || !sawOutside {
		t.Errorf("12 seeds never put the window inside (%v) or after (%v) the job", sawInside, sawOutside)
	}
	r, err := Simulate(&c, st, Options{Span: 2000, NoFailures: true, Jobs: []Job{{Class: 0, Work: 1000}}})
	if err != nil || r.Window != 2000 || r.Split.Work != 1000 {
		t.Errorf("no window: %v %v %v", r.Window, r.Split.Work, err)
	}
	if _, err := Simulate(&c, st, Options{Span: 2000, NoFailures: true, Authors: AuthorsModel{Window: 2001}}); err == nil {
		t.Error("a window longer than the span was accepted")
	}
}

// NoRegularIO: one job of 7 200 s of work with 100 s of regular I/O (one
// node, β = 1 B/s) books 100 node-seconds of I/O (50 after the first hour,
// 50 with its output); without regular I/O, none. Work is 7 200 both ways.
func TestAuthorsNoRegularIO(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 1, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "X", Nodes: 1, Walltime: 7200, RegularIO: 100, Checkpoint: 1, Share: 1}},
	}
	st := Strategy{Name: "never", Sharing: Unlimited, Period: Never{}}
	for _, tc := range []struct {
		m  AuthorsModel
		io float64
	}{{AuthorsModel{}, 100}, {AuthorsModel{NoRegularIO: true}, 0}} {
		r, err := Simulate(&c, st, Options{Span: 10000, NoFailures: true, Jobs: []Job{{Class: 0, Work: 7200}}, Authors: tc.m})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.IO-tc.io) > 1e-9 || math.Abs(r.Split.Work-7200) > 1e-9 {
			t.Errorf("%+v: io %v work %v, want %v and 7200", tc.m, r.Split.IO, r.Split.Work, tc.io)
		}
	}
	if c.Classes[0].RegularIO != 100 {
		t.Error("the switch changed the caller's config")
	}
}

// The command line's names reach the switches they name; unknown and
// repeated names are refused.
func TestParseAuthorsModel(t *testing.T) {
	for list, want := range map[string]AuthorsModel{
		"":                           {},
		"none":                       {},
		"keep-reservations":          {KeepReservations: true},
		"swapped-least-waste,window": {SwappedLeastWaste: true, Window: 31 * Day},
		"narrow-work, no-regular-io": {NarrowWork: true, NoRegularIO: true},
		"skip-late-checkpoints":      {SkipLateCheckpoints: true},
		"all":                        AllAuthors(),
	} {
		if got, err := ParseAuthorsModel(list); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", list, got, err, want)
		}
		if back, err := ParseAuthorsModel(want.String()); err != nil || back != want {
			t.Errorf("%q: String %q reads back as %+v %v", list, want.String(), back, err)
		}
	}
	for _, bad := range []string{"keep", "window,window", "all,,window"} {
		if _, err := ParseAuthorsModel(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseAuthorsModel: any list either is refused or reads back, through
// String, as the same model.
func FuzzParseAuthorsModel(f *testing.F) {
	for _, s := range []string{"", "none", "all", "window,keep-reservations", "narrow-work,,x", "window,window", "drain,stale-rates,restart-from-stop", "all,drain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		m, err := ParseAuthorsModel(list)
		if err != nil {
			return
		}
		back, err := ParseAuthorsModel(m.String())
		if err != nil || back != m {
			t.Fatalf("%q: %+v prints %q, which reads %+v %v", list, m, m.String(), back, err)
		}
	})
}

// KeepReservations at the end of the FCFS schedule, by hand (one node,
// β = 1 B/s and 1 B of memory per node, so bytes are seconds; P = 30).
//
// A job (1000 s of work, 1 s checkpoints, 100 s input) reads [0, 100]
// and fails at 30 with nothing queued behind its read; span 200:
//   - Ordered-NB (SimOrderedIOFCFS: a new transfer goes after the last
//     entry remaining in io_tasks, and none remains) releases the slot:
//     the restart reads [30, 130], computes 29 s, commits [159, 160],
//     computes 29 s, commits [189, 190] and computes 10 s;
//   - Ordered (SimOrderedIOBlockingFCFS: date_of_last_io stays 100)
//     keeps it: the restart waits [30, 100] and reads [100, 200].
//
// A job of 20 s of work with a 25 s output (P = 1000: no checkpoint)
// writes [20, 45] and fails at 30; its restart computes [30, 50] and asks
// for its output at 50, when the failed slot has ended (45) and nothing
// is queued; span 100:
//   - Ordered dates the output from date_of_last_io = 45: it ends at 70
//     (20 s of I/O, not 25), the node idles [70, 100];
//   - Ordered-NB, or Ordered without the switch, writes [50, 75].
//
// With 60 s of work the output is [60, 85], the failure at 70, the
// restart's request at 130: 85 + 25 = 110 is past, and the output ends at
// once (span 200).
func TestKeepReservationsTail(t *testing.T) {
	read := Config{
		Platform: Platform{Nodes: 1, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "A", Nodes: 1, Walltime: 1000, Input: 100, Checkpoint: 1, Share: 1}},
	}
	out := oneNode(1, 1, 25)
	keep := AuthorsModel{KeepReservations: true}
	released := Split{Work: 68, IO: 100, Checkpoint: 2, Lost: 30}
	for _, tc := range []struct {
		name     string
		c        *Config
		strategy string
		period   float64
		work     float64
		fail     float64
		span     float64
		m        AuthorsModel
		want     Split
	}{
		{"read, ordered-nb, keep", &read, "ordered-nb-fixed", 30, 1000, 30, 200, keep, released},
		{"read, ordered-nb", &read, "ordered-nb-fixed", 30, 1000, 30, 200, AuthorsModel{}, released},
		{"read, ordered, keep", &read, "ordered-fixed", 30, 1000, 30, 200, keep, Split{IO: 100, Lost: 30, Idle: 70}},
		{"read, ordered", &read, "ordered-fixed", 30, 1000, 30, 200, AuthorsModel{}, released},
		{"output, ordered, keep", &out, "ordered-fixed", 1000, 20, 30, 100, keep, Split{Work: 20, IO: 20, Lost: 30, Idle: 30}},
		{"output, ordered", &out, "ordered-fixed", 1000, 20, 30, 100, AuthorsModel{}, Split{Work: 20, IO: 25, Lost: 30, Idle: 25}},
		{"output, ordered-nb, keep", &out, "ordered-nb-fixed", 1000, 20, 30, 100, keep, Split{Work: 20, IO: 25, Lost: 30, Idle: 25}},
		{"late output, ordered, keep", &out, "ordered-fixed", 1000, 60, 70, 200, keep, Split{Work: 60, Lost: 70, Idle: 70}},
	} {
		st, err := Lookup(tc.strategy, tc.period)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(tc.c, st, Options{Span: tc.span, Jobs: []Job{{Class: 0, Work: tc.work}},
			Failures: []NodeFailure{{Time: tc.fail, Node: 0}}, Authors: tc.m})
		if err != nil {
			t.Fatal(err)
		}
		if !splitNear(r.Split, tc.want) {
			t.Errorf("%s: split %+v, want %+v", tc.name, r.Split, tc.want)
		}
	}
}
