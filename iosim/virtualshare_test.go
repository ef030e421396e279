package iosim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/des"
	"github.com/ckpt-hpc/ckpt/units"
)

// simulateVirtual is Simulate with Options.VirtualTime.
func simulateVirtual(c *Config, st Strategy, opt Options) (Run, error) {
	opt.VirtualTime = true
	return SimulateContext(context.Background(), c, st, opt)
}

// shareTol is the relative tolerance between the virtual clock and the
// exact way: both compute the same real numbers, completion times to about
// 10⁻¹³ of the time (see virtualshare.go); 10⁻⁹ leaves room for the sums
// over a run. Counts must be equal.
const shareTol = 1e-9

// runsNear describes the first difference between a and b beyond shareTol
// (relative to the larger magnitude, and for the Split to nodes × window),
// or returns "".
func runsNear(a, b Run) string {
	if a.Strategy != b.Strategy || a.Seed != b.Seed || a.Nodes != b.Nodes || a.Checkpoints != b.Checkpoints ||
		a.NodeFailures != b.NodeFailures || a.JobFailures != b.JobFailures || a.JobsStarted != b.JobsStarted ||
		a.JobsCompleted != b.JobsCompleted || a.Events != b.Events || len(a.ClassShares) != len(b.ClassShares) {
		return "counts differ"
	}
	near := func(x, y, scale float64) bool {
		return math.Abs(x-y) <= shareTol*math.Max(scale, math.Max(math.Abs(x), math.Abs(y)))
	}
	total := float64(a.Nodes) * a.Window
	for _, p := range [][2]float64{{a.Split.Work, b.Split.Work}, {a.Split.IO, b.Split.IO}, {a.Split.Checkpoint, b.Split.Checkpoint},
		{a.Split.Lost, b.Split.Lost}, {a.Split.Idle, b.Split.Idle}} {
		if !near(p[0], p[1], total) {
			return fmt.Sprintf("split %v against %v", p[0], p[1])
		}
	}
	for _, p := range [][2]float64{{a.Window, b.Window}, {a.CheckpointActual, b.CheckpointActual},
		{a.CheckpointNominal, b.CheckpointNominal}, {a.Busy, b.Busy}} {
		if !near(p[0], p[1], 0) {
			return fmt.Sprintf("%v against %v", p[0], p[1])
		}
	}
	for k := range a.ClassShares {
		if !near(a.ClassShares[k], b.ClassShares[k], 1) {
			return fmt.Sprintf("class %d share %v against %v", k, a.ClassShares[k], b.ClassShares[k])
		}
	}
	return ""
}

// randomPlatform draws a small platform whose classes may be identical
// in size (so completions tie and their order is exercised).
func randomPlatform(t *rapid.T) Config {
	nodes := rapid.IntRange(4, 96).Draw(t, "nodes")
	c := Config{Platform: Platform{Name: "r", Nodes: nodes,
		MemoryPerNode: rapid.Float64Range(1e8, 4e9).Draw(t, "mem"),
		Bandwidth:     units.Bandwidth(rapid.Float64Range(1e7, 1e10).Draw(t, "beta")),
		NodeMTBF:      Seconds(rapid.Float64Range(2*Day, 5*Year).Draw(t, "mtbf"))}}
	for k := range rapid.IntRange(1, 4).Draw(t, "classes") {
		c.Classes = append(c.Classes, Class{Name: string(rune('A' + k)),
			Nodes:      rapid.IntRange(1, nodes).Draw(t, "q"),
			Walltime:   Seconds(rapid.Float64Range(600, 30*3600).Draw(t, "walltime")),
			Input:      rapid.Float64Range(0, 1).Draw(t, "input"),
			Output:     rapid.Float64Range(0, 1).Draw(t, "output"),
			Checkpoint: rapid.Float64Range(0.01, 2).Draw(t, "ckpt"),
			RegularIO:  rapid.SampledFrom([]float64{0, 0, 0.5, 3}).Draw(t, "regular"),
			Share:      rapid.Float64Range(0.1, 1).Draw(t, "share")})
	}
	sum := 0.0
	for _, k := range c.Classes {
		sum += k.Share
	}
	for k := range c.Classes {
		c.Classes[k].Share /= sum
	}
	return c
}

// Conservation, against rates the test computes itself: stepping random
// failure-free runs event by event, each active transfer of a job of q
// nodes moves β·q/S bytes per second between two events (S the nodes of
// the transfers active then, found by scanning the running jobs), and
// when the simulator ends a transfer the bytes so integrated equal the
// bytes it requested (to shareTol): no transfer ends early (which would
// exceed the bandwidth) or late (which would leave it unused). The IO of
// a window covering the whole run is then Σ q·bytes/β over the ended
// transfers plus the moved part of the open ones.
func TestVirtualShareConservesBytes(t *testing.T) {
	ended := 0
	rapid.Check(t, func(t *rapid.T) {
		c := randomPlatform(t)
		st, _ := Lookup(rapid.SampledFrom([]string{"oblivious-fixed", "oblivious-daly"}).Draw(t, "strategy"), 3600)
		if c.Validate() != nil {
			t.Skip("invalid platform")
		}
		s, err := newSimulator(&c, st, Options{Span: rapid.Float64Range(0.2, 3).Draw(t, "days") * Day, Skip: 0,
			Seed: rapid.Uint64().Draw(t, "seed"), NoFailures: true, MaxEvents: 2_000_000, VirtualTime: true})
		if err != nil {
			t.Fatal(err)
		}
		beta := float64(c.Platform.Bandwidth)
		type key struct {
			tr  *transfer
			ord uint64
		}
		type flow struct {
			q           int
			kind        Kind
			want, moved float64
			steps       int // events during the transfer
		}
		flows := map[key]*flow{}
		io := 0.0 // the test's IO node-seconds: q·bytes/β of the input, output and regular I/O
		// integrate moves every transfer active now to time t1 at the
		// rates the test computes.
		integrate := func(t1 float64) {
			sumQ := 0
			for _, j := range s.running {
				if j.state == sTransfer {
					sumQ += j.q
				}
			}
			for _, j := range s.running {
				if j.state != sTransfer {
					continue
				}
				k := key{j.tr, j.tr.ord}
				f := flows[k]
				if f == nil {
					f = &flow{q: j.q, kind: j.tr.kind, want: j.tr.remaining} // the requested bytes
					flows[k] = f
				}
				f.moved += beta * float64(j.q) / float64(sumQ) * (t1 - s.sim.Now())
				f.steps++
			}
		}
		book := func(f *flow, bytes float64) {
			if f.kind != Checkpoint && f.kind != Recovery {
				io += float64(f.q) * bytes / beta
			}
		}
		s.schedule()
		for s.sim.Peek() <= s.w1 {
			integrate(s.sim.Peek())
			s.sim.Step()
			if s.err != nil {
				t.Fatal(s.err)
			}
			for k, f := range flows {
				if k.tr.hidx >= 0 && k.tr.ord == k.ord {
					continue // still active
				}
				// Event times are rounded to the clock's resolution, 2⁻⁵² t:
				// β·2⁻⁵¹·t bytes per event besides the relative tolerance.
				if tol := shareTol*f.want + beta*float64(f.steps)*0x1p-51*s.sim.Now(); math.Abs(f.moved-f.want) > tol {
					t.Fatalf("t = %g: a transfer of %g bytes ended after moving %g", s.sim.Now(), f.want, f.moved)
				}
				book(f, f.want)
				delete(flows, k)
				ended++
			}
		}
		integrate(s.w1)
		for _, f := range flows {
			if f.moved > f.want*(1+shareTol)+beta*float64(f.steps)*0x1p-51*s.w1 {
				t.Fatalf("an open transfer of %g bytes moved %g", f.want, f.moved)
			}
			book(f, f.moved)
		}
		r := s.result()
		if total := float64(c.Platform.Nodes) * r.Window; math.Abs(r.Split.IO-io) > shareTol*total {
			t.Fatalf("IO %g node-seconds, the test integrates %g", r.Split.IO, io)
		}
	})
	if ended < 1000 {
		t.Fatalf("only %d transfers ended", ended)
	}
}

// The same runs, exactly and in virtual time, on the test platform and on
// Cielo ×1 and ×4 over 3 days, every proportional strategy (over 62 days
// the runs drift apart by a decision taken one event earlier or later:
// see virtualshare.go).
func TestVirtualShareMatchesExact(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, c := range []Config{small(), Cielo(), scaledCielo(4)} {
		for _, n := range []string{"oblivious-fixed", "oblivious-daly"} {
			for _, acc := range []Accounting{OurAccounting, AuthorsAccounting} {
				st, _ := Lookup(n, 3600)
				opt := Options{Span: 3 * Day, Skip: Day / 2, Seed: 5, Accounting: acc}
				v, err := simulateVirtual(&c, st, opt)
				if err != nil {
					t.Fatal(err)
				}
				exact, err := Simulate(&c, st, opt)
				if err != nil {
					t.Fatal(err)
				}
				if d := runsNear(v, exact); d != "" || v.Events < 100 || v.JobFailures == 0 {
					t.Fatalf("%s %d nodes %s %s: runs differ (%s) or exercise little:\n%+v\n%+v", c.Platform.Name, c.Platform.Nodes, n, acc, d, v, exact)
				}
			}
		}
	}
}

// refShare is the test's own fluid model: at every change, every active
// transfer is brought to now at its rate β·q/S and the rates recomputed.
type refShare struct {
	beta, now float64
	q         []int
	left      []float64 // remaining bytes; < 0: not active
	rate      []float64
}

func (r *refShare) to(t float64) {
	for i := range r.left {
		if r.left[i] >= 0 {
			r.left[i] = math.Max(r.left[i]-r.rate[i]*(t-r.now), 0)
		}
	}
	r.now = t
}

func (r *refShare) reshare() {
	S := 0
	for i := range r.left {
		if r.left[i] >= 0 {
			S += r.q[i]
		}
	}
	for i := range r.left {
		if r.left[i] >= 0 {
			r.rate[i] = r.beta * float64(r.q[i]) / float64(S)
		}
	}
}

// next is the earliest completion: its index and time (-1 when none).
func (r *refShare) next() (int, float64) {
	k, best := -1, math.Inf(1)
	for i := range r.left {
		if r.left[i] >= 0 {
			if t := r.now + r.left[i]/r.rate[i]; t < best {
				k, best = i, t
			}
		}
	}
	return k, best
}

// Oracle for the virtual clock alone: random transfers (sizes, nodes,
// start times) and aborts, some with the authors' stale rates, driven
// through the simulator's own vAdd, vRemove and vRemoveStale and through
// refShare; every transfer ends at the same time in both (to shareTol of
// the time) and no bandwidth is left over or exceeded (refShare's rates
// sum to β).
func TestVirtualShareMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		beta := rapid.Float64Range(1e6, 1e12).Draw(t, "beta")
		n := rapid.IntRange(1, 60).Draw(t, "transfers")
		type op struct {
			at    float64
			i     int
			abort bool
		}
		var ops []op
		q := make([]int, n)
		bytes := make([]float64, n)
		for i := range n {
			q[i] = rapid.SampledFrom([]int{1, 1, 2, 3, 16, 1000}).Draw(t, "q")
			bytes[i] = rapid.Float64Range(1, 1e13).Draw(t, "bytes")
			ops = append(ops, op{at: rapid.Float64Range(0, 1e5).Draw(t, "start"), i: i})
			if rapid.IntRange(0, 4).Draw(t, "abort?") == 0 {
				// at least 1 ms after the start: an abort that rounds to the
				// very instant its transfer ends (1 byte at 1e12 B/s from
				// t = 1e5, an abort 7.3e-12 s later: the same float) is a tie
				// either order may take (the reference ends first, the
				// event queue runs the abort first); found by CI's run
				ops = append(ops, op{at: ops[len(ops)-1].at + rapid.Float64Range(1e-3, 1e4).Draw(t, "abort"), i: i, abort: true})
			}
		}
		slices.SortStableFunc(ops, func(a, b op) int { return cmpFloat(a.at, b.at) })
		stale := rapid.Bool().Draw(t, "stale")

		// The virtual clock, inside a bare simulator.
		s := &simulator{sim: des.New(), beta: beta, virtual: true, w1: math.Inf(1)}
		trs := make([]transfer, n)
		endV := make([]float64, n)
		for i := range endV {
			endV[i] = -1
		}
		s.shareEv = s.sim.NewEvent(func() {
			tr := s.shares[0]
			endV[slices.Index(trsPtrs(trs), tr)] = s.sim.Now()
			s.vRemove(tr)
		})
		for _, o := range ops {
			s.sim.At(o.at, func() {
				tr := &trs[o.i]
				switch {
				case !o.abort:
					*tr = transfer{j: &job{q: q[o.i]}, remaining: bytes[o.i], hidx: -1}
					s.vAdd(tr)
				case tr.hidx >= 0 && stale:
					s.vRemoveStale(tr)
				case tr.hidx >= 0:
					s.vRemove(tr)
				}
			})
		}
		s.sim.RunUntil(math.Inf(1))

		// The reference, with the same operations.
		r := &refShare{beta: beta, q: q, left: make([]float64, n), rate: make([]float64, n)}
		endR := make([]float64, n)
		for i := range n {
			r.left[i], endR[i] = -1, -1
		}
		stepEnd := func(until float64) {
			for {
				k, t1 := r.next()
				if k < 0 || t1 > until {
					return
				}
				r.to(t1)
				r.left[k], endR[k] = -1, t1
				r.reshare()
			}
		}
		for _, o := range ops {
			stepEnd(o.at)
			r.to(o.at)
			switch {
			case !o.abort:
				r.left[o.i] = bytes[o.i]
			case r.left[o.i] >= 0:
				r.left[o.i] = -1
				if stale {
					continue // the others keep their rates
				}
			default:
				continue
			}
			r.reshare()
		}
		stepEnd(math.Inf(1))
		for i := range n {
			if (endV[i] < 0) != (endR[i] < 0) || math.Abs(endV[i]-endR[i]) > shareTol*math.Max(endR[i], 1) {
				t.Fatalf("transfer %d (%g bytes on %d nodes): virtual end %v, reference %v", i, bytes[i], q[i], endV[i], endR[i])
			}
		}
	})
}

func trsPtrs(trs []transfer) []*transfer {
	out := make([]*transfer, len(trs))
	for i := range trs {
		out[i] = &trs[i]
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A request's VirtualTime reaches the runs' options, and off stays the
// exact way (the zero value every published output was made with).
func TestRequestVirtualTime(t *testing.T) {
	for _, on := range []bool{false, true} {
		sim := quickSim()
		sim.VirtualTime = on
		_, opt, _, err := RunRequest{Simulation: sim}.Resolve()
		if err != nil || opt.VirtualTime != on {
			t.Fatalf("VirtualTime %v: options %+v, %v", on, opt, err)
		}
	}
}
