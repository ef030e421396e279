package iosim

import (
	"math"
	"testing"
)

func TestGenerateJobs(t *testing.T) {
	c := Cielo()
	span := 62 * Day
	for seed := range uint64(5) {
		jobs, err := GenerateJobs(&c, span, seed)
		if err != nil {
			t.Fatal(err)
		}
		used := make([]float64, len(c.Classes))
		tot := 0.0
		for _, j := range jobs {
			w := float64(c.Classes[j.Class].Walltime)
			if j.Work < 0.8*w || j.Work > 1.2*w {
				t.Fatalf("work %v outside [0.8w,1.2w] for w=%v", j.Work, w)
			}
			v := j.Work * float64(c.Classes[j.Class].Nodes)
			used[j.Class] += v
			tot += v
		}
		if tot < WorkloadSlack*float64(c.Platform.Nodes)*span {
			t.Fatalf("node-time %v below the span", tot)
		}
		for k := range used {
			if d := math.Abs(used[k]/tot - c.Classes[k].Share); d > 0.01 {
				t.Fatalf("class %d share off by %v", k, d)
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s.Mean != 3 || s.Median != 3 || s.Q1 != 2 || s.Q3 != 4 || math.Abs(s.D1-1.4) > 1e-12 || math.Abs(s.D9-4.6) > 1e-12 || s.N != 5 {
		t.Fatalf("%+v", s)
	}
	if !math.IsNaN(Summarize(nil).Mean) {
		t.Fatal("empty")
	}
}

// bestPacking is the most nodes (≤ n) that jobs of the given sizes can
// occupy at once (unbounded knapsack on node counts).
func bestPacking(sizes []int, n int) int {
	ok := make([]bool, n+1)
	ok[0] = true
	best := 0
	for x := 1; x <= n; x++ {
		for _, q := range sizes {
			if q <= x && ok[x-q] {
				ok[x] = true
				best = x
				break
			}
		}
	}
	return best
}

// baselineMix runs the failure-free baseline for seeds 0..n−1 and returns
// the mean busy fraction and the mean node-time share of each class.
func baselineMix(t *testing.T, c Config, n int) (busy float64, shares []float64) {
	busy, shares, _ = baselineMixSE(t, c, n)
	return busy, shares
}

// baselineMixSE is baselineMix with the standard error of each class's
// mean share over the n runs.
func baselineMixSE(t *testing.T, c Config, n int) (busy float64, shares, se []float64) {
	t.Helper()
	shares = make([]float64, len(c.Classes))
	sq := make([]float64, len(c.Classes))
	for seed := range uint64(n) {
		r, err := Simulate(&c, Baseline(), Options{Seed: seed, NoFailures: true})
		if err != nil {
			t.Fatal(err)
		}
		busy += r.Busy / float64(n)
		for k, s := range r.ClassShares {
			shares[k] += s / float64(n)
			sq[k] += s * s / float64(n)
		}
	}
	se = make([]float64, len(c.Classes))
	for k := range se {
		se[k] = math.Sqrt(math.Max(sq[k]-shares[k]*shares[k], 0) / float64(n-1))
	}
	return busy, shares, se
}

// Section II: "at least 98% of the nodes are enrolled", with the classes
// in their Table I proportions "on average throughout the schedule
// execution". On Cielo both hold on average with the reservation
// scheduler. (The greedy first-fit it replaced keeps 97.8 % busy and runs
// Silverton for 8.3 % of the node-time instead of 16.5 %, over 8 seeds.)
func TestUtilisationCielo(t *testing.T) {
	c := Cielo()
	busy, shares := baselineMix(t, c, 8)
	if busy < 0.98 {
		t.Errorf("Cielo baseline keeps %.4f of the nodes busy, want ≥ 0.98", busy)
	}
	for k, cl := range c.Classes {
		if math.Abs(shares[k]-cl.Share) > 0.015 {
			t.Errorf("%s runs %.3f of the node-time, Table I %.3f", cl.Name, shares[k], cl.Share)
		}
	}
	// Why 98 % at every instant is out of reach of any first-fit: EAP and
	// Silverton (4 and 8 × 256 nodes) fill at most 17 408 of 17 784 nodes
	// (97.9 %), and with 1, 2 or 3 VPIC jobs (1 875 nodes) at most 17 235,
	// 17 062 and 16 889; so ≥ 98 % needs a LAP job running at that instant,
	// or at least four VPIC jobs (7 500 nodes, 42 % of the platform against
	// VPIC's 12 % share).
	if got := bestPacking([]int{1024, 2048}, 17784); got != 17408 {
		t.Errorf("EAP+Silverton packing %d, want 17408", got)
	}
	for v, want := range []int{17408, 17235, 17062, 16889} {
		if got := bestPacking([]int{1024, 2048}, 17784-1875*v) + 1875*v; got != want {
			t.Errorf("%d VPIC jobs: packing %d, want %d", v, got, want)
		}
	}
}

// On the prospective system 98 % cannot be met with Table I's classes
// (10 240, 2 560, 20 480 and 18 750 nodes on 50 000): without a VPIC job
// at most 19 × 2 560 = 48 640 nodes (97.28 %) are busy; one VPIC job plus
// 12 × 2 560 gives 49 470 (98.94 %); two give at most 47 740. Keeping
// ≥ 98 % at every instant would need a VPIC job running all the time,
// 18 750/49 470 = 37.9 % of the node-time against its 12 % share. Mixing
// the one-VPIC packing (a fraction p of the time) with the VPIC-free one
// at a VPIC share s = 13 % (12 % + the 1 % tolerance) gives
// p = s·48 640/(18 750 − s·830) = 0.339 and a time-average of at most
// 48 640 + 830 p = 48 922 nodes: 97.84 %. The simulated baseline, with
// the classes in proportion, stays below that and above 85 %.
func TestUtilisationProspective(t *testing.T) {
	c := Prospective()
	var sizes []int
	for _, cl := range c.Classes {
		sizes = append(sizes, cl.Nodes)
	}
	if got := bestPacking(sizes, 50000); got != 49470 {
		t.Errorf("best packing %d, want 49470", got)
	}
	for v, want := range []int{48640, 49470, 47740} {
		if got := bestPacking(sizes[:3], 50000-18750*v) + 18750*v; got != want {
			t.Errorf("%d VPIC jobs: packing %d, want %d", v, got, want)
		}
	}
	s := 0.13
	p := s * 48640 / (18750 - s*830)
	limit := (48640 + 830*p) / 50000
	if math.Abs(limit-0.97843) > 1e-4 {
		t.Errorf("time-average limit %.5f", limit)
	}
	// One run's class shares vary a lot here (a few wide jobs fill the
	// window: EAP's share has a standard deviation of about 0.07 across
	// seeds), so the mean over 32 runs is compared with Table I within
	// 0.03 (backfilling runs the narrow LAP jobs about 2 points above
	// their share) plus 3 standard errors of the mean.
	busy, shares, se := baselineMixSE(t, c, 32)
	if busy >= limit || busy < 0.85 {
		t.Errorf("prospective baseline keeps %.4f of the nodes busy, want in [0.85, %.4f)", busy, limit)
	}
	for k, cl := range c.Classes {
		if tol := 0.03 + 3*se[k]; math.Abs(shares[k]-cl.Share) > tol {
			t.Errorf("%s runs %.3f of the node-time, Table I %.3f (tolerance %.3f)", cl.Name, shares[k], cl.Share, tol)
		}
	}
}

// The greedy scheduler (Options.Scheduler = Greedy) is the one the tests
// above reject: it starves the widest class.
func TestGreedyStarvesWideJobs(t *testing.T) {
	c := Prospective()
	sil := 0.0
	for seed := range uint64(4) {
		r, err := Simulate(&c, Baseline(), Options{Seed: seed, NoFailures: true, Scheduler: Greedy})
		if err != nil {
			t.Fatal(err)
		}
		sil += r.ClassShares[2] / 4
	}
	if sil > 0.08 {
		t.Errorf("greedy: Silverton share %.3f; expected starvation (< 0.08)", sil)
	}
}
