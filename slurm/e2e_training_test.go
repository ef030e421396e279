package slurm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestPythonPackage runs the Python package's standard-library tests
// (python/tests: the runner interface, and the Hugging Face and Lightning
// callbacks against stand-ins that follow the frameworks' documented call
// order). The PyTorch resume test (test_train.py) runs in .ci/run, where
// an interpreter with torch is known.
func TestPythonPackage(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the Python package's tests need it")
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_runtime", "test_callbacks")
	cmd.Dir = "../python/tests"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
}

// torchPython is an interpreter that imports torch: $CKPT_PYTHON, else
// Debian's /usr/bin/python3 (python3-torch), else python3; the test
// skips, saying why, when none does.
func torchPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{os.Getenv("CKPT_PYTHON"), "/usr/bin/python3", "python3"} {
		if py != "" && exec.Command(py, "-c", "import torch").Run() == nil {
			return py
		}
	}
	t.Skip("no Python with PyTorch (Debian: apt-get install python3-torch, or set CKPT_PYTHON)")
	return ""
}

// preemptQOS skips unless the cluster preempts by QOS with the QOS of
// scripts/slurm-localhost.sh --preempt; it returns the node's CPUs.
func preemptQOS(t *testing.T) int {
	t.Helper()
	slurmtest.Need(t)
	if pt, err := (Exec{}).PreemptType(context.Background()); err != nil || pt != "preempt/qos" {
		t.Skipf("the cluster's PreemptType is %q (%v): scripts/slurm-localhost.sh --preempt sets preemption up", pt, err)
	}
	out, err := exec.Command("sacctmgr", "-n", "-P", "show", "qos", "format=name").Output()
	if err != nil || !strings.Contains(string(out), "ckpt-preemptable\n") || !strings.Contains(string(out), "ckpt-urgent\n") {
		t.Skipf("no QOS ckpt-preemptable and ckpt-urgent (%v): scripts/slurm-localhost.sh --preempt adds them", err)
	}
	out, err = exec.Command("sinfo", "-h", "-o", "%C").Output()
	f := strings.Split(strings.TrimSpace(string(out)), "/")
	n, _ := strconv.Atoi(f[len(f)-1])
	if err != nil || n < 2 {
		t.Fatalf("sinfo %%C: %q %v", out, err)
	}
	return n
}

// trainArgs are examples/train.py's settings of the end-to-end test: 800
// steps of 80 ms and more (the sleep stands for a larger model's step
// without loading the shared CPU: over a minute in all, so that the plan
// needs a second reservation) and a 20 MB checkpoint.
var trainArgs = []string{"--steps", strconv.Itoa(trainSteps), "--step-sleep", "0.08", "--width", "64", "--pad-mb", "20"}

const trainSteps = 800

// refRun is one uninterrupted run of the training: its walltime (s), its
// final weights, the checkpoint cost it reported and its start-up time
// (s, until the first step).
type refRun struct {
	walltime, cost, startup float64
	weights                 []byte
	err                     error
}

// runReference trains without interruption in dir; with probe it also
// saves once, 20 s in, and trains on (CKPT_AFTER_CHECKPOINT=continue) to
// measure C: a save neither reads nor draws random numbers, so the weights
// must not change.
func runReference(py, train, dir string, probe bool) refRun {
	args := append([]string{train, "--dir", dir, "--out", filepath.Join(dir, "final.bin")}, trainArgs...)
	cmd := exec.Command(py, args...)
	cmd.Env = cleanEnv()
	report := filepath.Join(dir, "report.jsonl")
	if probe {
		at := float64(time.Now().Add(20*time.Second).UnixNano()) / 1e9
		cmd.Env = append(cmd.Env, "CKPT_REPORT_FILE="+report, "CKPT_AFTER_CHECKPOINT=continue", "CKPT_CHECKPOINT_AT="+strconv.FormatFloat(at, 'f', 3, 64))
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return refRun{err: err}
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return refRun{err: err}
	}
	sc := bufio.NewScanner(stdout)
	var r refRun
	var out strings.Builder
	for sc.Scan() {
		if r.startup == 0 {
			r.startup = time.Since(t0).Seconds()
		}
		out.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		return refRun{err: fmt.Errorf("%v: %s", err, out.String())}
	}
	r.walltime = time.Since(t0).Seconds()
	if r.weights, r.err = os.ReadFile(filepath.Join(dir, "final.bin")); r.err != nil || !probe {
		return r
	}
	b, err := os.ReadFile(report)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			C *float64 `json:"checkpoint_s"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.C != nil {
			r.cost = *m.C
		}
	}
	if err != nil || r.cost == 0 {
		r.err = fmt.Errorf("the probe run reported no checkpoint cost (%v): %s\n%s", err, b, out.String())
	}
	return r
}

// cleanEnv is the environment without ckpt's and Slurm's variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CKPT_") && !strings.HasPrefix(kv, "SLURM_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestTrainingChainOnSlurm: examples/train.py, a real PyTorch training
// loop, as a ckpt chain on the local Slurm, planned from its own history.
// Two uninterrupted runs (at once) give the history (their walltimes), C
// (one saves once and trains on) and R (start-up), and the reference
// weights. The plan (DYN-PROG-COUNT on that history, reservations of at
// most a minute, Slurm's granularity and margin) runs with --app-signal
// TERM on QOS ckpt-preemptable: reservation 1 ends on its time limit (the
// runner's TERM at end − C − step − margin, the app saves at the step's
// end), reservation 2 is preempted by a ckpt-urgent job (the runner's
// CKPT_CHECKPOINT_NOW says preempted, the app saves within the grace) and
// requeued (the same job runs again, SLURM_RESTART_COUNT=1, from the
// checkpoint). The final weights equal the reference's byte for byte, and
// no step is trained twice beyond what the plan priced: steps after the
// last save of a reservation the plan ends without a checkpoint. About 4
// minutes; the chain and the urgent job are cancelled at the end.
func TestTrainingChainOnSlurm(t *testing.T) {
	cpus := preemptQOS(t)
	py := torchPython(t)
	begin := time.Now()
	root := t.TempDir()
	os.Chmod(root, 0o777)
	train, _ := filepath.Abs("../examples/train.py")

	refs := make([]refRun, 2)
	var wg sync.WaitGroup
	for i := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			refs[i] = runReference(py, train, filepath.Join(root, fmt.Sprintf("ref%d", i)), i == 0)
		}()
	}
	wg.Wait()
	for _, r := range refs {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if !bytes.Equal(refs[0].weights, refs[1].weights) {
		t.Fatalf("two uninterrupted runs differ (%d and %d bytes): the training is not deterministic", len(refs[0].weights), len(refs[1].weights))
	}
	want := sha256.Sum256(refs[0].weights)
	hist := filepath.Join(root, "history.txt")
	// To the microsecond: the two paced runs once ended within the same
	// millisecond (66.744 s twice), a history with no spread to fit.
	os.WriteFile(hist, fmt.Appendf(nil, "%.6f\n%.6f\n", refs[0].walltime, refs[1].walltime), 0o644)
	startup := max(refs[0].startup, refs[1].startup)
	t.Logf("reference: walltimes %.1f s and %.1f s, C %.3f s, start-up %.1f s, weights sha256 %x", refs[0].walltime, refs[1].walltime, refs[0].cost, startup, want)

	req := reservation.DefaultRequest()
	req.Walltime = HistorySource{Path: hist, Fit: "lognormal"} // the bounded DP finds no plan on the 2-point empirical law
	req.Costs.C, req.Costs.R = math.Ceil(refs[0].cost), math.Ceil(startup)
	req.Costs.Granularity, req.Costs.Margin = reservation.SlurmGranularity, reservation.DefaultSlurmMargin
	req.MaxRequest, req.NoBaselines = 60, true
	plan, err := reservation.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := PlanSteps(plan.Result)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 2 || !steps[0].Checkpoint {
		t.Fatalf("plan %+v: want a first reservation that ends with a checkpoint, then more", steps)
	}
	half := cpus/2 + 1
	id := fmt.Sprintf("ckrun-train%d", time.Now().UnixNano()%1e9)
	c, err := ChainOf(steps, ChainOptions{Job: "/bin/true", Name: id, Ahead: 1,
		Extra: []string{"--qos=ckpt-preemptable", fmt.Sprintf("--cpus-per-task=%d", half)}})
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(root, "train.log")
	app := filepath.Join(root, "train.sh")
	perStep := refs[0].walltime / trainSteps // progress in the plan's seconds
	os.WriteFile(app, fmt.Appendf(nil, `#!/usr/bin/env bash
echo "start $CKPT_RESERVATION ${SLURM_RESTART_COUNT:-0} $(date +%%s.%%N)" >> %s
exec %s %s --dir %s --out %s --log %s --work-per-step %.6f %s
`, log, py, train, filepath.Join(root, "chain"), filepath.Join(root, "final.bin"), log, perStep, strings.Join(trainArgs, " ")), 0o755)
	dir := submitChainRun(t, root, id, c, "", "--app-signal TERM --app-grace 40s", app)
	t.Logf("plan: %d reservations %v", len(steps), steps)

	// Preempt reservation 2 once it has trained for 10 s.
	waitLine(t, log, "start 2 0 ", 150*time.Second)
	time.Sleep(10*time.Second + time.Duration(startup*float64(time.Second)))
	out, err := exec.Command("sbatch", "--parsable", "--qos=ckpt-urgent", fmt.Sprintf("--cpus-per-task=%d", half), "--time=1",
		"--job-name="+id+".urgent", "--output=/dev/null", "--wrap", "sleep 3").Output()
	urgent := strings.TrimSpace(string(out))
	if err != nil {
		t.Fatalf("sbatch urgent: %v", err)
	}
	t.Cleanup(func() { Exec{}.Cancel(context.Background(), []string{urgent}) })
	st, _ := Load(dir)
	job := st.Jobs[2]
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		out, _ := exec.Command("scontrol", "show", "job", "-o", job).Output()
		if strings.Contains(string(out), "Restarts=1") && strings.Contains(string(out), "JobState=PENDING") {
			exec.Command("scontrol", "update", "JobId="+job, "StartTime=now").Run() // Slurm holds a requeued job 120 s
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log)
			t.Fatalf("reservation 2 (job %s) not requeued within 90 s: %s\nlog:\n%s", job, out, tail(b))
		}
	}
	st = waitChain(t, dir, 5*time.Minute-time.Since(begin))
	b, _ := os.ReadFile(log)
	checkTrainingLog(t, string(b), steps, st)
	got, err := os.ReadFile(filepath.Join(root, "final.bin"))
	if err != nil || !bytes.Equal(got, refs[0].weights) {
		t.Fatalf("the chain's final weights (sha256 %x, %v) differ from the uninterrupted run's (%x)", sha256.Sum256(got), err, want)
	}
	t.Logf("final weights equal the uninterrupted run's, sha256 %x; %v in all", want, time.Since(begin).Round(time.Second))
}

// waitLine waits until the file holds a line starting with prefix.
func waitLine(t *testing.T, path, prefix string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, prefix) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line %q in %s within %v:\n%s", prefix, path, limit, tail(b))
		}
	}
}

// tail is the last 30 lines of a log.
func tail(b []byte) string {
	l := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(l[max(0, len(l)-30):], "\n")
}

// checkTrainingLog reads the training log (start R RESTARTS T; step N
// reservation R; checkpoint N reservation R why W cost C) and checks the
// chain's events: a time-limit save in reservation 1, a preemption save
// and a requeued run of reservation 2, every step trained, and steps
// trained twice only where the plan priced it (after the last save of a
// reservation the plan ends without a checkpoint).
func checkTrainingLog(t *testing.T, log string, plan []Step, st *State) {
	t.Helper()
	trained := map[int]int{}
	var saves, starts []string
	res := 0
	priced := 0
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 4 && f[0] == "step":
			n, _ := strconv.Atoi(f[1])
			res, _ = strconv.Atoi(f[3])
			trained[n]++
			if trained[n] > 1 && res >= 2 && res-2 < len(plan) && !plan[res-2].Checkpoint {
				priced++ // the step was lost by a reservation planned without a checkpoint
			}
		case len(f) >= 6 && f[0] == "checkpoint":
			saves = append(saves, l)
		case f[0] == "start":
			starts = append(starts, l)
		}
	}
	t.Logf("runs:\n%s\nsaves:\n%s", strings.Join(starts, "\n"), strings.Join(saves, "\n"))
	twice := 0
	for n := 1; n <= trainSteps; n++ {
		if trained[n] == 0 {
			t.Errorf("step %d never trained", n)
			break
		}
		twice += trained[n] - 1
	}
	t.Logf("%d steps trained twice, %d of them priced by the plan", twice, priced)
	if twice > priced {
		t.Errorf("%d steps trained twice, %d of them priced by the plan", twice, priced)
	}
	has := func(list []string, prefix, suffix string) bool {
		for _, l := range list {
			if strings.HasPrefix(l, prefix) && strings.Contains(l, suffix) {
				return true
			}
		}
		return false
	}
	if !has(saves, "checkpoint", "reservation 1 why time") && !has(saves, "checkpoint", "reservation 1 why SIGTERM") {
		t.Errorf("reservation 1 did not save on its time limit (the runner's TERM): saves %q", saves)
	}
	if !has(saves, "checkpoint", "reservation 2 why preempted") {
		t.Errorf("reservation 2 did not save on its preemption: saves %q", saves)
	}
	if !has(starts, "start 2 1 ", "") {
		t.Errorf("reservation 2 was not requeued (no run with SLURM_RESTART_COUNT=1): %q", starts)
	}
	done := false
	for _, o := range st.Outcomes {
		done = done || o.Outcome == OutcomeDone
	}
	if !done {
		t.Errorf("no reservation completed the work: %+v", st.Outcomes)
	}
}
