package iosim

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/ckpt-hpc/ckpt/des"
	"pgregory.net/rapid"
)

// The trace holds each node's failure times as its own stream gives them,
// drawn here one node at a time (the oracle: des.Stream, t += E·μ until
// past w1), and no node that does not fail in [0, w1].
func TestFailureTraceMatchesStreams(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		N := rapid.IntRange(1, 300).Draw(t, "N")
		mu := rapid.Float64Range(100, 1e6).Draw(t, "mu")
		w1 := rapid.Float64Range(0, 1e6).Draw(t, "w1")
		var fc failureCache
		tr := fc.traceFor(seed, N, mu, w1)
		if tr == nil {
			t.Fatalf("no trace for %d nodes, MTBF %g, w1 %g", N, mu, w1)
		}
		var want [][]float64
		var nodes []int32
		for k := range N {
			r := des.Stream(seed, streamFailures, uint64(k))
			var ts []float64
			for at := r.ExpFloat64() * mu; at <= w1; at += r.ExpFloat64() * mu {
				ts = append(ts, at)
			}
			if len(ts) > 0 {
				nodes = append(nodes, int32(k))
				want = append(want, ts)
			}
		}
		if !reflect.DeepEqual(tr.node, nodes) && len(nodes)+len(tr.node) > 0 {
			t.Fatalf("failing nodes %v, want %v", tr.node, nodes)
		}
		for i := range nodes {
			if got := tr.times[tr.off[i]:tr.off[i+1]]; !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("node %d: times %v, want %v", nodes[i], got, want[i])
			}
		}
		if fc.traceFor(seed, N, mu, w1) != tr {
			t.Fatal("the same key drew a new trace")
		}
		if fc.traceFor(seed, N, mu, w1+1) == tr {
			t.Fatal("another window end read the old trace")
		}
	})
}

// A platform with more expected failures than a trace may hold gets none
// (the runs draw as they go), rather than a trace of unbounded memory.
func TestFailureTraceBounded(t *testing.T) {
	var fc failureCache
	if tr := fc.traceFor(1, 1000, 1, 62*Day); tr != nil {
		t.Fatalf("a trace of %d failures", len(tr.times))
	}
	if fc.traceFor(1, 1000, 1, 62*Day) != nil {
		t.Fatal("the second call drew a trace")
	}
}

// A run reading the trial's trace is the run drawing its own failures,
// bit for bit, whatever the strategy, scheduler, window and switches,
// and a second run on the same cache is too.
func TestTraceRunsEqualLazyRuns(t *testing.T) {
	c := small()
	sts := allStrategies(t)
	authors := AuthorsModel{SwappedLeastWaste: true, SkipLateCheckpoints: true, RestartFromStop: true,
		StaleOutput: true, InheritedCheckpointDate: true, IntegerRisk: true, NoRegularIO: true}
	opts := []Options{
		{Span: 8 * Day, Skip: Day},
		{Span: 8 * Day, Skip: Day, Scheduler: Greedy},
		{Span: 8 * Day, Skip: Day, VirtualTime: true},
		{Span: 8 * Day, Skip: Day, Authors: authors, Accounting: AuthorsAccounting},
		{Span: 8 * Day, Skip: Day, Authors: AuthorsModel{KeepReservations: true, StaleRates: true, RestartFromStop: true}},
	}
	for oi, o := range opts {
		for _, seed := range []uint64{1, 2} {
			o.Seed = seed
			fc := &failureCache{}
			for _, st := range sts {
				lazy, err := Simulate(&c, st, o)
				if err != nil {
					t.Fatalf("options %d: %v", oi, err)
				}
				ot := o
				ot.failures = fc
				traced, err := Simulate(&c, st, ot)
				if err != nil {
					t.Fatal(err)
				}
				if fc.trace == nil || !fc.trace.ok {
					t.Fatalf("options %d: the run drew no trace", oi)
				}
				if lazy.JobFailures == 0 {
					t.Fatalf("options %d, %s: no failure", oi, st.Name)
				}
				if a, b := fmt.Sprintf("%#v", lazy), fmt.Sprintf("%#v", traced); a != b {
					t.Fatalf("options %d, seed %d, %s:\nlazy   %s\ntraced %s", oi, seed, st.Name, a, b)
				}
			}
		}
	}
}

// A run that keeps the last release's nodes aside (tail) and lets a
// restart take them without copying is, bit for bit, the run that
// appends and copies them every time (eagerFree).
func TestTailRunsEqualEagerRuns(t *testing.T) {
	c := small()
	for _, st := range allStrategies(t) {
		for _, o := range []Options{{Span: 8 * Day, Skip: Day, Seed: 3}, {Span: 8 * Day, Skip: Day, Seed: 4, Scheduler: Greedy}} {
			lazy, eager := simulateSwitched(t, &c, st, o, &eagerFree)
			if lazy.JobFailures == 0 {
				t.Fatalf("%s: no failure", st.Name)
			}
			if a, b := fmt.Sprintf("%#v", lazy), fmt.Sprintf("%#v", eager); a != b {
				t.Fatalf("%s:\ntail  %s\neager %s", st.Name, a, b)
			}
		}
	}
}

// A run's memory lent to the next comes back as new: no node reads as
// busy (a stale entry could name a job of the new run) and no job keeps
// an event of the last run (its closure is bound to that simulator).
func TestLentMemoryIsFresh(t *testing.T) {
	c := small()
	st, err := Lookup("least-waste", 3600)
	if err != nil {
		t.Fatal(err)
	}
	fc := &failureCache{}
	o := Options{Span: 8 * Day, Skip: Day, Seed: 5, failures: fc}
	if _, err := Simulate(&c, st, o); err != nil {
		t.Fatal(err)
	}
	if fc.nodeJob == nil || fc.slab == nil {
		t.Fatal("the run kept no memory")
	}
	busy := 0
	for _, v := range fc.nodeJob {
		if v != 0 {
			busy++
		}
	}
	if busy == 0 {
		t.Fatal("the run left no entry: the test checks nothing")
	}
	s, err := newSimulator(&c, st, o)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range s.nodeJob {
		if v != 0 {
			t.Fatalf("node %d of a new run reads %#x", k, v)
		}
	}
	for i := range s.slabAll {
		if j := &s.slabAll[i]; i >= len(s.queue) && (j.ev != nil || j.trEv != nil) {
			t.Fatalf("slab job %d keeps the last run's events", i)
		}
	}
	for _, j := range s.queue {
		if j.ev != nil || j.trEv != nil {
			t.Fatalf("job %d of a new run has the last run's events", j.id)
		}
	}
}

// Under FCFS the waiting requests stay in increasing sequence numbers at
// every grant, whatever the switches (so the first is FCFS.Pick's
// choice), and without the switches the runs are those of FCFS.Pick
// itself (behind another type, so that grant builds every request).
func TestWaitingInSeqOrder(t *testing.T) {
	checkWaitingOrder = true
	defer func() { checkWaitingOrder = false }()
	c := small()
	opts := []Options{
		{Span: 8 * Day, Skip: Day, Seed: 1},
		{Span: 8 * Day, Skip: Day, Seed: 2, Authors: AuthorsModel{KeepReservations: true, SkipLateCheckpoints: true}},
		{Span: 8 * Day, Skip: Day, Seed: 3, Authors: AuthorsModel{KeepReservations: true, RestartFromStop: true}, Scheduler: Greedy},
	}
	for _, n := range []string{"ordered-fixed", "ordered-daly", "ordered-nb-fixed", "ordered-nb-daly"} {
		st, err := Lookup(n, 3600)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range opts {
			r, err := Simulate(&c, st, o)
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			if o.Authors != (AuthorsModel{}) {
				continue // the switches read the arbiter's type (fcfsToken)
			}
			ref := st
			ref.Arbiter = fcfsByPick{}
			want, err := Simulate(&c, ref, o)
			if err != nil {
				t.Fatal(err)
			}
			r.Strategy, want.Strategy = "", ""
			if a, b := fmt.Sprintf("%#v", r), fmt.Sprintf("%#v", want); a != b {
				t.Fatalf("%s:\nfirst  %s\nPick   %s", n, a, b)
			}
		}
	}
}

// fcfsByPick is FCFS.Pick behind another type, so that grant asks it.
type fcfsByPick struct{}

func (fcfsByPick) Pick(now float64, reqs []Request, env Env) int { return FCFS{}.Pick(now, reqs, env) }

// The builtins max and min, inlined, are math.Max and math.Min bit for
// bit when one argument is a finite constant (NaN, ±0 and ±Inf in the
// other included), so the simulator uses them there, where a call to
// math's assembly was 5 % of a Cielo ×16 trial. Elsewhere it keeps math's:
// math.Max(+Inf, NaN) is +Inf, the builtin's NaN (checked here too).
func TestBuiltinMaxIsMathMax(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat64}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	check := func(x, c float64) {
		if !same(max(x, c), math.Max(x, c)) || !same(min(x, c), math.Min(x, c)) ||
			!same(max(c, x), math.Max(c, x)) || !same(min(c, x), math.Min(c, x)) {
			t.Fatalf("x %v c %v: max %v math.Max %v, min %v math.Min %v", x, c, max(x, c), math.Max(x, c), min(x, c), math.Min(x, c))
		}
	}
	consts := []float64{0, 1, 1e-300} // the simulator's
	for _, x := range special {
		for _, c := range consts {
			check(x, c)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		x := math.Float64frombits(rapid.Uint64().Draw(t, "x"))
		check(x, rapid.SampledFrom(consts).Draw(t, "c"))
	})
	if inf, nan := math.Inf(1), math.NaN(); same(max(inf, nan), math.Max(inf, nan)) {
		t.Fatal("max(+Inf, NaN) is math.Max's: the comment above is out of date")
	}
}

// The failures walked in one event (failureWalk) are, bit for bit, the
// failures of one event per failing node (traceFailuresPerNode), also
// where many fail at the same time: the trace's times are floored to a
// grid of g seconds, so that nodes fail together and a node's next
// failure can fall at the time of its previous one (then it must fire
// after every failure already pending at that time).
func TestFailureWalkEqualsPerNodeEvents(t *testing.T) {
	c := small()
	c.Platform.NodeMTBF = Seconds(5 * Day) // about 1.4 failures a node
	sts := allStrategies(t)
	selfAll := 0
	for _, g := range []float64{6 * 3600, Day} {
		for _, seed := range []uint64{1, 2} {
			for _, o := range []Options{{Span: 8 * Day, Skip: Day, Seed: seed}, {Span: 8 * Day, Skip: Day, Seed: seed, Scheduler: Greedy, VirtualTime: true}} {
				fc := &failureCache{}
				o.failures = fc
				if _, err := Simulate(&c, sts[0], o); err != nil { // draws the trace
					t.Fatal(err)
				}
				tr := fc.trace
				ties, self := 0, 0
				for i := range tr.times {
					tr.times[i] = math.Floor(tr.times[i]/g) * g
				}
				for i := range tr.node {
					for x := tr.off[i] + 1; x < tr.off[i+1]; x++ {
						if tr.times[x] == tr.times[x-1] {
							self++
						}
					}
				}
				seen := map[float64]int{}
				for _, at := range tr.times {
					seen[at]++
				}
				for _, n := range seen {
					ties += n - 1
				}
				if ties < 10 {
					t.Fatalf("grid %g: %d failures share a time: the test checks nothing", g, ties)
				}
				selfAll += self
				tr.order = nil // the times changed
				for _, st := range sts {
					walk, per := simulateSwitched(t, &c, st, o, &perNodeFailures)
					if per.JobFailures == 0 {
						t.Fatalf("%s: no failure", st.Name)
					}
					if a, b := fmt.Sprintf("%#v", walk), fmt.Sprintf("%#v", per); a != b {
						t.Fatalf("grid %g, seed %d, %s:\nwalk     %s\nper node %s", g, seed, st.Name, a, b)
					}
				}
			}
		}
	}
	if selfAll == 0 {
		t.Fatal("no node fails twice at the same time: the test checks nothing of it")
	}
}

// The same as a property: any seed, MTBF, grid (0: the times as drawn),
// strategy and scheduler; the walk's run is the per-node events' run.
func TestFailureWalkProperty(t *testing.T) {
	c0 := small()
	sts := allStrategies(t)
	rapid.Check(t, func(t *rapid.T) {
		c := c0
		c.Platform.NodeMTBF = Seconds(rapid.Float64Range(5, 60).Draw(t, "mtbf days") * Day)
		g := rapid.SampledFrom([]float64{0, 600, 3600, Day}).Draw(t, "grid")
		st := rapid.SampledFrom(sts).Draw(t, "strategy")
		o := Options{Span: 6 * Day, Skip: Day, Seed: rapid.Uint64().Draw(t, "seed"),
			Scheduler: rapid.SampledFrom([]Scheduler{Reserve, Greedy}).Draw(t, "scheduler")}
		fc := &failureCache{}
		o.failures = fc
		if _, err := Simulate(&c, st, o); err != nil { // draws the trace
			t.Skip(err) // a platform refused up front
		}
		if g > 0 {
			for i, at := range fc.trace.times {
				fc.trace.times[i] = math.Floor(at/g) * g
			}
			fc.trace.order = nil
		}
		walk, per := simulateSwitched(t, &c, st, o, &perNodeFailures)
		if a, b := fmt.Sprintf("%#v", walk), fmt.Sprintf("%#v", per); a != b {
			t.Fatalf("walk     %s\nper node %s", a, b)
		}
	})
}

// Trials that pass their memory on to each other (cachePool), on
// platforms of different sizes and seeds, in sequence and at once, give
// what each gives alone with fresh memory.
func TestPooledTrialsEqualFreshTrials(t *testing.T) {
	sts := allStrategies(t)
	big := small()
	big.Platform.Nodes *= 3
	cases := []struct {
		c    Config
		seed uint64
	}{{small(), 1}, {big, 2}, {small(), 3}, {big, 1}, {small(), 1}}
	want := make([]string, len(cases))
	for i, k := range cases {
		cachePool = sync.Pool{New: func() any { return &failureCache{} }} // fresh: nothing to pass on
		out, err := Trial(&k.c, sts, Options{Span: 6 * Day, Skip: Day, Seed: k.seed})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fmt.Sprintf("%#v", out)
	}
	var wg sync.WaitGroup
	got := make([]string, 2*len(cases))
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, k := range cases {
				out, err := Trial(&k.c, sts, Options{Span: 6 * Day, Skip: Day, Seed: k.seed})
				if err != nil {
					t.Error(err)
					return
				}
				got[w*len(cases)+i] = fmt.Sprintf("%#v", out)
			}
		}()
	}
	wg.Wait()
	for i, g := range got {
		if w := want[i%len(cases)]; g != w {
			t.Fatalf("trial %d after others:\n%s\nalone:\n%s", i, g, w)
		}
	}
}

// simulateSwitched runs st on c with the test switch *sw off, then on
// (the oracle's path), and sets it back.
func simulateSwitched(t interface {
	Helper()
	Fatal(...any)
}, c *Config, st Strategy, o Options, sw *bool) (off, on Run) {
	t.Helper()
	off, err := Simulate(c, st, o)
	if err != nil {
		t.Fatal(err)
	}
	*sw = true
	on, err = Simulate(c, st, o)
	*sw = false
	if err != nil {
		t.Fatal(err)
	}
	return off, on
}
