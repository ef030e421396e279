package slurm

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm"
)

// TestMilestonesRecorded counts milestones on the records of real runs of
// `ckpt repro slurm --quick` (28 Nov 2026), chain j00001 (Qball ALL-CKPT,
// walltime 394.83, S = 30). Planned with the paper's costs, its two
// checkpoints saved 207.248 and 249.602 against milestones 218.036 and
// 280.2845: neither reached (and the job ran out). Planned with C + 33 s
// (the default), its one checkpoint saved 246.561 against 222.8645.
func TestMilestonesRecorded(t *testing.T) {
	for _, tc := range []struct {
		dir        string
		n, reached int
	}{{"testdata/paper-costs-j00001", 2, 0}, {"testdata/margin-j00001", 1, 1}} {
		st, err := slurm.Load(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		j := Job{App: Apps()[0], Walltime: 394.83407454487246, Steps: st.Chain.Steps}
		if n, reached := Milestones(j, st.Outcomes); n != tc.n || reached != tc.reached {
			t.Errorf("%s: %d of %d milestones reached, want %d of %d", tc.dir, reached, n, tc.reached, tc.n)
		}
	}
}

// TestMilestones: by hand, a checkpoint that saved its milestone (to the
// records' 3 decimals) counts, one that saved less does not, one larger
// than C by (f − 1)·C is held to the milestone less that, and outcomes
// other than checkpointed are not counted.
func TestMilestones(t *testing.T) {
	steps := []slurm.Step{{Time: 120, Checkpoint: true, CheckpointTime: 20, Milestone: 100},
		{Time: 120, Checkpoint: true, CheckpointTime: 20, Restart: true, RestartTime: 10, Milestone: 190},
		{Time: 100, Restart: true, RestartTime: 10, Milestone: 280}}
	j := Job{App: App{C: 20, R: 10}, Walltime: 250, Steps: steps}
	out := map[int]slurm.Outcome{1: {Outcome: slurm.OutcomeCheckpointed, Progress: 99.9996}, 2: {Outcome: slurm.OutcomeCheckpointed, Progress: 189.9},
		3: {Outcome: slurm.OutcomeDone, Progress: 250}}
	if n, reached := Milestones(j, out); n != 2 || reached != 1 {
		t.Errorf("%d of %d reached, want 1 of 2", reached, n)
	}
	// with variation the target of reservation k is the milestone less (f_k − 1)·C when f_k > 1
	j.Variation, j.Seed = 0.3, 1
	f := SizeFactor(1, 2, 0.3)
	out[2] = slurm.Outcome{Outcome: slurm.OutcomeCheckpointed, Progress: 190 - max(0, (f-1)*20)}
	if n, reached := Milestones(j, out); n != 2 || reached != 2 {
		t.Errorf("varied (f = %v): %d of %d reached, want 2 of 2", f, reached, n)
	}
	out[2] = slurm.Outcome{Outcome: slurm.OutcomeCheckpointed, Progress: 190 - max(0, (f-1)*20) - 0.1}
	if n, reached := Milestones(j, out); f <= 1 || n != 2 || reached != 1 {
		t.Errorf("varied (f = %v, want > 1), 0.1 short: %d of %d reached, want 1 of 2", f, reached, n)
	}
	if line := MilestonesLine([]Result{{Checkpoints: 2, Reached: 1}, {Checkpoints: 3, Reached: 3}, {}}); !strings.HasPrefix(line, "milestones reached: 4 of 5 ") {
		t.Errorf("line %q", line)
	}
	if line := MilestonesLine([]Result{{}}); line != "" {
		t.Errorf("no checkpoint: line %q, want none", line)
	}
}

// TestPlanMargin: the quick run's margin, 30 × (100 ms + 1 s) = 33 paper
// seconds, is what the recorded margin chain was planned with: the quick
// design at that margin plans Qball ALL-CKPT's job j00001 exactly as the
// chain the cluster ran (testdata/margin-j00001); --paper-costs plans
// with the paper's C (margin 0) and the three reservations of
// testdata/paper-costs-j00001.
func TestPlanMargin(t *testing.T) {
	cfg := Config{Scale: 30, Margin: 100 * time.Millisecond}
	if m := cfg.PlanMargin(); math.Abs(m-33) > 1e-9 {
		t.Errorf("PlanMargin = %v, want 33", m)
	}
	paper := cfg
	paper.PaperCosts = true
	for _, tc := range []struct {
		cfg Config
		dir string
	}{{cfg, "testdata/margin-j00001"}, {paper, "testdata/paper-costs-j00001"}} {
		st, err := slurm.Load(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		d := QuickDesign(DefaultSeed)
		d.Margin = tc.cfg.PlanMargin()
		jobs, err := d.Make(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, j := range jobs {
			if j.Experiment != Fig8 || j.App.Name != "Qball" || j.Strategy != AllCkpt || math.Abs(j.Walltime-394.83407454487246) > 1e-9 {
				continue
			}
			found = true
			if len(j.Steps) != len(st.Chain.Steps) {
				t.Fatalf("%s: %d reservations planned, %d ran", tc.dir, len(j.Steps), len(st.Chain.Steps))
			}
			for k, s := range j.Steps {
				r := st.Chain.Steps[k]
				if math.Abs(s.Time-r.Time) > 1e-9 || math.Abs(s.Milestone-r.Milestone) > 1e-9 || s.Checkpoint != r.Checkpoint {
					t.Errorf("%s: reservation %d planned %+v, ran %+v", tc.dir, k+1, s, r)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no Qball ALL-CKPT job of walltime 394.83 in the quick design", tc.dir)
		}
	}
}
