package iosim

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// churn is a 64-node platform whose nodes fail every 10 minutes but whose
// checkpoints take a fraction of a second: it makes progress, and its jobs
// are restarted about 7·10⁴ times in 8 days.
func churn() Config {
	c := small()
	c.Platform.NodeMTBF = 600
	c.Platform.Bandwidth = 1e11
	return c
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A simulation holds memory for its live jobs and nodes, not for its
// events: after 7·10⁴ restarts the simulator's live heap is what the job
// list and the nodes need. (Keeping every restarted job, as a byID table
// once did, costs ~300 B per failure: about 20 MB here.)
func TestMemoryBoundedByLiveJobs(t *testing.T) {
	c := churn()
	opt := Options{Span: 8 * Day, Skip: Day, Seed: 3}.withDefaults()
	mk, err := strategies.Lookup("ordered-nb-daly")
	if err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	s, err := newSimulator(&c, mk(3600), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	grown := int64(heapInUse()) - int64(before)
	r := s.result()
	if r.NodeFailures < 50_000 {
		t.Fatalf("only %d node failures: the test exercises nothing", r.NodeFailures)
	}
	if len(s.slots) > c.Platform.Nodes || len(s.nodeBufs) > maxNodeBufs {
		t.Errorf("%d slots, %d node buffers for %d nodes", len(s.slots), len(s.nodeBufs), c.Platform.Nodes)
	}
	if s.sim.Len() > c.Platform.Nodes+2*len(s.running)+2 {
		t.Errorf("%d pending events for %d nodes and %d running jobs", s.sim.Len(), c.Platform.Nodes, len(s.running))
	}
	const limit = 4 << 20
	if grown > limit {
		t.Errorf("simulator holds %d bytes after %d failures, want ≤ %d", grown, r.NodeFailures, limit)
	}
	runtime.KeepAlive(s)
	t.Logf("%d node failures, %d job failures, %d events; live heap %+d bytes", r.NodeFailures, r.JobFailures, r.Events, grown)
}

// MaxEvents is a real limit: the run stops at it with an error naming it.
func TestMaxEvents(t *testing.T) {
	c := churn()
	st := Strategy{Name: "ordered-daly", Sharing: Token, Arbiter: FCFS{}, Period: Daly{}}
	start := time.Now()
	_, err := Simulate(&c, st, Options{Span: 20 * Day, Skip: Day, MaxEvents: 10_000})
	if !errors.Is(err, ErrTooManyEvents) || !strings.Contains(err.Error(), "10000 events") || !strings.Contains(err.Error(), "MaxEvents") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping at 10⁴ events took %v", d)
	}
}

// A cancelled context stops a run inside its event loop, not only between
// runs: a context cancelled while the run goes returns within a second.
func TestSimulateContextCancelled(t *testing.T) {
	c := churn()
	st := Strategy{Name: "oblivious-daly", Sharing: Proportional, Period: Daly{}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SimulateContext(ctx, &c, st, Options{Span: 20 * Day, Skip: Day}); !errors.Is(err, context.Canceled) {
		t.Fatalf("pre-cancelled: err = %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := SimulateContext(ctx, &c, st, Options{Span: 2000 * Day, Skip: Day})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (the 2000-day run should outlast 20 ms)", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancelled run returned after %v", d)
	}
}

// A platform whose jobs fail faster than they checkpoint is refused before
// any event, with the arithmetic; with failures off it runs.
func TestNoProgressRefused(t *testing.T) {
	for _, mtbf := range []float64{1, 3600, 6 * 3600} {
		c := Cielo().WithNodeMTBF(mtbf)
		start := time.Now()
		_, err := Trial(&c, []Strategy{{Name: "ordered-daly", Sharing: Token, Arbiter: FCFS{}, Period: Daly{}}}, Options{Seed: 1})
		var np *NoProgressError
		if !errors.As(err, &np) || np.Class != "EAP" {
			t.Fatalf("MTBF %gs: err = %v", mtbf, err)
		}
		// Independent arithmetic: EAP checkpoints 1.6 × 1024 × 32 GB at
		// 40 GB/s = 1310.72 s; its jobs fail every μ/1024.
		if np.C != 1.6*1024*32e9/40e9 || np.MTBF != mtbf/1024 || !strings.Contains(err.Error(), "C ≥ MTBF") {
			t.Errorf("MTBF %gs: %+v: %v", mtbf, np, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("refusal took %v", d)
		}
	}
	// Every class checkpoints within its MTBF, but Theorem 1's bound is
	// ≥ 1: one job on the whole platform with C/μ_j = 0.3 has the bound
	// W = min_P C/P + (P/2 + C)/μ_j = √(2·0.3) + 0.3 ≈ 1.07 (λ = 0, as
	// F = √(0.3/2) < 1): refused as a platform.
	c := onePlatformJob()
	c.Platform.NodeMTBF = Seconds(10 * 360 / 0.3) // μ_j = 1200 s, C = 360 s
	var np *NoProgressError
	if err := c.CheckProgress(); !errors.As(err, &np) || np.Class != "" || !(np.Waste >= 1) {
		t.Errorf("C/μ_j = 0.3: %v", err)
	}
	c.Platform.NodeMTBF = Seconds(10 * 360 / 0.1) // W = √0.2 + 0.1 ≈ 0.55
	if err := c.CheckProgress(); err != nil {
		t.Errorf("C/μ_j = 0.1: %v", err)
	}
	c = Cielo().WithNodeMTBF(3600)
	if _, err := Simulate(&c, Baseline(), Options{NoFailures: true, Span: 3 * Day, Skip: Day}); err != nil {
		t.Errorf("no failures: %v", err)
	}
}
