package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// needPreemption skips unless the cluster preempts by QOS and has the QOS
// of scripts/slurm-localhost.sh --preempt; it returns the node's CPUs.
func needPreemption(t *testing.T) int {
	t.Helper()
	slurmtest.Need(t)
	if pt, err := (Exec{}).PreemptType(context.Background()); err != nil || pt != "preempt/qos" {
		t.Skipf("the cluster's PreemptType is %q (%v): run scripts/slurm-localhost.sh --preempt", pt, err)
	}
	out, err := exec.Command("sacctmgr", "-n", "-P", "show", "qos", "format=name").Output()
	if err != nil || !strings.Contains(string(out), "ckpt-preemptable\n") || !strings.Contains(string(out), "ckpt-urgent\n") {
		t.Skipf("no QOS ckpt-preemptable and ckpt-urgent (%v): run scripts/slurm-localhost.sh --preempt", err)
	}
	out, err = exec.Command("sinfo", "-h", "-o", "%C").Output() // allocated/idle/other/total
	f := strings.Split(strings.TrimSpace(string(out)), "/")
	n, _ := strconv.Atoi(f[len(f)-1])
	if err != nil || n < 2 {
		t.Fatalf("sinfo %%C: %q %v", out, err)
	}
	return n
}

// TestPreemptionOnSlurm: reservation 1 of a chain runs on QOS
// ckpt-preemptable with more than half the node's CPUs; a job of QOS
// ckpt-urgent asking as many preempts it (the two cannot share the node,
// whatever else runs). The runner sees the preemption (PreemptTime), asks
// the app for its checkpoint once (the CKPT_CHECKPOINT_NOW file says
// "preempted"), the app saves within the grace time, and the runner
// records the reservation preempted at its progress, censored in the job
// comment, then requeues its job: the same job ID runs again
// (SLURM_RESTART_COUNT=1) from the checkpoint, after the urgent job, never
// beside the first run, and completes the work. Slurm holds a requeued job
// 120 s (BeginTime); the test releases it (scontrol update StartTime=now)
// to stay within 3 minutes.
func TestPreemptionOnSlurm(t *testing.T) {
	cpus := needPreemption(t)
	t.Parallel()
	half := cpus/2 + 1
	root := t.TempDir()
	os.Chmod(root, 0o777)
	log := filepath.Join(root, "log")
	app := filepath.Join(root, "work.sh")
	os.WriteFile(app, []byte(`#!/usr/bin/env bash
p=0
[ "$CKPT_RESTART" = 1 ] && p=$(cat "$CKPT_PROGRESS_FILE")
echo "start $(date +%s.%N) restarts=${SLURM_RESTART_COUNT:-0} from=$p" >> `+log+`
trap 'echo "save $(date +%s.%N) at=$p why=$(cut -d" " -f1 "$CKPT_CHECKPOINT_NOW")" >> `+log+`; echo $p > "$CKPT_PROGRESS_FILE"; echo "{\"checkpoint_s\": 0.2}" >> "$CKPT_REPORT_FILE"; exit 1' USR1
while [ "$p" -lt 40 ]; do sleep 1; p=$((p+1)); done
echo "end $(date +%s.%N) at=$p" >> `+log+`
echo $p > "$CKPT_PROGRESS_FILE"
exit 0
`), 0o755)
	id := fmt.Sprintf("ckrun-preempt%d", time.Now().UnixNano()%1e9)
	begin := time.Now()
	c := Chain{Name: id, Ahead: 1, Extra: []string{"--qos=ckpt-preemptable", fmt.Sprintf("--cpus-per-task=%d", half)},
		Steps: []Step{{Time: 120, Checkpoint: true, CheckpointTime: 5, Milestone: 100}, {Time: 120, Restart: true, RestartTime: 1, Milestone: 200}}}
	dir := submitChain(t, root, id, c, "", app)
	waitFile(t, log, time.Minute)
	time.Sleep(3 * time.Second)
	submitted := time.Now()
	out, err := exec.Command("sbatch", "--parsable", "--qos=ckpt-urgent", fmt.Sprintf("--cpus-per-task=%d", half), "--time=1",
		"--job-name="+id+".urgent", "--output=/dev/null", "--wrap", "sleep 3").Output()
	urgent := strings.TrimSpace(string(out))
	if err != nil {
		t.Fatalf("sbatch urgent: %v", err)
	}
	t.Cleanup(func() { Exec{}.Cancel(context.Background(), []string{urgent}) })
	st, _ := Load(dir)
	job := st.Jobs[1]
	// The preempted job comes back pending (BeginTime): release it.
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		out, _ := exec.Command("scontrol", "show", "job", "-o", job).Output()
		if strings.Contains(string(out), "Restarts=1") && strings.Contains(string(out), "JobState=PENDING") {
			exec.Command("scontrol", "update", "JobId="+job, "StartTime=now").Run()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log)
			t.Fatalf("job %s not requeued within 90 s: %s\napp log:\n%s", job, out, b)
		}
	}
	st = waitChain(t, dir, 150*time.Second-time.Since(begin))
	b, _ := os.ReadFile(log)
	t.Logf("app log:\n%s", b)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "start ") || !strings.Contains(lines[0], "restarts=0 from=0") ||
		!strings.HasPrefix(lines[1], "save ") || !strings.HasSuffix(lines[1], "why=preempted") ||
		!strings.HasPrefix(lines[2], "start ") || !strings.Contains(lines[2], "restarts=1") || !strings.HasPrefix(lines[3], "end ") {
		t.Fatalf("app log: want start, save (preempted), start (requeued), end")
	}
	at := strings.TrimPrefix(strings.Fields(lines[1])[2], "at=")
	if !strings.HasSuffix(lines[2], "from="+at) || !strings.HasSuffix(lines[3], "at=40") {
		t.Errorf("the requeued run did not resume from the checkpoint at %s", at)
	}
	saved, _ := strconv.ParseFloat(strings.Fields(lines[1])[1], 64)
	restarted, _ := strconv.ParseFloat(strings.Fields(lines[2])[1], 64)
	// Slurm selected the job for preemption after the urgent job's
	// submission: the save came within the grace (45 s) of it.
	if d := saved - float64(submitted.UnixNano())/1e9; d > 45 {
		t.Errorf("saved %.1f s after the urgent job's submission: beyond the grace time", d)
	} else {
		t.Logf("saved %.1f s after the urgent job's submission (scheduling, the runner's poll, the app's step of 1 s)", d)
	}
	if restarted <= saved {
		t.Errorf("the requeued run started (%.3f) before the first one saved (%.3f): two apps at once", restarted, saved)
	}
	if o := st.Outcomes[1]; o.Outcome != OutcomeDone || o.Progress != 40 || st.Jobs[1] != job {
		t.Errorf("reservation 1: %+v (job %s)", o, st.Jobs[1])
	}
	if m := st.Measured(); m.Checkpoint != 0.2 {
		t.Errorf("measured %+v, want the app's 0.2 s checkpoint", m)
	}
	// sacct --duplicates keeps the preempted run: it ended in the grace,
	// censored at its work in its comment.
	out, err = exec.Command("sacct", "-X", "-D", "--parsable2", "-j", strings.Join(Later(st.Jobs, 0), ","), "--format", sacctFormat).Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sacct -D:\n%s", out)
	recs, err := ReadSacct(strings.NewReader(string(out)), "sacct")
	if err != nil {
		t.Fatal(err)
	}
	runs := GroupRuns(recs, DefaultRunsOptions)
	if len(runs.Runs) != 1 || runs.Runs[0].Censored || runs.Runs[0].Walltime != 40 {
		t.Errorf("history: %+v", runs)
	}
}
