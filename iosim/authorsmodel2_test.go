package iosim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/des"
)

// oneNode is a 1-node platform where bytes are seconds (β = 1 B/s, 1 B of
// memory per node) with one class of the given checkpoint and output
// sizes (in seconds).
func oneNode(nodes int, ckpt, output float64) Config {
	return Config{
		Platform: Platform{Nodes: nodes, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes:  []Class{{Name: "A", Nodes: 1, Walltime: 100, Checkpoint: ckpt, Output: output, Share: 1}},
	}
}

// RestartFromStop, by hand (interference-free, P = 30, C = 10, so a
// checkpoint every 20 s of work; no input or output; span 200 s). The job
// (100 s of work) computes [0, 20] and fails at 25 during its first
// checkpoint:
//   - the paper's model restarts 100 s of work at 25: four checkpoints,
//     end at 25 + 100 + 40 = 165; work 100, lost 20, checkpoint 5 + 40;
//   - RestartFromStop restarts from the unfinished checkpoint's start,
//     80 s of work: three checkpoints, end at 25 + 80 + 30 = 135; work
//     80, lost 20 (the booking is unchanged), checkpoint 5 + 30.
//
// A job of 20 s of work with a 10 s output (no checkpoint: P = 1000)
// fails at 25, during its output [20, 30]: the paper's model restarts
// 20 s of work and writes the output again ([45, 55]); RestartFromStop
// restarts with no work left, reads its (empty) input and ends at 25.
func TestRestartFromStopHand(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ckpt, out, period float64
		work              float64
		m                 AuthorsModel
		want              Split
	}{
		{"checkpoint, paper", 10, 0, 30, 100, AuthorsModel{}, Split{Work: 100, Checkpoint: 45, Lost: 20, Idle: 35}},
		{"checkpoint, from stop", 10, 0, 30, 100, AuthorsModel{RestartFromStop: true}, Split{Work: 80, Checkpoint: 35, Lost: 20, Idle: 65}},
		{"output, paper", 1, 10, 1000, 20, AuthorsModel{}, Split{Work: 20, IO: 10, Lost: 25, Idle: 145}},
		{"output, from stop", 1, 10, 1000, 20, AuthorsModel{RestartFromStop: true}, Split{Lost: 25, Idle: 175}},
	} {
		c := oneNode(1, tc.ckpt, tc.out)
		st, err := Lookup("interference-free-fixed", tc.period)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(&c, st, Options{Span: 200, Jobs: []Job{{Class: 0, Work: tc.work}},
			Failures: []NodeFailure{{Time: 25, Node: 0}}, Authors: tc.m})
		if err != nil {
			t.Fatal(err)
		}
		if !splitNear(r.Split, tc.want) {
			t.Errorf("%s: split %+v, want %+v", tc.name, r.Split, tc.want)
		}
		if r.JobsCompleted != 1 {
			t.Errorf("%s: %d jobs completed, want 1", tc.name, r.JobsCompleted)
		}
	}
}

func splitNear(a, b Split) bool {
	return math.Abs(a.Work-b.Work) < 1e-9 && math.Abs(a.IO-b.IO) < 1e-9 && math.Abs(a.Checkpoint-b.Checkpoint) < 1e-9 &&
		math.Abs(a.Lost-b.Lost) < 1e-9 && math.Abs(a.Idle-b.Idle) < 1e-9
}

// StaleRates, by hand (Oblivious, 2 nodes, bytes are seconds, span 300 s).
// Job B (node 1, 1000 s of work) reads a 100 s input from 0; job A (node
// 0, 10 s of work) writes a 100 s output from 10, sharing the bandwidth
// half and half; node 0 fails at 50, when B has 70 s left (10 alone, 40 at
// half rate). A's restart computes [50, 60] and writes its output again
// from 60, at half rate while B reads:
//   - the paper's model: B reads at full rate from 50, 60 left at 60,
//     ends at 180; A's output then has 40 left and ends at 220;
//   - StaleRates: B keeps half the bandwidth until A's output starts at
//     60 (65 left), ends at 190; A's output has 35 left, ends at 225.
//
// In our accounting (slow-down as idle): B's read 100 s of I/O and 80 (90)
// idle, B's work 120 (110); A's lost 10 s of work and 20 of I/O and 20
// idle, work 10, output 100 of I/O and 60 (65) idle, free node 80 (75).
func TestStaleRatesHand(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 2, MemoryPerNode: 1, Bandwidth: 1, NodeMTBF: Seconds(Year)},
		Classes: []Class{
			{Name: "A", Nodes: 1, Walltime: 10, Output: 100, Checkpoint: 1, Share: 0.5},
			{Name: "B", Nodes: 1, Walltime: 1000, Input: 100, Checkpoint: 1, Share: 0.5},
		},
	}
	st, err := Lookup("oblivious-fixed", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    AuthorsModel
		want Split
	}{
		{AuthorsModel{}, Split{Work: 130, IO: 200, Lost: 30, Idle: 240}},
		{AuthorsModel{StaleRates: true}, Split{Work: 120, IO: 200, Lost: 30, Idle: 250}},
	} {
		for _, naive := range []bool{false, true} {
			s, err := newSimulator(&c, st, Options{Span: 300, Jobs: []Job{{Class: 0, Work: 10}, {ID: 1, Class: 1, Work: 1000}},
				Failures: []NodeFailure{{Time: 50, Node: 0}}, Authors: tc.m})
			if err != nil {
				t.Fatal(err)
			}
			s.naiveShare = naive
			if err := s.run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if r := s.result(); !splitNear(r.Split, tc.want) {
				t.Errorf("%+v (naive reshare %v): split %+v, want %+v", tc.m, naive, r.Split, tc.want)
			}
		}
	}
}

// Drain, by hand: 2 nodes, jobs of 15 and 5 days of work (no I/O,
// interference-free, no failures) end at L = 15 d. With a 10-day window,
// min_run = 12 d + 48.9 h, and the window starts at w0 = L·24h/min_run +
// u·(L·(min_run − 24.9h)/min_run − L·24h/min_run − 10 d), u the seed's
// window draw: the long job works throughout it, the short one until 5 d.
func TestDrainWindowHand(t *testing.T) {
	c := oneNode(2, 1, 0)
	c.Classes[0].Walltime = Seconds(15 * Day)
	st, err := Lookup("interference-free-fixed", 100*Day)
	if err != nil {
		t.Fatal(err)
	}
	const L, W = 15 * Day, 10 * Day
	mr := 12*Day + 48.9*3600
	lo, hi := L*Day/mr, L*(mr-24.9*3600)/mr
	for seed := range uint64(4) {
		w0 := lo + des.Stream(seed, streamWindow).Float64()*(hi-lo-W)
		r, err := Simulate(&c, st, Options{Seed: seed, NoFailures: true, Jobs: []Job{{Class: 0, Work: 15 * Day}, {ID: 1, Class: 0, Work: 5 * Day}},
			Authors: AuthorsModel{Drain: true, Window: W}})
		if err != nil {
			t.Fatal(err)
		}
		want := Split{Work: 15*Day - w0, Idle: 5*Day + w0}
		if !(w0 > Day && w0+W < 5*Day+W) || !splitNear(r.Split, want) || r.Window != W {
			t.Errorf("seed %d: split %+v over %gs, want %+v over %gs (w0 = %g)", seed, r.Split, r.Window, want, W, w0)
		}
		// The timeline's run is the same run (its first pass too).
		rt, _, err := SimulateTimeline(t.Context(), &c, st, Options{Seed: seed, NoFailures: true, Jobs: []Job{{Class: 0, Work: 15 * Day}, {ID: 1, Class: 0, Work: 5 * Day}},
			Authors: AuthorsModel{Drain: true, Window: W}}, 0, Day)
		if err != nil || rt.Split != r.Split {
			t.Errorf("seed %d: timeline run %+v %v, want %+v", seed, rt.Split, err, r.Split)
		}
	}
	// A job list that drains before a 31-day window fits is refused.
	_, err = Simulate(&c, st, Options{NoFailures: true, Jobs: []Job{{Class: 0, Work: 15 * Day}}, Authors: AuthorsModel{Drain: true}})
	if err == nil || !strings.Contains(err.Error(), "too early") {
		t.Errorf("a 15-day run measured over 31 days: %v", err)
	}
}

// The Drain job list (System::finalize): its node-walltime, 1.1 × q ×
// work summed, reaches N × min_run but not twice that, every class's
// share of it is within 1 % of its normalised share, and the list is cut
// at the first job after which both hold (a conservation check on the
// partial sums, not the generator's own loop).
func TestDrainJobList(t *testing.T) {
	c := Cielo()
	for seed := range uint64(3) {
		for _, narrow := range []bool{false, true} {
			m := AuthorsModel{Drain: true, NarrowWork: narrow}
			jobs, err := generateJobs(&c, Options{Seed: seed, Authors: m})
			if err != nil {
				t.Fatal(err)
			}
			need := float64(c.Platform.Nodes) * (1.2*AuthorsWindow + 48.9*3600)
			used := make([]float64, len(c.Classes))
			sum, firstOK := 0.0, -1
			ok := func() bool {
				for k, cl := range c.Classes {
					if math.Abs(used[k]/sum-cl.Share) > 0.01 {
						return false
					}
				}
				return sum >= need
			}
			for i, jb := range jobs {
				cl := c.Classes[jb.Class]
				w := float64(cl.Walltime)
				if lo, hi := 0.8*w, 1.2*w; narrow {
					io := (cl.Input + cl.Output) * c.JobMemory(jb.Class) / float64(c.Platform.Bandwidth)
					lo, hi = 0.9*w-io, 1.1*w-io
					if jb.Work < lo || jb.Work > hi {
						t.Fatalf("narrow job %d work %g outside [%g, %g]", i, jb.Work, lo, hi)
					}
				} else if jb.Work < lo || jb.Work > hi {
					t.Fatalf("job %d work %g outside [%g, %g]", i, jb.Work, lo, hi)
				}
				v := 1.1 * float64(cl.Nodes) * jb.Work
				used[jb.Class] += v
				sum += v
				if firstOK < 0 && ok() {
					firstOK = i
				}
			}
			if firstOK != len(jobs)-1 || sum >= 2*need {
				t.Errorf("seed %d narrow %v: %d jobs, first complete list at %d, node-walltime %g of %g", seed, narrow, len(jobs), firstOK, sum, need)
			}
		}
	}
}

// StaleOutput, by hand (bytes are seconds, span 200 s):
//   - interference-free, one job of 20 s of work and a 10 s output, no
//     checkpoint (P = 1000): the paper's model writes [20, 30]; the
//     authors' code writes nothing, its last computation following its
//     (empty) input: I/O 10 → 0;
//   - the same job with 50 s of work and P = 30, C = 10 (checkpoints
//     [20, 30] and [50, 60]): its last computation follows a checkpoint,
//     and both write the output: I/O 10;
//   - twoJobQueue with SkipLateCheckpoints and a 5 s output for B: B's
//     checkpoint request at 20 is dropped (the token is busy to 100); A
//     fails at 30 and its restart reads [30, 130]; B writes its output at
//     130: 5 s in the paper's model, nothing under Ordered-NB and a
//     checkpoint's 10 s under Least-Waste with StaleOutput. I/O = A's
//     read (100) + B's output.
func TestStaleOutputHand(t *testing.T) {
	for _, tc := range []struct {
		work, period float64
		m            AuthorsModel
		io           float64
	}{
		{20, 1000, AuthorsModel{}, 10},
		{20, 1000, AuthorsModel{StaleOutput: true}, 0},
		{50, 30, AuthorsModel{}, 10},
		{50, 30, AuthorsModel{StaleOutput: true}, 10},
	} {
		c := oneNode(1, 10, 10)
		st, err := Lookup("interference-free-fixed", tc.period)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(&c, st, Options{Span: 200, Jobs: []Job{{Class: 0, Work: tc.work}}, NoFailures: true, Authors: tc.m})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Split.IO-tc.io) > 1e-9 || r.JobsCompleted != 1 {
			t.Errorf("work %g, P %g, %+v: I/O %v (%d done), want %v", tc.work, tc.period, tc.m, r.Split.IO, r.JobsCompleted, tc.io)
		}
	}
	c, opt := twoJobQueue()
	c.Classes[1].Output = 5
	skip := AuthorsModel{SkipLateCheckpoints: true}
	both := AuthorsModel{SkipLateCheckpoints: true, StaleOutput: true}
	for _, tc := range []struct {
		strategy string
		m        AuthorsModel
		io       float64
	}{
		{"ordered-nb-fixed", skip, 105}, {"ordered-nb-fixed", both, 100},
		{"least-waste-fixed", skip, 105}, {"least-waste-fixed", both, 110},
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
		if math.Abs(r.Split.IO-tc.io) > 1e-9 {
			t.Errorf("%s %+v: I/O %v (split %+v), want %v", tc.strategy, tc.m, r.Split.IO, r.Split, tc.io)
		}
	}
}

// recorder is a token Arbiter that grants in arrival order and keeps the
// LastCheckpoint of every checkpoint request it grants.
type recorder struct{ last *[]float64 }

func (r recorder) Pick(now float64, w []Request, env Env) int {
	if w[0].Kind == Checkpoint {
		*r.last = append(*r.last, w[0].LastCheckpoint)
	}
	return 0
}

// InheritedCheckpointDate, by hand (one node, bytes are seconds, a 10 s
// input, 5 s checkpoints, P = 20 so 15 s of work between them, non-
// blocking token, span 70 s): the input ends at 10, checkpoints are
// requested at 25 and 45 (committed at 30), node 0 fails at 47 and the
// restart reads its checkpoint [47, 52] and requests one at 67. The date
// d counts from: 10, 30, 52 in the paper's model (the last checkpoint or
// read of the run); 0 (the run's start, no commit yet), 30, 30 (the
// commit of the failed run) under InheritedCheckpointDate.
func TestInheritedCheckpointDateHand(t *testing.T) {
	c := oneNode(1, 5, 0)
	c.Classes[0].Input = 10
	for _, tc := range []struct {
		m    AuthorsModel
		want []float64
	}{
		{AuthorsModel{}, []float64{10, 30, 52}},
		{AuthorsModel{InheritedCheckpointDate: true}, []float64{0, 30, 30}},
	} {
		st, err := Lookup("least-waste-fixed", 20)
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		st.Arbiter = recorder{&got}
		if _, err := Simulate(&c, st, Options{Span: 70, Jobs: []Job{{Class: 0, Work: 100}},
			Failures: []NodeFailure{{Time: 47, Node: 0}}, Authors: tc.m}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%+v: checkpoint requests counted from %v, want %v", tc.m, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%+v: checkpoint requests counted from %v, want %v", tc.m, got, tc.want)
				break
			}
		}
	}
}

// orders is a token Arbiter that grants in arrival order and keeps the
// Order of every request it grants.
type orders struct{ got *[]uint64 }

func (o orders) Pick(now float64, w []Request, env Env) int {
	*o.got = append(*o.got, w[0].Order)
	return 0
}

// IntegerRisk turns the authors' integer heuristic on (the ranking itself
// is TestLeastWasteIntegerRiskHand in arbiter), and requests carry the
// authors' set order. Two one-node jobs of InheritedCheckpointDate's hand
// case on two nodes; node 1 (the second job's) fails at 47: the first
// job's requests have Order 0, the second's 1<<20 (index 1, run 0), its
// restart's 1<<20 | 1 (run 1).
func TestIntegerRiskWiring(t *testing.T) {
	st, err := Lookup("least-waste", 0)
	if err != nil {
		t.Fatal(err)
	}
	lw := AuthorsModel{IntegerRisk: true}.strategy(st).Arbiter.(LeastWaste)
	if !lw.Swapped || !lw.IntegerRisk {
		t.Errorf("IntegerRisk gives %+v, want the swapped heuristic with integer risk", lw)
	}
	c := oneNode(2, 5, 0)
	c.Classes[0].Input = 10
	st, err = Lookup("least-waste-fixed", 20)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	st.Arbiter = orders{&got}
	if _, err := Simulate(&c, st, Options{Span: 70, Jobs: []Job{{Class: 0, Work: 100}, {ID: 1, Class: 0, Work: 100}},
		Failures: []NodeFailure{{Time: 47, Node: 1}}}); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]bool{0: true, 1 << 20: true, 1<<20 | 1: true}
	seen := map[uint64]bool{}
	for _, o := range got {
		if !want[o] {
			t.Fatalf("request orders %v: %d is neither job 0, job 1 nor job 1's restart", got, o)
		}
		seen[o] = true
	}
	if len(seen) != 3 {
		t.Errorf("request orders %v, want job 0's (0), job 1's (1<<20) and its restart's (1<<20|1)", got)
	}
}

// A Drain job list that cannot meet the class shares (two classes of one
// half each whose every job holds more than twice the node-time the list
// needs: each draw overshoots, is drawn again, for ever) is refused, not
// drawn for ever.
func TestDrainJobListNeverBalanced(t *testing.T) {
	c := Config{
		Platform: Platform{Nodes: 100, MemoryPerNode: 1e9, Bandwidth: 4e10, NodeMTBF: Seconds(Year)},
		Classes: []Class{{Name: "A", Nodes: 100, Walltime: Seconds(100 * Day), Checkpoint: 0.1, Share: 0.5},
			{Name: "B", Nodes: 100, Walltime: Seconds(100 * Day), Checkpoint: 0.1, Share: 0.5}},
	}
	done := make(chan error, 1)
	go func() {
		_, err := generateJobs(&c, Options{Seed: 1, Authors: AuthorsModel{Drain: true}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "within 1%") {
			t.Errorf("unbalanceable job list: %v, want a refusal naming the shares", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("unbalanceable job list: still drawing after 20 s")
	}
}

// Under Drain a run stopped by MaxEvents names the time it would have run
// to (the drain's cap, 20 × min_run, in the first pass), not the unused
// Span.
func TestDrainMaxEventsMessage(t *testing.T) {
	c := oneNode(2, 1, 0)
	st, err := Lookup("interference-free-fixed", 100)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(&c, st, Options{Span: 200, NoFailures: true, MaxEvents: 50, Jobs: []Job{{Class: 0, Work: 15 * Day}, {ID: 1, Class: 0, Work: 5 * Day}},
		Authors: AuthorsModel{Drain: true}})
	want := fmt.Sprintf("of %.0f s", 20*(1.2*AuthorsWindow+48.9*3600))
	if !errors.Is(err, ErrTooManyEvents) || !strings.Contains(err.Error(), want) {
		t.Errorf("drain run over MaxEvents: %v, want %q", err, want)
	}
}
