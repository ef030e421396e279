package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// waitFile waits for path to hold a line (limit: a test failure).
func waitFile(t *testing.T, path string, limit time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %v", path, limit)
		}
	}
}

// gone reports whether process pid has exited (or is a zombie).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return syscall.Kill(pid, 0) == syscall.ESRCH || err == nil && strings.Contains(string(stat), ") Z ")
}

// TestOrphanOnSlurm: kill -9 of "ckpt run" during reservation 1 on the real
// Slurm. Its app dies with it (parent-death signal), at once; the helper
// the app started (not its child: no parent-death signal) is killed by
// reservation 2's runner, which takes the chain's lock over and marks
// reservation 1 vanished, in the folder and, when Slurm still knows the
// job, in its comment. While reservation 1 runs, chain status shows why
// reservation 2 waits (Dependency).
func TestOrphanOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	root := t.TempDir()
	os.Chmod(root, 0o777)
	app := filepath.Join(root, "orphan.sh")
	os.WriteFile(app, []byte(`#!/usr/bin/env bash
if [ "$CKPT_RESERVATION" = 1 ]; then
	sleep 300 & echo $! > `+root+`/helper
	echo "$$ $PPID" > `+root+`/pids
	while :; do sleep 0.1; done
fi
echo "$CKPT_RESERVATION" > `+root+`/r2ran
echo 100 > "$CKPT_PROGRESS_FILE"
exit 0
`), 0o755)
	id := fmt.Sprintf("ckrun-orph%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 0, Steps: []Step{{Time: 120, Checkpoint: true, CheckpointTime: 5, Milestone: 100}, {Time: 60, Restart: true}, {Time: 60, Restart: true}}}, "", app)
	pids := strings.Fields(waitFile(t, filepath.Join(root, "pids"), time.Minute))
	appPID, _ := strconv.Atoi(pids[0])
	runner, _ := strconv.Atoi(pids[1])
	helper, _ := strconv.Atoi(waitFile(t, filepath.Join(root, "helper"), 5*time.Second))
	defer syscall.Kill(helper, syscall.SIGKILL)
	st, _ := Load(dir)
	cs, err := Status(context.Background(), Exec{}, st)
	if err != nil || len(cs.Jobs) < 2 || cs.Jobs[1].State != "PENDING" || cs.Jobs[1].Reason != "Dependency" {
		t.Errorf("status while reservation 1 runs: %+v, %v", cs, err)
	}
	killed := time.Now()
	if err := syscall.Kill(runner, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d (ckpt run): %v", runner, err)
	}
	for !gone(appPID) && time.Since(killed) < 5*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	appDied := time.Since(killed)
	if !gone(appPID) {
		syscall.Kill(appPID, syscall.SIGKILL)
		t.Fatalf("the app (pid %d) outlived its runner by 5 s", appPID)
	}
	waitFile(t, filepath.Join(root, "r2ran"), 2*time.Minute)
	helperDied := time.Since(killed)
	if !gone(helper) {
		t.Errorf("the app's helper (pid %d) still runs after reservation 2 started", helper)
	}
	st = waitChain(t, dir, 2*time.Minute)
	t.Logf("kill -9 of the runner: app gone after %v; helper gone by reservation 2's start, %v later", appDied, helperDied)
	r1 := st.Outcomes[1]
	if r1.Outcome != OutcomeVanished || !strings.Contains(r1.Note, "completed by reservation 2") || st.Outcomes[2].Outcome != OutcomeDone {
		t.Errorf("records: %+v", st.Outcomes)
	}
	recs, err := Exec{}.Accounting(context.Background(), []string{st.Jobs[1]})
	if err != nil || len(recs) != 1 {
		t.Fatalf("sacct: %v %v", recs, err)
	}
	if !strings.Contains(recs[0].Comment, "outcome=vanished") {
		t.Errorf("job %s (%s): comment %q, want outcome=vanished", recs[0].JobID, recs[0].State, recs[0].Comment)
	}
	if _, ok, _ := st.Holder(); ok {
		t.Error("the chain's lock outlived the chain")
	}
}

// TestStalledOnSlurm: an app that crashes at start in every reservation.
// The chain stops itself after reservation 2 (the default stall limit):
// reservations 3–5 are cancelled (sacct), reservation 2's comment says
// stopped=stalled, chain status says stalled and why, and chain history
// counts the chain as a failure, not a censored run.
func TestStalledOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	root := t.TempDir()
	os.Chmod(root, 0o777)
	app := filepath.Join(root, "crash.sh")
	os.WriteFile(app, []byte("#!/usr/bin/env bash\necho crash >&2\nexit 3\n"), 0o755)
	id := fmt.Sprintf("ckrun-stall%d", time.Now().UnixNano()%1e9)
	var stp []Step
	for k := range 5 {
		stp = append(stp, Step{Time: 60, Checkpoint: true, CheckpointTime: 5, Restart: k > 0, Milestone: float64(50 * (k + 1))})
	}
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 0, Steps: stp}, "", app)
	st := waitChain(t, dir, 2*time.Minute)
	if st.Outcomes[1].Outcome != OutcomeFailed || st.Outcomes[2].Outcome != OutcomeFailed || len(st.Outcomes) != 2 {
		t.Errorf("records: %+v", st.Outcomes)
	}
	recs, err := Exec{}.Accounting(context.Background(), Later(st.Jobs, 0))
	if err != nil || len(recs) != 5 {
		t.Fatalf("sacct: %+v, %v", recs, err)
	}
	var lines []string
	for _, r := range recs {
		lines = append(lines, strings.Join([]string{r.JobID, r.State, r.Comment}, "|"))
		k := 0
		for j, jid := range st.Jobs {
			if jid == r.JobID {
				k = j
			}
		}
		switch {
		case k <= 2 && !strings.HasPrefix(r.State, "FAILED"), k > 2 && !strings.HasPrefix(r.State, "CANCELLED"):
			t.Errorf("reservation %d (job %s) ended %s", k, r.JobID, r.State)
		case k == 2 && !strings.Contains(r.Comment, "outcome=failed") || k == 2 && !strings.Contains(r.Comment, "stopped=stalled"):
			t.Errorf("reservation 2's comment %q", r.Comment)
		}
	}
	cs, err := Status(context.Background(), Exec{}, st)
	if err != nil || cs.Outcome != OutcomeStalled || !strings.Contains(cs.Reason, "2 reservations in a row saved no new progress") {
		t.Errorf("status %+v, %v", cs, err)
	}
	runs := GroupRuns(recs, DefaultRunsOptions)
	if len(runs.Runs) != 0 || runs.Skipped["chain whose app failed (not a censored walltime)"] != 1 {
		t.Errorf("history %+v", runs)
	}
	t.Logf("sacct:\n%s", strings.Join(lines, "\n"))
}

// TestTimeoutOnSlurm: a reservation that plans no checkpoint and whose app
// runs past the one-minute limit. Slurm's SIGTERM reaches the app once
// (proctrack/cgroup or linuxproc: the runner does not send a second), the
// runner records outcome=timeout in the job comment before Slurm's
// SIGKILL, and then the final outcome (killed, ended=timeout).
func TestTimeoutOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	if pt, err := (Exec{}).Proctrack(context.Background()); err != nil || pt == "proctrack/pgid" {
		t.Skipf("proctrack %q (%v): Slurm's SIGTERM does not reach the app", pt, err)
	}
	root := t.TempDir()
	os.Chmod(root, 0o777)
	app := filepath.Join(root, "long.sh")
	terms := filepath.Join(root, "terms")
	os.WriteFile(app, []byte("#!/usr/bin/env bash\ntrap 'echo \"TERM $(date +%s.%N)\" >> "+terms+"; sleep 1; exit 143' TERM\nwhile :; do sleep 0.1; done\n"), 0o755)
	id := fmt.Sprintf("ckrun-tmo%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 0, Steps: []Step{{Time: 60}, {Time: 60}}}, "", app)
	deadline := time.Now().Add(3 * time.Minute)
	var o Outcome
	for {
		st, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if o = st.Outcomes[1]; !o.End.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reservation 1 did not end: %+v", o)
		}
		time.Sleep(time.Second)
	}
	st, _ := Load(dir)
	Exec{}.Cancel(context.Background(), Later(st.Jobs, 1))
	b, _ := os.ReadFile(terms)
	if n := strings.Count(string(b), "TERM"); n != 1 {
		t.Errorf("the app got SIGTERM %d times:\n%s", n, b)
	}
	if o.Outcome != OutcomeKilled || o.Ended != OutcomeTimeout {
		t.Errorf("reservation 1: %+v", o)
	}
	var term float64
	fmt.Sscanf(strings.Fields(string(b) + " x 0")[1], "%f", &term)
	t.Logf("deadline %s, SIGTERM at the app %.3f s after it, runner recorded the end %.3f s after it", o.Deadline.Format(time.TimeOnly), term-float64(o.Deadline.UnixNano())/1e9, o.End.Sub(o.Deadline).Seconds())
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		recs, err := Exec{}.Accounting(context.Background(), []string{st.Jobs[1]})
		if err == nil && len(recs) == 1 && !liveStates[strings.Fields(recs[0].State + " ?")[0]] {
			if !strings.HasPrefix(recs[0].State, "TIMEOUT") || !strings.Contains(recs[0].Comment, "outcome=killed") || !strings.Contains(recs[0].Comment, "ended=timeout") {
				t.Errorf("sacct: %+v", recs[0])
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("sacct: %+v %v", recs, err)
		}
	}
}

// TestPendingReasonOnSlurm: a chain held by --begin shows Slurm's reason
// (BeginTime) in chain status, not just "pending".
func TestPendingReasonOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	root := t.TempDir()
	id := fmt.Sprintf("ckrun-pend%d", time.Now().UnixNano()%1e9)
	dir := submitChain(t, root, id, Chain{Name: id, Ahead: 1, Steps: steps(3), Extra: []string{"--begin=now+1hour"}}, "", "/bin/true")
	st, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cs ChainStatus
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if cs, err = Status(context.Background(), Exec{}, st); err == nil && cs.Reason == "Slurm: BeginTime" {
			break
		}
	}
	if cs.Outcome != "pending" || cs.Reason != "Slurm: BeginTime" {
		t.Errorf("status %+v, %v", cs, err)
	}
	var b strings.Builder
	cs.WriteText(&b)
	if !strings.Contains(b.String(), "pending (Slurm: BeginTime)") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestMilestonesOnSlurm: a plan of ckpt reserve (lognormal work of mean
// 300 s, C = 20 s, R = 10 s) run by an app whose work is its time (450 s of work) on
// the real Slurm, 10 times faster than real time. The plan prices the
// runner's margin inside C (the app's own checkpoint is instantaneous; the
// runner runs with --margin 0 and signals at end − C): each checkpointed
// reservation's saved progress reaches its planned milestone, less the
// app's own start (its exec, measured by the app), × 10.
func TestMilestonesOnSlurm(t *testing.T) {
	slurmtest.Need(t)
	t.Parallel()
	out, err := exec.Command(slurmtest.Ckpt(t), "reserve", "--dist", "lognormal:mean=300s,sd=80s", "--ckpt", "20", "--restart", "10", "--no-baselines", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Reservations []struct {
			Length         float64 `json:"length_s"`
			Milestone      float64 `json:"milestone_s"`
			Restart        float64 `json:"restart_s"`
			Checkpoint     bool    `json:"checkpoint"`
			CheckpointTime float64 `json:"checkpoint_time_s"`
		}
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		t.Fatal(err)
	}
	var stp []Step
	for _, r := range plan.Reservations {
		stp = append(stp, Step{Time: r.Length, Checkpoint: r.Checkpoint, CheckpointTime: r.CheckpointTime, Restart: r.Restart > 0, RestartTime: r.Restart, Milestone: r.Milestone})
	}
	root := t.TempDir()
	os.Chmod(root, 0o777)
	// An app whose work is its time (EPOCHREALTIME, no fork per unit):
	// count.sh forks a sleep per unit and at 10 units a second counted 78 %
	// of them here (224 of 289), count.py 90 % on this loaded machine (261).
	app := filepath.Join(root, "timed.sh")
	os.WriteFile(app, []byte(`#!/usr/bin/env bash
t0=$EPOCHREALTIME
p0=0
[ "$CKPT_RESTART" = 1 ] && [ -s "$CKPT_PROGRESS_FILE" ] && p0=$(cat "$CKPT_PROGRESS_FILE")
work() { awk -v a="$t0" -v b="$EPOCHREALTIME" -v p="$p0" -v s="$CKPT_SCALE" 'BEGIN { printf "%.1f", p + (b - a) * s }'; }
trap 'w=$(work); echo "$w" > "$CKPT_PROGRESS_FILE.tmp"; mv "$CKPT_PROGRESS_FILE.tmp" "$CKPT_PROGRESS_FILE"; echo "start $t0 end $CKPT_END saved $w"; exit 1' USR1
echo "start $t0 end $CKPT_END from $p0"
echo "$CKPT_RESERVATION $t0" >> `+root+`/starts
while :; do
	sleep 0.05 & wait $!
	w=$(work)
	if awk -v w="$w" -v W="$WORK" 'BEGIN { exit !(w >= W) }'; then echo "$WORK" > "$CKPT_PROGRESS_FILE"; exit 0; fi
done
`), 0o755)
	id := fmt.Sprintf("ckrun-mile%d", time.Now().UnixNano()%1e9)
	dir := submitChainRun(t, root, id, Chain{Name: id, Ahead: 1, Steps: stp, Scale: 10}, "WORK=450", "--margin 0", app)
	st := waitChain(t, dir, 3*time.Minute)
	starts := map[int]float64{} // when each reservation's app began to work (Unix s)
	b, _ := os.ReadFile(filepath.Join(root, "starts"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var k int
		var at float64
		if _, err := fmt.Sscanf(l, "%d %f", &k, &at); err == nil {
			starts[k] = at
		}
	}
	var report []string
	for k := 1; k <= len(stp); k++ {
		o, ok := st.Outcomes[k]
		if !ok {
			break
		}
		// The app's own start (exec, bash) is its loss: the reservation
		// began at Deadline − Time/S, when the runner started it.
		lag := starts[k] - (float64(o.Deadline.UnixNano())/1e9 - stp[k-1].Time/10)
		report = append(report, fmt.Sprintf("r%d %s: saved %.1f, planned %.1f (signal %.3f s before the end; the app began %.3f s after the reservation, real)", k, o.Outcome, o.Progress, stp[k-1].Milestone, o.Deadline.Sub(o.SignalAt).Seconds(), lag))
		switch o.Outcome {
		case OutcomeCheckpointed:
			if o.Progress < stp[k-1].Milestone-10*lag-0.5 {
				t.Errorf("reservation %d saved %.1f, planned %.1f less the app's start %.1f", k, o.Progress, stp[k-1].Milestone, 10*lag)
			}
		case OutcomeKilled: // a reservation that plans no checkpoint, stopped at its end
			if stp[k-1].Checkpoint {
				t.Errorf("reservation %d: %+v", k, o)
			}
		case OutcomeDone:
			if o.Progress != 450 {
				t.Errorf("reservation %d: done at %.0f", k, o.Progress)
			}
		default:
			t.Errorf("reservation %d: %+v", k, o)
		}
	}
	if DoneIn(st.Outcomes) == 0 {
		t.Errorf("the work did not complete: %+v", st.Outcomes)
	}
	t.Logf("saved vs planned:\n%s", strings.Join(report, "\n"))
}
