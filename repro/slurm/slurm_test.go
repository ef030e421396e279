package slurm

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestOnSlurm runs a few Qball jobs under DYN-PROG-COUNT and HPC through
// the real machinery (chains, ckpt run --scale, the stand-in) on the
// cluster that answers sinfo, only with CKPT_SLURM_TESTS=1. Every job
// completes; the time each held the node is its simulated time held
// (ckpt's model of the stand-in, an independent computation from the
// plan) plus what the machinery adds, which at scale 20 is at most a few
// real seconds per reservation; the reservation that completed each job
// is COMPLETED in sacct, and none hit Slurm's own limit (TIMEOUT).
func TestOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	if _, err := Available(context.Background(), slurm.Exec{}); err != nil {
		t.Fatalf("CKPT_SLURM_TESTS=1 but %v", err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	bin := slurmtest.Ckpt(t)
	d := Design{Jobs: 3, Apps: Apps()[:1], Seed: 11}
	jobs, err := d.Make(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dir: dir, Ckpt: bin, Scale: 20, Slots: 20, Margin: 100 * time.Millisecond, Grace: 200 * time.Millisecond,
		BytesPerSecond: 4096, Poll: 200 * time.Millisecond}
	var rs []Result
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := Execute(ctx, cfg, jobs, func(r Result) error { rs = append(rs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(rs), len(jobs))
	}
	var ids []string
	for _, r := range rs {
		slack := float64(r.Reservations) * 3 * cfg.Scale // 3 real seconds per reservation
		alt := nearTie(r.Job, tieWindow*cfg.Scale)
		if !r.Done || !heldMatches(r.Held, slack, r.SimHeld, alt) || r.Response < r.Held || math.IsNaN(r.Response) {
			t.Errorf("%s job %d: done %v, held %.0f s, simulated %.0f s (%.0f s on a near tie), response %.0f s", r.Cell(), r.Index, r.Done, r.Held, r.SimHeld, alt, r.Response)
		}
		ids = append(ids, r.JobIDs[len(r.JobIDs)-1])
		t.Logf("%s job %d: walltime %.0f, %d reservations, held %.0f (simulated %.0f), response %.0f", r.Cell(), r.Index, r.Walltime, r.Reservations, r.Held, r.SimHeld, r.Response)
	}
	states, err := sacctStates(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if states["COMPLETED"] != len(ids) {
		t.Errorf("sacct states of the completing reservations: %v, want all COMPLETED", states)
	}
}

// tieWindow is how close (real time) a walltime may come to where the
// model's outcome changes and still be decided either way on the cluster:
// the runner's timers and the stand-in's start and signal delivery on a
// loaded 2-core machine lag by tens of milliseconds (seen in CI: a
// walltime 0.26 s of plan time, 13 ms real, past its reservation's end
// completed in it).
const tieWindow = 0.25

// nearTie is the model's held time of j with its walltime moved by up to
// ±w (plan seconds) where that changes the outcome (another number of
// reservations), else NaN.
func nearTie(j Job, w float64) float64 {
	n := SimReservations(j)
	for _, d := range []float64{-w, w} {
		k := j
		k.Walltime = max(j.Walltime+d, 0)
		if SimReservations(k) != n {
			return SimHeld(k)
		}
	}
	return math.NaN()
}

// heldMatches: held is within slack of the model's time, or of its time
// on a near tie.
func heldMatches(held, slack, sim, alt float64) bool {
	return math.Abs(held-sim) <= slack || math.Abs(held-alt) <= slack
}

// sacctStates counts the sacct states of the jobs once each has ended in
// sacct (read again for at most 30 s, as the experiment does: slurmdbd
// learns of a job's end after its runner reports the chain done).
func sacctStates(ctx context.Context, ids []string) (map[string]int, error) {
	acct, err := settledAccounting(ctx, slurm.Exec{}, ids, 30*time.Second)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, a := range acct {
		out[a.State]++
	}
	return out, nil
}
