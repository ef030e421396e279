package logs

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestLearnFromClusterOnSlurm: on the local Slurm, a plain job (sleep 3
// under a 1 min limit) and two chains of examples/count.sh run 10× faster
// than their plan (2 reservations of 300 plan-seconds, 30 s real each),
// one whose 250 s of work completes in its second reservation and one
// whose 5000 s do not. Read back through slurm.Exec's sacct -a, the plain
// job is one run of its elapsed time and each chain is one run whose
// length is what its runners recorded in the chain's own state folder
// (the independent record): the final progress, complete, or the work run
// through, censored (both rounded to the second in the comment). ckpt advise learn --from-cluster learns them.
func TestLearnFromClusterOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	bin := slurmtest.Ckpt(t)
	count, err := filepath.Abs("../../examples/count.sh")
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-5 * time.Second).Truncate(time.Second)
	root := t.TempDir()
	os.Chmod(root, 0o777)
	tag := fmt.Sprintf("ckadv%d", time.Now().UnixNano()%1e9)

	out, err := exec.Command("sbatch", "--parsable", "--job-name", tag+"-lone", "--time", "1", "--output", "/dev/null", "--wrap", "sleep 3").CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v: %s", err, out)
	}
	lone := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("scancel", lone).Run() })

	steps := []slurm.Step{{Time: 300, Checkpoint: true, CheckpointTime: 10, Milestone: 290},
		{Time: 300, Restart: true, RestartTime: 10, Milestone: 580}}
	dirs := map[string]string{}
	for _, c := range []struct{ id, work string }{{tag + "-done", "250"}, {tag + "-out", "5000"}} {
		job := filepath.Join(root, c.id+".sh")
		os.WriteFile(job, []byte("#!/usr/bin/env bash\nWORK="+c.work+" SPEED=10 exec "+bin+" run --margin 0 -- "+count+"\n"), 0o755)
		ch := slurm.Chain{Job: job, Name: c.id, Ahead: 1, Scale: 10, Steps: steps, Extra: []string{"--output=" + filepath.Join(root, c.id+"-%j.out")}}
		script, err := ch.Script()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append(os.Environ(), "CKPT_CHAINS="+root, "CKPT_CHAIN_ID="+c.id)
		if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != c.id {
			t.Fatalf("chain submission: %v: %s", err, out)
		}
		dir := filepath.Join(root, c.id)
		dirs[c.id] = dir
		t.Cleanup(func() {
			if st, err := slurm.Load(dir); err == nil {
				slurm.Exec{}.Cancel(context.Background(), slurm.Later(st.Jobs, 0))
			}
		})
	}
	// Wait for the chains (and the lone job) to end.
	want := map[string]advise.Job{}
	deadline := time.Now().Add(4 * time.Minute)
	for id, dir := range dirs {
		for {
			st, err := slurm.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			q, err := slurm.Exec{}.Queue(t.Context(), append(slurm.Later(st.Jobs, 0), lone))
			if err != nil {
				t.Fatal(err)
			}
			if len(q) == 0 {
				time.Sleep(2 * time.Second) // the last runner's comment
				if st, err = slurm.Load(dir); err != nil {
					t.Fatal(err)
				}
				var w advise.Job
				for _, o := range st.Outcomes {
					if o.Outcome == slurm.OutcomeDone {
						w.Run, w.Complete = o.Progress, true
					}
					if !w.Complete {
						w.Run = max(w.Run, o.Work)
					}
				}
				t.Logf("chain %s: %d reservations, %+v", id, len(st.Outcomes), st.Outcomes)
				want[id] = w
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("chain %s still queued: %v", id, q)
			}
			time.Sleep(time.Second)
		}
	}
	l, _, err := clusterLog(t.Context(), LearnRequest{FromCluster: true, Since: since.Format(slurm.SacctTimeLayout)}, advise.NewEngine(advise.DefaultParams()), false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]advise.Job{}
	for _, j := range l.Jobs {
		switch {
		case j.Chain != "":
			got[j.Chain] = j
		case j.App == tag+"-lone":
			got["lone"] = j
		}
	}
	if j := got["lone"]; j.Requested != 60 || j.Run < 3 || j.Run > 10 || j.Censored() || j.Wait < 0 {
		t.Errorf("the plain job: %+v", j)
	}
	if w, j := want[tag+"-done"], got[tag+"-done"]; !w.Complete || w.Run != 250 || j.Run != 250 || j.Censored() || j.App != tag+"-done" || j.Requested != 250 {
		t.Errorf("the chain that completed: read %+v, its runners recorded %+v", j, w)
	}
	if w, j := want[tag+"-out"], got[tag+"-out"]; w.Complete || !(w.Run > 100) || j.Run != math.Round(w.Run) || !j.Censored() || j.Length() != j.Run {
		t.Errorf("the chain that did not complete: read %+v, its runners recorded %+v", j, w)
	}
	model := filepath.Join(root, "site.model")
	out, err = exec.Command(bin, "advise", "learn", "--from-cluster", "--since", since.Format(slurm.SacctTimeLayout), "--model", model).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ckpt chains joined") {
		t.Errorf("ckpt advise learn --from-cluster: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
