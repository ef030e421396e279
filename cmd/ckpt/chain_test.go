package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSbatchFlagsNeedSbatch(t *testing.T) {
	for _, args := range [][]string{
		{"reserve", "--job-name", "x"},
		{"reserve", "--sbatch-arg", "--partition=gpu"},
		{"reserve", "--ahead", "3"},
	} {
		_, errOut, code := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "applies only with --sbatch") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// fakeSinfo puts an sinfo that prints out on PATH.
func fakeSinfo(t *testing.T, out string) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sinfo"), []byte("#!/bin/sh\n"+out+"\n"), 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestReserveSbatchWindowAndPassThrough(t *testing.T) {
	fakeSinfo(t, "echo 'debug*|infinite|1000'; echo 'gpu|infinite|1000'")
	base := []string{"reserve", "--dist", "uniform:a=1h,b=3h", "--ckpt", "5m", "--restart", "5m", "--no-baselines", "--sbatch", "job.sh", "--job-name", "seg"}
	out, errOut, code := run(t, "", append(base, "--sbatch-arg", "--partition=gpu", "--sbatch-arg", "--account=a1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\nsubmit "); n != 3 || !strings.Contains(out, "--partition=gpu --account=a1") || !strings.Contains(out, "--job-name=seg.r3") {
		t.Errorf("want 3 submissions (window 2 ahead) with the options:\n%s", out)
	}
	all, _, _ := run(t, "", append(base, "--ahead", "all")...)
	if strings.Count(all, "\nsubmit ") <= 3 || strings.Contains(all, "submitted by the runners") {
		t.Errorf("--ahead all does not submit everything:\n%s", all)
	}
	for _, bad := range [][]string{{"--ahead", "0"}, {"--ahead", "x"}, {"--sbatch-arg", "--time=5"}, {"--job-name", "a b"}} {
		_, errOut, code := run(t, "", append(base[:len(base)-2], append([]string{"--job-name", "seg"}, bad...)...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
}

// oneReservationChain writes a chain folder of one reservation (nothing to
// submit, so no Slurm is asked) and returns its path.
func oneReservationChain(t *testing.T, checkpoint bool) string {
	dir := filepath.Join(t.TempDir(), "toy-1")
	os.MkdirAll(dir, 0o755)
	plan := `{"job": "job.sh", "name": "toy", "steps": [{"time": 60, "checkpoint": ` + fmt.Sprint(checkpoint) + `, "checkpoint_time": 1, "milestone": 50}]}`
	os.WriteFile(filepath.Join(dir, "chain.json"), []byte(plan), 0o644)
	return dir
}

func TestRunAndChainStatus(t *testing.T) {
	app, _ := filepath.Abs("../../examples/count.sh")
	dir := oneReservationChain(t, false)
	t.Setenv("SLURM_JOB_ID", "")
	t.Setenv("WORK", "3")
	t.Setenv("SPEED", "30")
	_, errOut, code := run(t, "", "run", "--chain-dir", dir, "--reservation", "1", "--", app)
	if code != 0 || !strings.Contains(errOut, "reservation 1: done, progress 3.0s") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, "", "chain", "status", dir, "--json")
	var cs struct{ Outcome string }
	if code != 0 || json.Unmarshal([]byte(out), &cs) != nil || cs.Outcome != "stalled" {
		// no job was submitted (outside Slurm): no job state, and the
		// outcome of reservation 1 is only in its record
		t.Logf("status: %s %s", out, errOut)
	}
	// The last reservation ends without the work done: out, exit 1.
	dir = oneReservationChain(t, true)
	t.Setenv("WORK", "100000")
	end := fmt.Sprint(time.Now().Add(2 * time.Second).Unix())
	_, errOut, code = run(t, "", "run", "--chain-dir", dir, "--reservation", "1", "--end", end, "--margin", "0", app)
	if code != 1 || !strings.Contains(errOut, "reservation 1: out") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, _, code = run(t, "", "chain", "status", dir)
	if code != 0 || !strings.Contains(out, "chain toy-1 (toy): out") {
		t.Fatalf("status exit %d:\n%s", code, out)
	}
}

func TestRunBadInput(t *testing.T) {
	dir := oneReservationChain(t, false)
	t.Setenv("CKPT_CHAIN_DIR", "")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--", "true"}, 2, "no chain folder"},
		{[]string{"run", "--chain-dir", dir, "--reservation", "x", "true"}, 2, "--reservation"},
		{[]string{"run", "--chain-dir", dir, "--reservation", "2", "true"}, 1, "the chain has 1"},
		{[]string{"run", "--chain-dir", dir, "--reservation", "1", "--after-checkpoint", "later", "true"}, 2, "--after-checkpoint"},
		{[]string{"run", "--chain-dir", dir, "--reservation", "1", "/nonexistent/app"}, 1, "starting /nonexistent/app"},
		{[]string{"chain", "status", filepath.Join(dir, "nope")}, 2, "no chain"},
		// Outside a reservation (no chain folder) a bad value is named first.
		{[]string{"run", "--reservation", "1", "--scale", "-1", "--", "true"}, 2, "--scale -1"},
		{[]string{"run", "--reservation", "1", "--scale", "NaN", "--", "true"}, 2, "--scale NaN"},
		{[]string{"run", "--reservation", "1", "--end", "abc", "--", "true"}, 2, `--end "abc"`},
		{[]string{"run", "--reservation", "1", "--end", "1e308", "--", "true"}, 2, `--end "1e308"`},
		{[]string{"run", "--reservation", "1", "--margin", "-3s", "--", "true"}, 2, "--margin"},
		{[]string{"run", "--reservation", "1", "--margin", "1e308", "--", "true"}, 2, "--margin 1e308"},
		{[]string{"run", "--reservation", "1", "--start-grace", "1e308", "--", "true"}, 2, "--start-grace 1e308"},
		{[]string{"run", "--reservation", "1", "--after-checkpoint", "maybe", "--", "true"}, 2, "--after-checkpoint"},
		{[]string{"run", "--reservation", "0", "--", "true"}, 2, `--reservation "0"`},
		{[]string{"run", "--reservation", "1", "--stall-limit", "-1", "--", "true"}, 2, "--stall-limit -1"},
	} {
		_, errOut, code := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

const chainSacct = `JobID|JobName|State|ElapsedRaw|ExitCode|Comment
100|seg.r1|FAILED|600|1:0|ckpt:chain=a;r=1;outcome=checkpointed;progress=500;work=560
101|seg.r2|COMPLETED|300|0:0|ckpt:chain=a;r=2;outcome=done;progress=700;work=700
102|seg.r3|CANCELLED by 0|0|0:0|ckpt:chain=a
103|solo|COMPLETED|0|0:0|
104|solo|COMPLETED|420|0:0|
105|solo|TIMEOUT|900|0:15|
107|solo|COMPLETED|380|0:0|
`

func TestChainHistory(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, chainSacct, "chain", "history", "-", "--fit", "exponential", "--json")
	var js struct {
		Complete, Censored int
		Skipped            map[string]int
		Spec               string
		Mean               float64
	}
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	// Oracle: the censored exponential MLE is complete runs / total time:
	// 3 / (700 + 420 + 900 + 380) = 1/800.
	if js.Complete != 3 || js.Censored != 1 || js.Skipped["elapsed time 0"] != 1 || math.Abs(js.Mean-800) > 1e-9 {
		t.Errorf("%+v", js)
	}
	out, _, code = run(t, chainSacct, "chain", "history", "-")
	if code != 0 || !strings.Contains(out, "3 runs complete, 1 censored, 1 skipped (elapsed time 0)") || !strings.Contains(out, "ckpt reserve --dist ") {
		t.Errorf("text: %s", out)
	}
	spec := strings.TrimSpace(out[strings.LastIndex(out, "--dist ")+len("--dist "):])
	if _, errOut, code := run(t, "", "reserve", "--dist", spec, "--ckpt", "30", "--restart", "30", "--no-baselines"); code != 0 {
		t.Errorf("relearned law does not plan: %s", errOut)
	}
	for _, c := range []struct {
		in   string
		args []string
		want string
	}{
		{"\x00\x01garbage", nil, "not sacct --parsable2"},
		{"JobID|State|ElapsedRaw\n1|TIMEOUT|60\n", nil, "every one of the 1 observations is censored"},
		{chainSacct, []string{"--fit", "truncnormal"}, "--fit truncnormal: no censored fit"},
		{chainSacct, []string{"--fit", "beta"}, `--fit "beta"`},
		{chainSacct, []string{"--states", ""}, "--states"},
		{"       JobID    JobName      State ElapsedRaw\n------------ ---------- ---------- ----------\n", nil, "--parsable2"},
	} {
		_, errOut, code := run(t, c.in, append([]string{"chain", "history", "-"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: exit %d, %q", c.in, code, errOut)
		}
	}
}

// With sinfo on PATH, a plan beyond the partition's MaxTime is refused in
// one line before anything is printed; a Slurm that does not answer is a
// warning.
func TestSbatchChecksSlurmLimits(t *testing.T) {
	// Under a 30 min MaxTime the plan is made within it (every request
	// at most 00:30:00); under 10 min no reservation can hold R + C.
	dir := fakeSinfo(t, "echo 'short*|30:00|1000'")
	out, errOut, code := run(t, "", "reserve", "--dist", "uniform:a=1h,b=3h", "--no-baselines", "--sbatch", "job.sh")
	if code != 0 || !strings.Contains(out, "--time=00:30:00") || strings.Contains(out, "--time=00:31") || strings.Contains(out, "--time=01:") {
		t.Errorf("30 min MaxTime: exit %d, %q", code, errOut)
	}
	os.WriteFile(filepath.Join(dir, "sinfo"), []byte("#!/bin/sh\necho 'short*|10:00|1000'\n"), 0o755)
	out, errOut, code = run(t, "", "reserve", "--dist", "uniform:a=1h,b=3h", "--no-baselines", "--sbatch", "job.sh")
	if code != 2 || out != "" || !strings.Contains(errOut, "within the partition's MaxTime, 00:10:00") {
		t.Errorf("10 min MaxTime: exit %d, %q, %q", code, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "sinfo"), []byte("#!/bin/sh\necho 'slurm_load_partitions: Unable to contact slurm controller' >&2; exit 1\n"), 0o755)
	out, errOut, code = run(t, "", "reserve", "--dist", "uniform:a=1h,b=3h", "--no-baselines", "--sbatch", "job.sh")
	if code != 0 || !strings.Contains(errOut, "cannot check the plan against Slurm's limits: sinfo: slurm_load_partitions") || !strings.Contains(out, "submit 1") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// ckpt reserve --profile --sbatch builds its chain as ckpt reserve
// --sbatch does (issue 21): --ahead, --sbatch-arg and the options after --
// reach the chain, every restart carries its time, and the plan is
// checked against the partition's limits.
func TestProfileSbatchIsTheSameChain(t *testing.T) {
	dir := fakeSinfo(t, "echo 'debug*|infinite|100000'")
	args := []string{"reserve", "--profile", "slant", "--sbatch", "job.sh", "--ahead", "1", "--sbatch-arg=--qos=long", "--", "--account=lab"}
	out, errOut, code := run(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	plan := out[strings.Index(out, "<<'CKPT_PLAN'\n")+len("<<'CKPT_PLAN'\n") : strings.Index(out, "\nCKPT_PLAN\n")]
	var ch struct {
		Extra []string `json:"sbatch_args"`
		Ahead int      `json:"ahead"`
		Steps []struct {
			Restart     bool    `json:"restart"`
			RestartTime float64 `json:"restart_time"`
			Mem         string  `json:"mem"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(plan), &ch); err != nil {
		t.Fatalf("%v: %s", err, plan)
	}
	if ch.Ahead != 1 || strings.Join(ch.Extra, " ") != "--qos=long --account=lab" || strings.Count(out, "\nsubmit ") != 2 {
		t.Errorf("ahead %d, sbatch args %q, %d submissions", ch.Ahead, ch.Extra, strings.Count(out, "\nsubmit "))
	}
	restarts := 0
	for k, s := range ch.Steps {
		if s.Restart {
			restarts++
			if !(s.RestartTime > 0) {
				t.Errorf("reservation %d restarts in no time", k+1)
			}
		}
		if s.Mem == "" {
			t.Errorf("reservation %d asks no memory", k+1)
		}
	}
	if restarts == 0 || !strings.Contains(out, "--qos=long --account=lab --export=") {
		t.Errorf("%d restarts; script:\n%s", restarts, out)
	}
	os.WriteFile(filepath.Join(dir, "sinfo"), []byte("#!/bin/sh\necho 'debug*|30:00|100000'\n"), 0o755)
	out, errOut, code = run(t, "", args...)
	if code != 2 || out != "" || !strings.Contains(errOut, "within the partition's MaxTime, 00:30:00") {
		t.Errorf("limits: exit %d, %q, %q", code, out, errOut)
	}
}

// ckpt reserve --history on sacct output learns as ckpt chain history
// does (the same law, the same counts), and its report says how many runs
// were complete, censored and skipped.
func TestReserveHistoryLearnsLikeChainHistory(t *testing.T) {
	t.Parallel()
	hist, _, _ := run(t, chainSacct, "chain", "history", "-", "--fit", "exponential", "--json")
	var h struct{ Spec string }
	json.Unmarshal([]byte(hist), &h)
	out, errOut, code := run(t, chainSacct, "reserve", "--history", "-", "--fit", "exponential", "--ckpt", "30", "--restart", "30", "--json", "--no-baselines")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, out)
	if p.Law.Spec != h.Spec || p.Law.Spec != "exponential:rate=0.00125" || p.Law.Runs != 4 || p.Law.Sacct == nil || p.Law.Sacct.Censored != 1 || p.Law.Sacct.Skipped["elapsed time 0"] != 1 {
		t.Errorf("law %+v, chain history %s", p.Law, h.Spec)
	}
	out, errOut, code = run(t, chainSacct, "reserve", "--history", "-", "--ckpt", "30", "--restart", "30", "--no-baselines")
	if code != 0 || !strings.Contains(out, "from 4 runs in stdin (--fit auto): 3 complete, 1 censored; skipped 1 elapsed time 0") || strings.Contains(out, "KS") || !strings.Contains(out, "truncnormal  skipped: no censored fit") {
		t.Errorf("exit %d, %s%s", code, out, errOut)
	}
	// --states and --censored choose the lone jobs' states; they apply to
	// sacct output only.
	out, _, code = run(t, chainSacct, "reserve", "--history", "-", "--censored", "FAILED", "--states", "COMPLETED,TIMEOUT", "--fit", "empirical", "--json", "--no-baselines")
	if p := decodePlan(t, out); code != 0 || p.Law.Sacct.Censored != 0 || p.Law.Sacct.Complete != 4 {
		t.Errorf("--states: %+v", p.Law)
	}
	if _, errOut, code := run(t, "10\n20\n", "reserve", "--history", "-", "--states", "FAILED"); code != 2 || !strings.Contains(errOut, "--states applies to sacct output; stdin is a plain history") {
		t.Errorf("--states on a plain list: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "reserve", "--censored", "FAILED"); code != 2 || !strings.Contains(errOut, "--censored does not apply without --history") {
		t.Errorf("--censored without history: exit %d, %q", code, errOut)
	}
}

// sbatch options after -- are passed to every reservation, like
// --sbatch-arg; those the chain sets itself (also abbreviated, as sbatch
// accepts), lone values and arguments before -- are refused in one line
// before anything is printed.
func TestSbatchPassThrough(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no sinfo: no limits check
	base := []string{"reserve", "--dist", "uniform:a=1h,b=3h", "--no-baselines", "--sbatch", "job.sh", "--sbatch-arg=--qos=high"}
	out, errOut, code := run(t, "", append(base, "--", "--partition=gpu", "--account=lab", "-Acct2")...)
	if code != 0 || !strings.Contains(out, "--qos=high --partition=gpu --account=lab -Acct2 --export=") {
		t.Fatalf("exit %d, %s%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(base, "--", "--time=10:00"), `"--time=10:00": the chain sets --time itself`},
		{append(base, "--", "--dep=afterok:1"), `"--dep=afterok:1": the chain sets --dependency itself`},
		{append(base, "--", "-J", "x"), `"-J": the chain sets -J itself`},
		{append(base, "--", "--comm=x"), "the chain sets --comment itself"},
		{append(base, "--", "--partition", "gpu"), `"gpu" is not an option: join values to their options`},
		{[]string{"reserve", "--dist", "uniform:a=1h,b=3h", "stray"}, `unexpected argument "stray" (sbatch options go after --)`},
		{[]string{"reserve", "--dist", "uniform:a=1h,b=3h", "--", "--partition=gpu"}, `sbatch options after -- ("--partition=gpu") apply only with --sbatch`},
		{[]string{"reserve", "--profile", "slant", "--sbatch", "j.sh", "--", "--time=1"}, "the chain sets --time itself"},
	} {
		out, errOut, code := run(t, "", c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q%q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// A Slurm that does not answer: chain status and cancel fail in one line
// naming the command and exit 1 (the submission script's case is in
// slurm: nothing submitted, nothing to cancel).
func TestChainUnreachableSlurm(t *testing.T) {
	bin := t.TempDir()
	for _, c := range []string{"squeue", "sacct", "scancel", "scontrol"} {
		os.WriteFile(filepath.Join(bin, c), []byte("#!/bin/sh\necho '"+c+": error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n"), 0o755)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := oneReservationChain(t, false)
	os.WriteFile(filepath.Join(dir, "jobs"), []byte("1 4242\n"), 0o644)
	for _, args := range [][]string{{"chain", "status", dir}, {"chain", "cancel", dir}} {
		out, errOut, code := run(t, "", args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "Unable to contact slurm controller") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q%q", args, code, out, errOut)
		}
	}
}

// Garbage sacct output for ckpt reserve --history: one line naming the
// file and line, exit 2, no plan.
func TestReserveHistoryGarbageSacct(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello|world\nfoo|bar\n", "stdin:1: not sacct --parsable2 output"},
		{"JobID|State|ElapsedRaw\n1|COMPLETED|x\n", `stdin:2: job 1: elapsed time "x"`},
		{"JobID|State|ElapsedRaw\n1|COMPLETED\n", "stdin:2: 2 fields, the header has 3"},
		{"       JobID      State ElapsedRaw\n------------ ---------- ----------\n", "--parsable2"},
		{"JobID|State|ElapsedRaw\n1|CANCELLED|50\n", "stdin: no runs in 1 sacct jobs (skipped: 1 state CANCELLED)"},
		{"\x00\x01\x02\xff", "binary data"},
	} {
		out, errOut, code := run(t, c.in, "reserve", "--history", "-")
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: exit %d, %q%q; want %q", c.in, code, out, errOut, c.want)
		}
	}
}

// A missing history file is a usage error naming the file, not a flag
// that ckpt chain history does not have.
func TestChainHistoryMissingFile(t *testing.T) {
	_, errOut, code := run(t, "", "chain", "history", "/nonexistent/runs.txt")
	if code != 2 || !strings.Contains(errOut, "/nonexistent/runs.txt") || strings.Contains(errOut, "--history") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// --states and --censored name Slurm job states: a typo is a usage error
// naming the flag, not a history whose runs are all skipped.
func TestHistoryStatesAreSlurms(t *testing.T) {
	for _, args := range [][]string{
		{"reserve", "--history", "-", "--states", "BOGUS"},
		{"chain", "history", "-", "--censored", "TIMEOUT,TIMEDOUT"},
	} {
		_, errOut, code := run(t, chainSacct, args...)
		flag := args[len(args)-2]
		if code != 2 || !strings.HasPrefix(errOut, "ckpt: "+flag+" ") || !strings.Contains(errOut, "is not a Slurm job state") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// A state given to both --states and --censored is refused naming both
// (it was read as complete: "5 runs complete, 0 censored").
func TestHistoryStateBothWays(t *testing.T) {
	for _, args := range [][]string{
		{"reserve", "--history", "-", "--states", "COMPLETED,TIMEOUT"},
		{"chain", "history", "-", "--states", "COMPLETED,TIMEOUT", "--censored", "TIMEOUT"},
	} {
		out, errOut, code := run(t, chainSacct, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "ckpt: --censored TIMEOUT is also a complete state (states COMPLETED,TIMEOUT)") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// ckpt chain cancel takes --json, as the README says (issue 22).
func TestChainCancelJSON(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "scancel"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "squeue"), []byte("#!/bin/sh\necho '4242|PENDING'\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := oneReservationChain(t, false)
	os.WriteFile(filepath.Join(dir, "jobs"), []byte("1 4242\n"), 0o644)
	out, errOut, code := run(t, "", "chain", "cancel", dir, "--json")
	var c struct {
		ID   string   `json:"id"`
		Jobs []string `json:"jobs"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.ID != "toy-1" || len(c.Jobs) != 1 || c.Jobs[0] != "4242" {
		t.Errorf("exit %d, %q %q", code, out, errOut)
	}
	if out, _, _ := run(t, "", "chain", "cancel", dir); out != "cancelled 1 job(s) of chain toy-1 [4242]\n" {
		t.Errorf("text %q", out)
	}
}
