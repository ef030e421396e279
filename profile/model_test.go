package profile

import (
	"context"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

// mcStatus draws runs of a and estimates P(S_{i−1} < t ≤ S_i) and
// P(S_i < t) at the given times.
func mcStatus(a *App, ts []float64, n int, seed uint64) (running, finished [][]float64) {
	r := rng.Stream(seed, 1)
	k := len(a.Tasks)
	running = make([][]float64, k)
	finished = make([][]float64, k)
	for i := range k {
		running[i] = make([]float64, len(ts))
		finished[i] = make([]float64, len(ts))
	}
	for range n {
		x := a.Sample(r)
		s := 0.0
		for i := range k {
			prev := s
			s += x[i]
			for j, t := range ts {
				if prev < t && t <= s {
					running[i][j]++
				}
				if s < t {
					finished[i][j]++
				}
			}
		}
	}
	for i := range k {
		for j := range ts {
			running[i][j] /= float64(n)
			finished[i][j] /= float64(n)
		}
	}
	return running, finished
}

func TestTimelineAgreesWithMonteCarlo(t *testing.T) {
	mixed := &App{Name: "mixed", Tasks: []Task{
		{Walltime: distribution.Gamma{Alpha: 2, Beta: 0.01}, Mem: 4},
		{Walltime: distribution.LogNormal{Mu: 6, Sigma: 0.5}, Mem: 20},
		{Walltime: distribution.Uniform{A: 100, B: 900}, Mem: 8},
	}}
	slant, _ := Builtin("slant")
	for _, a := range []*App{slant, mixed} {
		tl, err := NewTimeline(context.Background(), a, 0)
		if err != nil {
			t.Fatal(err)
		}
		mean := a.MeanWalltime()
		var ts []float64
		for f := 0.05; f < 1.6; f += 0.1 {
			ts = append(ts, f*mean)
		}
		const n = 200000
		run, fin := mcStatus(a, ts, n, 7)
		worst := 0.0
		for i := range a.Tasks {
			for j, tt := range ts {
				// 4.5 standard errors of a proportion plus the grid error.
				tol := 4.5*math.Sqrt(0.25/n) + 0.001
				if d := math.Abs(tl.Running(i+1, tt) - run[i][j]); d > tol {
					t.Errorf("%s: P(task %d runs at %.0f) = %.4f, Monte Carlo %.4f", a.Name, i+1, tt, tl.Running(i+1, tt), run[i][j])
				} else {
					worst = math.Max(worst, d)
				}
				if d := math.Abs(tl.Finished(i+1, tt) - fin[i][j]); d > tol {
					t.Errorf("%s: P(task %d done by %.0f) = %.4f, Monte Carlo %.4f", a.Name, i+1, tt, tl.Finished(i+1, tt), fin[i][j])
				}
			}
		}
		t.Logf("%s: largest |Running − MC| = %.4f", a.Name, worst)
	}
}

// TestLikelyMaxAgreesWithMonteCarlo recomputes Eq. (2) from the Monte Carlo
// estimates, away from the points where a probability crosses τ.
func TestLikelyMaxAgreesWithMonteCarlo(t *testing.T) {
	a, _ := Builtin("slant")
	tl, err := NewTimeline(context.Background(), a, 0)
	if err != nil {
		t.Fatal(err)
	}
	const tau = 0.1
	var ts []float64
	for x := 60.0; x < 12000; x += 120 {
		ts = append(ts, x)
	}
	run, _ := mcStatus(a, ts, 100000, 3)
	checked := 0
	for j, tt := range ts {
		want, near := 0.0, false
		for i, task := range a.Tasks {
			if math.Abs(run[i][j]-tau) < 0.01 {
				near = true
			}
			if run[i][j] > tau {
				want = math.Max(want, task.Mem)
			}
		}
		if near {
			continue
		}
		checked++
		if got := tl.LikelyMax(tau, tt); got != want {
			t.Errorf("M_0.1(%v) = %v, Monte Carlo gives %v", tt, got, want)
		}
	}
	if checked < 60 {
		t.Fatalf("only %d points checked", checked)
	}
	// By hand from Table 2: at t = 1 h task 5 (50 GB) runs with
	// probability ≈ P(S_4 < 3600) ≈ Φ((3600−2173)/349) ≈ 1.
	if got := tl.LikelyMax(tau, 3600); got != 50 {
		t.Fatalf("M_0.1(1 h) = %v, want 50", got)
	}
}

func TestTotalAgreesWithMonteCarlo(t *testing.T) {
	slant, _ := Builtin("slant")
	tot, err := slant.Total()
	if err != nil {
		t.Fatal(err)
	}
	n, ok := tot.(distribution.Normal)
	// Σμ = 7157 s, √Σσ² = √667489 = 817.0 s by hand from Table 2.
	if !ok || math.Abs(n.Mu-7157) > 1e-9 || math.Abs(n.Sigma-817.0) > 0.01 {
		t.Fatalf("total %v, want normal(7157, 817.0)", tot)
	}
	mixed := &App{Tasks: []Task{
		{Walltime: distribution.Gamma{Alpha: 2, Beta: 0.01}, Mem: 1},
		{Walltime: distribution.Weibull{K: 1.5, Lambda: 600}, Mem: 2},
	}}
	td, err := mixed.Total()
	if err != nil {
		t.Fatal(err)
	}
	r := rng.Stream(11, 2)
	const m = 200000
	xs := make([]float64, m)
	for i := range xs {
		s := mixed.Sample(r)
		xs[i] = s[0] + s[1]
	}
	for _, q := range []float64{300, 600, 900, 1500, 2500} {
		emp := 0.0
		for _, x := range xs {
			if x <= q {
				emp++
			}
		}
		emp /= m
		if d := math.Abs(td.CDF(q) - emp); d > 0.006 {
			t.Errorf("P(total <= %v) = %.4f, Monte Carlo %.4f", q, td.CDF(q), emp)
		}
	}
	if d := math.Abs(td.Mean() - mixed.MeanWalltime()); d > 0.01*mixed.MeanWalltime() {
		t.Errorf("mean of grid total %v, exact %v", td.Mean(), mixed.MeanWalltime())
	}
}

func TestMeanMemoryByHand(t *testing.T) {
	a, _ := Builtin("slant")
	// (3.5·255 + 10·871 + 6·588 + 10·459 + 50·3050 + 3.5·804 + 10·1130)/7157
	want := (3.5*255 + 10*871 + 6*588 + 10*459 + 50*3050 + 3.5*804 + 10*1130) / 7157.0
	if got := a.MeanMemory(); math.Abs(got-want) > 1e-12 || math.Abs(got-25.756) > 0.001 {
		t.Fatalf("M̄ = %v, want %v", got, want)
	}
	if a.PeakMemory() != 50 {
		t.Fatal("peak")
	}
}

func TestSafeBeforeAndNeeds(t *testing.T) {
	a, _ := Builtin("slant")
	tl, err := NewTimeline(context.Background(), a, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.HungryTask() != 5 {
		t.Fatal("hungry task")
	}
	// S_4 ≈ N(2173, √(96.7²+322²+76.8²+48.1²) = 349.3); its 0.027-quantile
	// is 2173 − 1.927·349.3 ≈ 1500 s, the paper's 25 minutes.
	q, err := tl.SafeBefore(5, 0.027)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(q-1500) > 10 {
		t.Fatalf("SafeBefore = %v, want about 1500", q)
	}
	// At 14000 s (≈ 8 σ past the mean) only task 7 can still be running:
	// its conditional probability is ≈ 1, its unconditional one ≈ 0.
	ck, mem, mem0, err := tl.Needs(context.Background(), []float64{600, 3600, 14000}, 0.1, 0.1, true, CRIU)
	if err != nil {
		t.Fatal(err)
	}
	if mem0 != 3.5 || mem[1] != 50 || ck[1] != CRIU.Cost(50) || mem[2] != 10 || ck[2] != CRIU.Latency {
		t.Fatalf("paper needs %v %v %v", ck, mem, mem0)
	}
	ck, _, _, err = tl.Needs(context.Background(), []float64{600, 3600, 14000}, 0.1, 0.1, false, CRIU)
	if err != nil {
		t.Fatal(err)
	}
	if ck[2] != CRIU.Cost(10) {
		t.Fatalf("conditional checkpoint cost %v, want C(10 GB)", ck[2])
	}
}

// TestTimelineConservation: at any t > 0 exactly one task runs or the job
// is over, so Σ_i P(task i runs at t) + P(S_n < t) = 1, and y_i(t)
// decreases in i. The grid rounds S_{i−1}, which Timeline corrects to first
// order; the sum stays within 10⁻³ of 1 from t = h on. (Below h/2 the atom
// at 0 of the clamped negative Normal mass, 0.4 % for SLANT's task 1, is
// spread over [0, h/2] and the sum dips by up to 0.3 %.)
func TestTimelineConservation(t *testing.T) {
	for _, name := range Builtins {
		a, _ := Builtin(name)
		tl, err := NewTimeline(context.Background(), a, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := len(a.Tasks)
		worst := 0.0
		for x := tl.Step(); x < 3*a.MeanWalltime(); x += a.MeanWalltime() / 97 {
			s := tl.Finished(n, x)
			for i := 1; i <= n; i++ {
				s += tl.Running(i, x)
				if i > 1 && tl.Finished(i, x) > tl.Finished(i-1, x)+1e-12 {
					t.Fatalf("%s: y_%d(%v) > y_%d", name, i, x, i-1)
				}
			}
			worst = math.Max(worst, math.Abs(s-1))
		}
		t.Logf("%s: largest |Σ − 1| = %.2g (grid step %.3g s)", name, worst, tl.Step())
		if worst > 1e-3 {
			t.Fatalf("%s: probabilities sum to 1 ± %v", name, worst)
		}
	}
}

// Step is the grid step h in seconds.
func (tl *Timeline) Step() float64 { return tl.h }
