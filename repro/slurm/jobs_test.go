package slurm

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// TestSimHeldIsHeld: with no variation, the stand-in's model holds the
// node exactly as the paper's cost (Held, Eq. (5) with β = 1) says, on
// every job of the design, planned with the paper's costs and with a
// margin after each checkpoint (which Eq. (5) prices as held): an
// independent oracle (reservation.CostFor).
func TestSimHeldIsHeld(t *testing.T) {
	t.Parallel()
	n := 0
	for _, margin := range []float64{0, 33} {
		d := FullDesign(3, 30, 1)
		d.Margin = margin
		jobs, err := d.Make(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p := planner{}
		for _, j := range jobs {
			if j.Variation != 0 || j.Strategy == HPC {
				continue // HPC's strategy depends on the job's history; checked below
			}
			s, err := p.plan(context.Background(), j.App, j.Strategy, margin)
			if err != nil {
				t.Fatal(err)
			}
			c := reservation.Costs{Beta: 1, C: j.App.C, R: j.App.R, Margin: margin}
			want := reservation.CostFor(s, c, j.Walltime)
			if got := SimHeld(j); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("margin %v: %s job %d: SimHeld %v, Held %v", margin, j.Cell(), j.Index, got, want)
			}
			// and the time reserved is the RESERVATION-ONLY cost (α = 1)
			c.Alpha, c.Beta = 1, 0
			want = reservation.CostFor(s, c, j.Walltime)
			if got := Reserved(j, SimReservations(j)); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("margin %v: %s job %d: reserved %v, CostFor %v", margin, j.Cell(), j.Index, got, want)
			}
			if margin == 0 && math.Abs(SimHeld(j)-Held(s, j.App.C, j.App.R, j.Walltime)) > 1e-6*want {
				t.Fatalf("%s job %d: SimHeld %v, Held %v", j.Cell(), j.Index, SimHeld(j), Held(s, j.App.C, j.App.R, j.Walltime))
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no job checked")
	}
	// HPC by hand: 300, then 450, from scratch; a walltime of 400 holds 300 + 400.
	j := Job{App: App{C: 10, R: 5}, Walltime: 400, Steps: []slurm.Step{{Time: 300, Milestone: 300}, {Time: 450, Milestone: 450}}}
	if got := SimHeld(j); got != 700 {
		t.Errorf("HPC SimHeld = %v, want 700", got)
	}
}

// TestSimHeldVaried: a checkpoint larger than C starts earlier (less work
// saved), a smaller one at the planned time; the restart reads the
// checkpoint's size. Worked by hand.
func TestSimHeldVaried(t *testing.T) {
	steps := []slurm.Step{{Time: 120, Checkpoint: true, CheckpointTime: 20, Milestone: 100}, {Time: 200, Restart: true, RestartTime: 10, Milestone: 290}}
	j := Job{App: App{C: 20, R: 10}, Walltime: 250, Variation: 0.3, Seed: 1, Steps: steps}
	f := SizeFactor(1, 1, 0.3)
	trigger := 120 - math.Max(20, 20*f)
	want := trigger + 20*f + 10*f + (250 - trigger)
	if got := SimHeld(j); math.Abs(got-want) > 1e-9 {
		t.Errorf("SimHeld = %v, want %v (f = %v)", got, want, f)
	}
	if f < 0.7 || f > 1.3 || SizeFactor(1, 1, 0) != 1 {
		t.Errorf("size factor %v outside [0.7, 1.3]", f)
	}
}

// TestAutoScale: Σ held / (slots · budget), at least the floor.
func TestAutoScale(t *testing.T) {
	j := Job{App: App{C: 10, R: 5}, Walltime: 3600, Steps: []slurm.Step{{Time: 3600, Milestone: 3600}}}
	jobs := []Job{j, j, j, j}
	if got := AutoScale(jobs, 2, 60*time.Second, 1); got != 120 {
		t.Errorf("AutoScale = %v, want 4·3600/(2·60) = 120", got)
	}
	if got := AutoScale(jobs, 2, 60*time.Second, 500); got != 500 {
		t.Errorf("AutoScale floor: %v", got)
	}
	d, err := FullDesign(DefaultSeed, 30, 2).Make(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default design: %d jobs, scale %v on 32 slots", len(d), AutoScale(d, 32, Budget, MinScale))
}

// TestNearTie: the Qball HPC job of seed 11 whose walltime (160.17 s)
// passes its first reservation (159.92 s) by 0.26 s is a near tie at a
// window of 5 plan seconds (held 160.17 when it completes in the first)
// and not at 0.1 s; a job far from any reservation end is no tie.
func TestNearTie(t *testing.T) {
	jobs, err := Design{Jobs: 3, Apps: Apps()[:1], Seed: 11}.Make(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var j Job
	for _, k := range jobs {
		if k.Strategy == HPC && k.Index == 2 {
			j = k
		}
	}
	if j.Walltime <= j.Steps[0].Time || j.Walltime-j.Steps[0].Time > 1 {
		t.Fatalf("job drawn differently: walltime %v, first reservation %v", j.Walltime, j.Steps[0].Time)
	}
	if got := nearTie(j, 5); math.Abs(got-(j.Walltime-5)) > 1e-9 {
		t.Errorf("nearTie(5) = %v, want %v", got, j.Walltime-5)
	}
	if got := nearTie(j, 0.1); !math.IsNaN(got) {
		t.Errorf("nearTie(0.1) = %v, want NaN", got)
	}
	if !heldMatches(161, 60, SimHeld(j), nearTie(j, 5)) || heldMatches(161, 60, SimHeld(j), math.NaN()) {
		t.Error("heldMatches does not accept the near tie or accepts the far value")
	}
}
