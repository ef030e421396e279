package reservation

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"
)

// pinWorker leaves its thread on one CPU of those it could use, the
// id-th, and its undo gives the thread all of them back; the kernel's own
// answer (sched_getaffinity) is the oracle.
func TestPinWorker(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all cpuMask
	if !schedAffinity(sysGetAffinity, &all) {
		t.Skip("sched_getaffinity refused")
	}
	var cpus []int
	for i := range len(all) * 64 {
		if all[i/64]&(1<<(i%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) < 2 {
		t.Skip("one CPU allowed: pinWorker does nothing")
	}
	for id := range 3 {
		undo := pinWorker(id)
		var got cpuMask
		schedAffinity(sysGetAffinity, &got)
		n, c := 0, cpus[id%len(cpus)]
		for _, w := range got {
			n += bits.OnesCount64(w)
		}
		if n != 1 || got[c/64]&(1<<(c%64)) == 0 {
			t.Fatalf("worker %d: mask %x, want CPU %d alone", id, got[:1], c)
		}
		undo()
		schedAffinity(sysGetAffinity, &got)
		if got != all {
			t.Fatalf("worker %d: mask %x after undo, want %x", id, got[:1], all[:1])
		}
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
