package reservation

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"
)

// Workers pinned side by side (from goroutines of their own, as solves
// running at once pin theirs) each hold one CPU of those the thread may
// use, never one another holds; once all are held a worker is left
// unbound; each undo gives its thread all of them back and frees its CPU.
// The kernel's own answer (sched_getaffinity) is the oracle.
func TestPinWorker(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all cpuMask
	if !schedAffinity(sysGetAffinity, &all) {
		t.Skip("sched_getaffinity refused")
	}
	n := 0
	for _, w := range all {
		n += bits.OnesCount64(w)
	}
	if n < 2 {
		t.Skip("one CPU allowed: pinWorker does nothing")
	}
	type pin struct {
		mask    cpuMask
		release chan struct{}
		done    chan cpuMask
	}
	var pins []pin
	for range n + 1 { // one more worker than CPUs
		p := pin{release: make(chan struct{}), done: make(chan cpuMask, 1)}
		got := make(chan cpuMask, 1)
		go func() {
			undo := pinWorker()
			var m cpuMask
			schedAffinity(sysGetAffinity, &m)
			got <- m
			<-p.release
			undo()
			schedAffinity(sysGetAffinity, &m)
			p.done <- m
		}()
		p.mask = <-got
		pins = append(pins, p)
	}
	var union cpuMask
	for k, p := range pins[:n] {
		c := 0
		for i, w := range p.mask {
			c += bits.OnesCount64(w)
			if w&^all[i] != 0 || w&union[i] != 0 {
				t.Fatalf("worker %d: CPU %x outside the allowed %x or held by another", k, p.mask[:1], all[:1])
			}
			union[i] |= w
		}
		if c != 1 {
			t.Fatalf("worker %d: mask %x, want one CPU", k, p.mask[:1])
		}
	}
	if union != all || pins[n].mask != all {
		t.Fatalf("the %d workers hold %x of %x; the one more has %x, want it unbound", n, union[:1], all[:1], pins[n].mask[:1])
	}
	for k, p := range pins {
		close(p.release)
		if m := <-p.done; m != all {
			t.Fatalf("worker %d: mask %x after undo, want %x", k, m[:1], all[:1])
		}
	}
	if pinned.taken != (cpuMask{}) {
		t.Fatalf("CPUs still held after every undo: %x", pinned.taken[:1])
	}
}

// With the workers pinned, the solve is still the sequential one, bit for
// bit.
func TestPinnedWorkersMatchSequential(t *testing.T) {
	defer func(old bool) { pinWorkers = old }(pinWorkers)
	pinWorkers = true
	values, probs := randomLaw(rand.New(rand.NewPCG(21, 22)), parallelRows+500)
	sup, err := newSupport(values, probs)
	if err != nil {
		t.Fatal(err)
	}
	c := Costs{Alpha: 1, Beta: 0.5, C: 2, R: 3}
	seq := newSolver(sup, c, Mixed)
	seq.workers = 1
	want := seq.solve()
	for _, w := range []int{2, 3} {
		par := newSolver(sup, c, Mixed)
		par.workers = w
		if got := par.solve(); !same(got, want) {
			t.Fatalf("workers %d: cost %v, sequential %v", w, got, want)
		}
		for i := range seq.diag {
			if !same(seq.diag[i], par.diag[i]) || !same(seq.m1[i], par.m1[i]) || seq.j1[i] != par.j1[i] {
				t.Fatalf("workers %d: state %d differs", w, i)
			}
		}
	}
}
