package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// toyApp saves 100 s of progress per reservation and completes the work
// in reservation $TOY_DONE, at once: a chain that runs in seconds.
const toyApp = `#!/usr/bin/env bash
echo $((CKPT_RESERVATION * 100)) > "$CKPT_PROGRESS_FILE"
[ "$CKPT_RESERVATION" = "$TOY_DONE" ] && exit 0
exit 1
`

// submitChain writes the job script (ckpt run -- app, with env settings)
// and submits chain c through its script; it returns the chain's state
// folder.
func submitChain(t *testing.T, root, id string, c Chain, env, app string) string {
	t.Helper()
	return submitChainRun(t, root, id, c, env, "--margin 5s", app)
}

// submitChainRun is submitChain with the runner's flags.
func submitChainRun(t *testing.T, root, id string, c Chain, env, flags, app string) string {
	t.Helper()
	job := filepath.Join(root, id+".sh")
	os.WriteFile(job, []byte("#!/usr/bin/env bash\n"+env+" exec "+slurmtest.Ckpt(t)+" run "+flags+" -- "+app+"\n"), 0o755)
	c.Job = job
	c.Extra = append(c.Extra, "--output="+filepath.Join(root, id+"-%j.out"))
	script, err := c.Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "CKPT_CHAINS="+root, "CKPT_CHAIN_ID="+id)
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != id {
		t.Fatalf("submission: %v: %s", err, out)
	}
	dir := filepath.Join(root, id)
	t.Cleanup(func() {
		if st, err := Load(dir); err == nil {
			Exec{}.Cancel(context.Background(), Later(st.Jobs, 0))
		}
	})
	return dir
}

// waitChain waits until no reservation of the chain is pending or running.
func waitChain(t *testing.T, dir string, limit time.Duration) *State {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Exec{}.Queue(context.Background(), Later(st.Jobs, 0))
		if err != nil {
			t.Fatal(err)
		}
		if len(q) == 0 {
			time.Sleep(time.Second) // let the last runner write its record
			st, err = Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("chain %s still queued after %v: %v", dir, limit, q)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestChainOnSlurm: chains of 5 reservations whose work completes in
// reservation 1, 2, …, 5, or never, on a real Slurm. Each runs exactly the
// reservations up to the completing one, in order; the rest are cancelled
// (sacct says CANCELLED: an sacct that fails fails the test); a chain that
// never completes runs all 5 and records "out". The sacct records of the
// chains, grouped, give one run per chain: complete at the final progress,
// or censored.
func TestChainOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	root := t.TempDir()
	os.Chmod(root, 0o777)
	app := filepath.Join(root, "toy.sh")
	os.WriteFile(app, []byte(toyApp), 0o755)
	const n = 5
	base := fmt.Sprintf("e2e%d", time.Now().UnixNano()%1e9)
	dirs := map[int]string{}
	for done := 1; done <= n+1; done++ {
		c := Chain{Name: base + fmt.Sprint(done), Ahead: done % 3, Steps: steps(n)} // windows 0 (all), 1, 2
		dirs[done] = submitChain(t, root, fmt.Sprintf("%s-%d", base, done), c, fmt.Sprintf("TOY_DONE=%d", done), app)
	}
	var all []string
	for done := 1; done <= n+1; done++ {
		st := waitChain(t, dirs[done], 3*time.Minute)
		var ran []string
		for k := 1; k <= n; k++ {
			if o, ok := st.Outcomes[k]; ok {
				ran = append(ran, fmt.Sprintf("%d:%s", k, o.Outcome))
			}
		}
		var want []string
		for k := 1; k <= min(done, n); k++ {
			o := OutcomeCheckpointed
			switch {
			case k == done:
				o = OutcomeDone
			case k == n:
				o = OutcomeOut
			}
			want = append(want, fmt.Sprintf("%d:%s", k, o))
		}
		if strings.Join(ran, " ") != strings.Join(want, " ") {
			t.Errorf("completing in %d (window %d): ran %v, want %v", done, st.Chain.Ahead, ran, want)
		}
		ids := Later(st.Jobs, 0)
		all = append(all, ids...)
		recs, err := Exec{}.Accounting(context.Background(), ids)
		if err != nil {
			t.Fatalf("sacct: %v", err)
		}
		if len(recs) != len(ids) {
			t.Fatalf("sacct returned %d records for %d jobs", len(recs), len(ids))
		}
		for _, r := range recs {
			k := 0
			for j, id := range st.Jobs {
				if id == r.JobID {
					k = j
				}
			}
			state := strings.Fields(r.State)[0]
			switch {
			case k == done && state != "COMPLETED", k < done && k < n && state != "FAILED",
				k > done && state != "CANCELLED", done > n && k == n && state != "FAILED":
				t.Errorf("chain completing in %d: reservation %d (job %s) ended %s", done, k, r.JobID, r.State)
			}
		}
		cs, err := Status(context.Background(), Exec{}, st)
		wantOutcome := OutcomeDone
		if done > n {
			wantOutcome = OutcomeOut
		}
		if err != nil || cs.Outcome != wantOutcome || cs.Progress != float64(100*min(done, n)) {
			t.Errorf("status %+v, %v", cs, err)
		}
	}
	// sacct round trip: one run per chain.
	out, err := exec.Command("sacct", "-X", "--parsable2", "-j", strings.Join(all, ","), "--format", sacctFormat).Output()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadSacct(strings.NewReader(string(out)), "sacct")
	if err != nil {
		t.Fatal(err)
	}
	runs := GroupRuns(recs, DefaultRunsOptions)
	if runs.Complete != n || runs.Censored != 1 || len(runs.Skipped) != 0 {
		t.Fatalf("runs %+v", runs)
	}
	for _, r := range runs.Runs {
		k := 0
		fmt.Sscanf(r.Chain[strings.LastIndex(r.Chain, "-")+1:], "%d", &k)
		want := float64(100 * min(k, n))
		if r.Walltime != want || r.Censored != (k > n) {
			t.Errorf("chain %s: walltime %v censored %v, want %v, %v", r.Chain, r.Walltime, r.Censored, want, k > n)
		}
	}
	// The loop closes: the law learnt from these records plans again.
	hist := filepath.Join(root, "sacct.txt")
	os.WriteFile(hist, out, 0o644)
	learnt, err := exec.Command(slurmtest.Ckpt(t), "chain", "history", hist, "--fit", "lognormal").CombinedOutput()
	if err != nil || !strings.Contains(string(learnt), "5 runs complete, 1 censored") {
		t.Fatalf("chain history: %v\n%s", err, learnt)
	}
	spec := strings.TrimSpace(string(learnt[strings.LastIndex(string(learnt), "--dist ")+len("--dist "):]))
	if plan, err := exec.Command(slurmtest.Ckpt(t), "reserve", "--dist", spec, "--ckpt", "5", "--restart", "5", "--no-baselines", "--sbatch", "job.sh").CombinedOutput(); err != nil || !strings.Contains(string(plan), "submit 1") {
		t.Errorf("relearned plan: %v\n%s", err, plan)
	}
}

// TestCheckpointSignalOnSlurm: a one-minute reservation with C = 10 s and
// a 5 s margin: the runner reads the real end time from Slurm and signals
// the app at end − 15 s, to the second; the app checkpoints and exits.
func TestCheckpointSignalOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	root := t.TempDir()
	os.Chmod(root, 0o777)
	app, _ := filepath.Abs("../examples/count.sh")
	c := Chain{Name: "sig", Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 10, Milestone: 50}, {Time: 60, Restart: true, Milestone: 100}}, Ahead: 0}
	id := fmt.Sprintf("sig-%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, c, "WORK=100000", app)
	deadline := time.Now().Add(3 * time.Minute)
	var o Outcome
	for {
		st, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if o = st.Outcomes[1]; o.Outcome != "" && o.Outcome != OutcomeRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("reservation 1 did not end")
		}
		time.Sleep(time.Second)
	}
	Exec{}.Cancel(context.Background(), []string{})
	st, _ := Load(dir)
	Exec{}.Cancel(context.Background(), Later(st.Jobs, 0))
	lim := o.Deadline.Sub(o.Start)
	due := o.Deadline.Add(-15 * time.Second)
	t.Logf("start %v, end %v (limit %v), signal %v (due %v), app ended %v", o.Start.Format(time.TimeOnly), o.Deadline.Format(time.TimeOnly), lim, o.SignalAt.Format(time.TimeOnly), due.Format(time.TimeOnly), o.End.Format(time.TimeOnly))
	if lim < 55*time.Second || lim > 62*time.Second {
		t.Errorf("end time %v after the start, want the one-minute limit", lim)
	}
	if d := o.SignalAt.Sub(due); d > 0 || d < -time.Second {
		t.Errorf("signal at %v, due at %v", o.SignalAt, due)
	}
	if d := o.End.Sub(o.SignalAt); d < 0 || d > 3*time.Second || o.Outcome != OutcomeCheckpointed {
		t.Errorf("app ended %v after the signal as %s", d, o.Outcome)
	}
}

// TestRequeueOnSlurm: a chain whose work completes in reservation 1; an
// administrator requeues that finished job (scontrol requeue, released at
// once with scontrol update StartTime=now). It runs again, but the runner
// finds the work done and does not start the app: the app ran once, the
// reservation's record still says done, no other reservation ran.
func TestRequeueOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	root := t.TempDir()
	os.Chmod(root, 0o777)
	runs := filepath.Join(root, "runs.log")
	app := filepath.Join(root, "once.sh")
	os.WriteFile(app, []byte("#!/usr/bin/env bash\necho \"$CKPT_RESERVATION\" >> "+runs+"\necho 100 > \"$CKPT_PROGRESS_FILE\"\nexit 0\n"), 0o755)
	id := fmt.Sprintf("rq%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 0, Steps: steps(3)}, "", app)
	st := waitChain(t, dir, 2*time.Minute)
	if st.Outcomes[1].Outcome != OutcomeDone {
		t.Fatalf("reservation 1: %+v", st.Outcomes[1])
	}
	job := st.Jobs[1]
	if out, err := exec.Command("scontrol", "requeue", job).CombinedOutput(); err != nil {
		t.Fatalf("scontrol requeue %s: %v: %s", job, err, out)
	}
	// A requeued job waits ~2 minutes (BeginTime); release it now (as an
	// administrator), else wait that long.
	exec.Command("scontrol", "update", "jobid="+job, "StartTime=now").Run()
	out := filepath.Join(root, id+"-"+job+".out")
	deadline := time.Now().Add(3 * time.Minute)
	for {
		b, _ := os.ReadFile(out)
		q, _ := Exec{}.Queue(context.Background(), []string{job})
		again, _ := os.ReadFile(runs)
		if (strings.Contains(string(b), "ran again (requeued?)") || len(strings.Fields(string(again))) > 1) && len(q) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the requeued job %s did not run again within 3 minutes (queue %v; output %q)", job, q, b)
		}
		time.Sleep(time.Second)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "reservation 1: skipped, progress 1m40s saved") {
		t.Errorf("the requeued run says:\n%s\nwant the progress it found saved", b)
	}
	b, _ := os.ReadFile(runs)
	if got := strings.Fields(string(b)); len(got) != 1 || got[0] != "1" {
		t.Errorf("the app ran in reservations %v, want [1] only", got)
	}
	st, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Outcomes[1].Outcome != OutcomeDone || len(st.Outcomes) != 1 {
		t.Errorf("records after the requeue: %+v", st.Outcomes)
	}
	recs, err := Exec{}.Accounting(context.Background(), Later(st.Jobs, 0))
	if err != nil {
		t.Fatalf("sacct: %v", err)
	}
	for _, r := range recs {
		if want := map[bool]string{true: "COMPLETED", false: "CANCELLED"}[r.JobID == job]; !strings.HasPrefix(r.State, want) {
			t.Errorf("job %s ended %s, want %s", r.JobID, r.State, want)
		}
	}
}

// TestBadSubmissionOnSlurm: a job script that sbatch cannot open is
// rejected at the first submission on the real Slurm: the script exits 1
// and nothing is queued under the chain's name.
func TestBadSubmissionOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	root := t.TempDir()
	id := fmt.Sprintf("bad%d", time.Now().UnixNano()%1e9)
	c := Chain{Job: filepath.Join(root, "missing.sh"), Name: id, Ahead: 0, Steps: steps(3)}
	script, err := c.Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "CKPT_CHAINS="+root, "CKPT_CHAIN_ID="+id)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ckpt: submission failed; cancelled nothing") {
		t.Fatalf("%v: %s", err, out)
	}
	q, err := exec.Command("squeue", "-h", "-n", id+".r1,"+id+".r2,"+id+".r3", "-o", "%i").Output()
	if err != nil || strings.TrimSpace(string(q)) != "" {
		t.Errorf("queued after a failed submission: %q %v", q, err)
	}
}

// TestRequeueRunningOnSlurm: reservation 1 is requeued while its app runs
// (a node failure or preemption does the same). The later reservations
// stay pending through the requeue (afternotok is not met by a requeued
// job); reservation 1 runs again and completes the work; reservations 2
// and 3 never run.
func TestRequeueRunningOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	root := t.TempDir()
	os.Chmod(root, 0o777)
	runs := filepath.Join(root, "runs.log")
	app := filepath.Join(root, "slow.sh")
	os.WriteFile(app, []byte("#!/usr/bin/env bash\necho \"$CKPT_RESERVATION ${SLURM_RESTART_COUNT:-0}\" >> "+runs+
		"\nif [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then sleep 60; exit 1; fi\necho 100 > \"$CKPT_PROGRESS_FILE\"\nexit 0\n"), 0o755)
	id := fmt.Sprintf("rr%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 0, Steps: steps(3)}, "", app)
	st, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	job := st.Jobs[1]
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if b, _ := os.ReadFile(runs); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("reservation 1 did not start within a minute")
		}
	}
	if out, err := exec.Command("scontrol", "requeue", job).CombinedOutput(); err != nil {
		t.Fatalf("scontrol requeue %s: %v: %s", job, err, out)
	}
	time.Sleep(3 * time.Second)
	q, _ := Exec{}.Queue(context.Background(), Later(st.Jobs, 0))
	for k := 2; k <= 3; k++ {
		if s := q[st.Jobs[k]]; s != "PENDING" {
			t.Errorf("reservation %d is %q after reservation 1 was requeued, want PENDING", k, s)
		}
	}
	exec.Command("scontrol", "update", "jobid="+job, "StartTime=now").Run()
	st = waitChain(t, dir, 3*time.Minute)
	b, _ := os.ReadFile(runs)
	if got := strings.TrimSpace(string(b)); got != "1 0\n1 1" {
		t.Errorf("app runs (reservation, restart count):\n%s\nwant reservation 1 twice, no other", got)
	}
	if st.Outcomes[1].Outcome != OutcomeDone || len(st.Outcomes) != 1 {
		t.Errorf("records: %+v", st.Outcomes)
	}
}
