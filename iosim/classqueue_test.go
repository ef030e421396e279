package iosim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/units"
	"pgregory.net/rapid"
)

// classQueueVariants are the option sets the queue by class is checked
// under: both schedulers, exact and virtual sharing, and the authors'
// switches (restart-from-stop can nest a pass inside a start).
func classQueueVariants(t interface{ Fatal(...any) }) []Options {
	keep, err := ParseAuthorsModel("keep-reservations,stale-rates")
	if err != nil {
		t.Fatal(err)
	}
	rfs, err := ParseAuthorsModel("restart-from-stop")
	if err != nil {
		t.Fatal(err)
	}
	all := AllAuthors()
	all.Drain, all.Window = false, 0 // the drained list and 31-day window: TestClassQueueRunsEqualScan
	var out []Options
	for _, sch := range []Scheduler{Reserve, Greedy} {
		out = append(out,
			Options{Scheduler: sch},
			Options{Scheduler: sch, VirtualTime: true},
			Options{Scheduler: sch, Authors: all, Accounting: AuthorsAccounting},
			Options{Scheduler: sch, Authors: keep},
			Options{Scheduler: sch, Authors: rfs},
		)
	}
	return out
}

// runsByScan compares every strategy's run with the queue by class and
// with the scan (scanQueue, the oracle), bit for bit, with the queue
// checked at every pass; it returns the runs compared.
func runsByScan(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, c *Config, sts []Strategy, o Options) int {
	t.Helper()
	defer func(m int) { checkQueueMirror, classQueueMin = false, m }(classQueueMin)
	checkQueueMirror, classQueueMin = true, 0
	n := 0
	for _, st := range sts {
		fast, scan := simulateSwitched(t, c, st, o, &scanQueue)
		if a, b := fmt.Sprintf("%#v", fast), fmt.Sprintf("%#v", scan); a != b {
			t.Fatalf("%s, %s scheduler, authors %+v, virtual %v, seed %d:\nby class %s\nscan     %s", st.Name, o.Scheduler, o.Authors, o.VirtualTime, o.Seed, a, b)
		}
		if fast.JobsStarted == 0 {
			t.Fatalf("%s: no job started", st.Name)
		}
		n++
	}
	return n
}

// The passes over the queue by class start, bit for bit, the jobs the
// scan started: every strategy × scheduler × authors' switches, on the
// small platform and on Cielo ×1 and ×4.
func TestClassQueueRunsEqualScan(t *testing.T) {
	sts := allStrategies(t)
	plats := []struct {
		c    Config
		span float64
	}{{small(), 12 * Day}, {scaledCielo(1), 6 * Day}, {scaledCielo(4), 3 * Day}}
	for pi, p := range plats {
		for _, o := range classQueueVariants(t) {
			o.Span, o.Skip, o.Seed = p.span, Day, uint64(3+pi)
			runsByScan(t, &p.c, sts, o)
		}
	}
	c := scaledCielo(1)
	runsByScan(t, &c, sts, Options{Seed: 2, Authors: AllAuthors(), Accounting: AuthorsAccounting})
}

// A restart with nothing left to do completes inside its start and runs a
// nested pass (restart-from-stop: jobs that never checkpoint, failing in
// their output, with no input); the greedy pass over the queue by class
// then hands over to the scan, and the runs still equal the scan's. The
// test fails unless the hand-over happened.
func TestClassQueueNestedPass(t *testing.T) {
	c := Config{Platform: Platform{Name: "nest", Nodes: 1024, MemoryPerNode: 1e9, Bandwidth: 4e9, NodeMTBF: Seconds(2 * Day)},
		Classes: []Class{{Name: "A", Nodes: 4, Walltime: 3600, Output: 20, Checkpoint: 0.5, Share: 0.5},
			{Name: "B", Nodes: 16, Walltime: 7200, Output: 10, Checkpoint: 0.5, Share: 0.5}}}
	sts, err := LookupList("oblivious-fixed,ordered-nb-fixed", 20*3600)
	if err != nil {
		t.Fatal(err)
	}
	rfs, err := ParseAuthorsModel("restart-from-stop")
	if err != nil {
		t.Fatal(err)
	}
	nested := 0
	onNestedPass = func() { nested++ }
	defer func() { onNestedPass = nil }()
	runsByScan(t, &c, sts, Options{Scheduler: Greedy, Authors: rfs, Span: 3 * Day, Skip: Day, Seed: 1})
	if nested == 0 {
		t.Fatal("no pass over the queue by class handed over to the scan after a nested pass")
	}
	t.Logf("%d hand-overs after a nested pass", nested)
}

// Random platforms (nodes, classes and their widths drawn) and seeds.
func TestClassQueueRandomPlatforms(t *testing.T) {
	sts := allStrategies(t)
	variants := classQueueVariants(t)
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(8, 300).Draw(t, "nodes")
		nc := rapid.IntRange(1, 5).Draw(t, "classes")
		c := Config{Platform: Platform{Name: "random", Nodes: nodes, MemoryPerNode: 1e9, Bandwidth: units.Bandwidth(rapid.Float64Range(2e7, 1e9).Draw(t, "bw")), NodeMTBF: Seconds(rapid.IntRange(50, 2000).Draw(t, "mtbf days") * int(Day))}}
		for k := range nc {
			c.Classes = append(c.Classes, Class{Name: strings.Repeat("c", k+1), Nodes: rapid.IntRange(1, nodes).Draw(t, "q"),
				Walltime: Seconds(rapid.IntRange(1, 30).Draw(t, "hours") * 3600), Input: rapid.SampledFrom([]float64{0, 0.2}).Draw(t, "input"), Output: 0.4, Checkpoint: rapid.Float64Range(0.1, 2).Draw(t, "ckpt"),
				RegularIO: float64(rapid.IntRange(0, 2).Draw(t, "rio")), Share: float64(rapid.IntRange(1, 10).Draw(t, "share"))})
		}
		sum := 0.0
		for _, cl := range c.Classes {
			sum += cl.Share
		}
		for k := range c.Classes {
			c.Classes[k].Share /= sum
		}
		o := rapid.SampledFrom(variants).Draw(t, "options")
		o.Span, o.Skip, o.Seed = float64(rapid.IntRange(3, 12).Draw(t, "days"))*Day, Day, rapid.Uint64().Draw(t, "seed")
		st := rapid.SampledFrom(sts).Draw(t, "strategy")
		if err := c.Validate(); err != nil {
			t.Skip(err)
		}
		if _, err := Simulate(&c, st, o); err != nil {
			t.Skip(err)
		}
		runsByScan(t, &c, []Strategy{st}, o)
	})
}

// A class's queue answers first and firstPassing as a scan of a plain
// list does (the oracle), over pushes at both ends and removals anywhere,
// with plans that include ±0, +Inf and NaN, and thresholds as the pass
// computes them.
func TestClassQueueOps(t *testing.T) {
	plans := []float64{math.Copysign(0, -1), 0, 1, 2, 3.5, 1e300, math.Inf(1), math.NaN()}
	rapid.Check(t, func(t *rapid.T) {
		var cq classQueue
		var model []*job
		cq.rebuild(0)
		n := 0
		for range rapid.IntRange(1, 300).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 3 || len(model) == 0:
				j := &job{id: n, plan: rapid.SampledFrom(plans).Draw(t, "plan")}
				n++
				if rapid.Bool().Draw(t, "front") {
					cq.pushFront(j)
					model = slices.Insert(model, 0, j)
				} else {
					cq.pushBack(j)
					model = append(model, j)
				}
			case op < 6:
				k := rapid.IntRange(0, len(model)-1).Draw(t, "remove")
				cq.remove(model[k])
				model = slices.Delete(model, k, k+1)
			default:
				from := rapid.IntRange(cq.lo, cq.hi).Draw(t, "from") // a leaf, possibly empty
				k := 0
				for k < len(model) && int(model[k].cpos) < from {
					k++
				}
				if got := cq.first(); got != model[0] {
					t.Fatalf("first: job %v, want %v", got, model[0])
				}
				now := rapid.SampledFrom([]float64{0, 1, 1e300}).Draw(t, "now")
				shadow := rapid.SampledFrom(plans).Draw(t, "shadow")
				var want *job
				for _, j := range model[k:] {
					if now+j.plan <= shadow {
						want = j
						break
					}
				}
				if got := cq.firstPassing(from, now, shadow); got != want {
					t.Fatalf("first from entry %d passing %v + p <= %v: job %v, want %v", k, now, shadow, got, want)
				}
			}
			if n := len(slices.DeleteFunc(slices.Clone(cq.jobs[cq.lo:cq.hi]), func(j *job) bool { return j == nil })); n != len(model) {
				t.Fatalf("%d jobs, model %d", n, len(model))
			}
		}
	})
}

// Keys that reach the int32 range's end are renumbered in queue order
// (2³¹ restarts in one run): a run whose front key starts one restart
// from the end is, bit for bit, the scan's run.
func TestClassQueueKeysRenumbered(t *testing.T) {
	defer func(m int) { checkQueueMirror, classQueueMin = false, m }(classQueueMin)
	c := small()
	st, err := Lookup("least-waste", 3600)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Span: 12 * Day, Skip: Day, Seed: 3}
	scanQueue = true
	want, err := Simulate(&c, st, o)
	scanQueue = false
	if err != nil {
		t.Fatal(err)
	}
	checkQueueMirror, classQueueMin = true, 0
	s, err := newSimulator(&c, st, o)
	if err != nil {
		t.Fatal(err)
	}
	s.cqDecided = true
	s.indexQueue()
	s.keyFront = math.MinInt32 + 1
	if err := s.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := s.result()
	if s.keyFront < -int32(got.JobFailures)-1 {
		t.Fatalf("front key %d after %d failures: not renumbered", s.keyFront, got.JobFailures)
	}
	if a, b := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); a != b {
		t.Fatalf("renumbered %s\nscan       %s", a, b)
	}
}
