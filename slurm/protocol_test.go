package slurm

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// envOf reads `env` output into a map.
func envOf(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

func unix(t time.Time) string { return fmt.Sprintf("%.3f", float64(t.UnixNano())/1e9) }

// The app's variables, by hand: the chain measured C = 12 s and a step of
// 3 s, the margin is 5 s, the reservation ends at t0 + 100 s, so the
// signal comes at 100 − 12 − 3 − 5 = 80 s (not at 100 − 10 − 5 = 85 s of
// the plan's C); SCR halts 12 + 3 + 5 = 20 s before the end and
// checkpoints no more often than the reservation's 100 s. On SIGUSR1 the
// CKPT_CHECKPOINT_NOW file exists and says "time"; the socket answers
// time_left and refuses a bad request; the app's report (checkpoint 7.5 s,
// steps 1, 3, 2 s, a bad line) becomes the chain's measurements: the
// latest checkpoint and the median step.
func TestRunExportsTheProtocol(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	c := Chain{Job: "job.sh", Steps: []Step{{Time: 100, Checkpoint: true, CheckpointTime: 10}, {Time: 100, Restart: true}}}
	st := chainDir(t, c, 2)
	writeBytes(st.measuredPath(), []byte(`{"checkpoint_s": 12, "step_s": 3}`))
	tmp := t.TempDir()
	envf, sockf, nowf := filepath.Join(tmp, "env"), filepath.Join(tmp, "sock"), filepath.Join(tmp, "now")
	ask := py + ` -c 'import os,socket; s=socket.socket(socket.AF_UNIX); s.connect(os.environ["CKPT_SOCKET"]); s.sendall(b"time_left\nbogus\n"); f=s.makefile(); print(f.readline().strip()); print(f.readline().strip())'`
	app := bashApp(t, `trap 'cat "$CKPT_CHECKPOINT_NOW" > `+nowf+`; printf "{\"checkpoint_s\": 7.5}\n{\"step_s\": 1}\n{\"step_s\": 3}\nnot json\n{\"step_s\": 2}\n" >> "$CKPT_REPORT_FILE"; echo 50 > "$CKPT_PROGRESS_FILE"; exit 1' USR1
env > `+envf+`; `+ask+` > `+sockf+`; echo ready; while :; do sleep 0.05; done`)
	f, clk := &fakeSlurm{}, &fakeClock{now: t0, ready: make(chan struct{})}
	cfg := runCfg(st, 1, app, "1")
	cfg.Stdout = &readyWriter{ready: clk.ready}
	o, _, err := Run(context.Background(), cfg, f, clk)
	if err != nil {
		t.Fatal(err)
	}
	if len(clk.waits) != 1 || clk.waits[0] != 80*time.Second || o.Outcome != OutcomeCheckpointed || o.Progress != 50 {
		t.Errorf("waited %v, outcome %+v", clk.waits, o)
	}
	env := envOf(t, envf)
	want := map[string]string{
		"CKPT_END_TIME": unix(t0.Add(100 * time.Second)), "CKPT_CHECKPOINT_AT": unix(t0.Add(80 * time.Second)),
		"CKPT_CHECKPOINT_COST": "12", "CKPT_STEP_TIME": "3", "CKPT_CHECKPOINT_NOW": st.CheckpointNowFile(1),
		"CKPT_REPORT_FILE": st.ReportFile(1), "CKPT_SOCKET": st.SocketPath(1), "CKPT_APP_SIGNAL": "USR1",
		"SCR_END_TIME": fmt.Sprint(t0.Unix() + 100), "SCR_HALT_SECONDS": "20", "SCR_CHECKPOINT_SECONDS": "100",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q, want %q", k, env[k], v)
		}
	}
	if b, _ := os.ReadFile(nowf); !strings.HasPrefix(string(b), "time ") {
		t.Errorf("CKPT_CHECKPOINT_NOW held %q at the signal", b)
	}
	b, _ := os.ReadFile(sockf)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "error ") {
		t.Errorf("the socket answered %q", b)
	} else if left, err := time.ParseDuration(lines[0] + "s"); err != nil || left < 0 || left > 100*time.Second {
		t.Errorf("time_left %q", lines[0])
	}
	if m := st.Measured(); m.Checkpoint != 7.5 || m.Step != 2 || m.Reservation != 1 {
		t.Errorf("measured %+v, want checkpoint 7.5, step 2 (the median of 1, 3, 2)", m)
	}
	if _, err := os.Stat(st.SocketPath(1)); err == nil {
		t.Error("the socket outlived the reservation")
	}
}

// The socket's answers, on a clock held still: 30 s before the signal
// time "no 30.000", at it "yes", and "yes" before it once the checkpoint
// was asked for (a preemption); time_left counts to the end, and a
// reservation without a planned checkpoint says "no inf" until asked.
func TestSocketAnswers(t *testing.T) {
	clk := &fakeClock{now: t0}
	r := &request{path: filepath.Join(t.TempDir(), "now"), at: t0.Add(30 * time.Second), end: t0.Add(50 * time.Second), clock: clk, stderr: os.Stderr}
	for _, tc := range []struct{ q, want string }{{"should_checkpoint", "no 30.000"}, {"time_left", "50.000"}, {" should_checkpoint\r", "no 30.000"}} {
		if got := r.answer(tc.q); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.q, got, tc.want)
		}
	}
	clk.now = t0.Add(30 * time.Second)
	if got := r.answer("should_checkpoint"); got != "yes" {
		t.Errorf("at the signal time: %q", got)
	}
	clk.now = t0.Add(60 * time.Second)
	if got := r.answer("time_left"); got != "0.000" {
		t.Errorf("after the end: %q", got)
	}
	never := &request{path: filepath.Join(t.TempDir(), "now"), end: t0.Add(50 * time.Second), clock: &fakeClock{now: t0}, stderr: os.Stderr}
	if got := never.answer("should_checkpoint"); got != "no inf" {
		t.Errorf("no checkpoint planned: %q", got)
	}
	if !never.make("preempted") || never.make("time") {
		t.Error("the request was made twice")
	}
	if got := never.answer("should_checkpoint"); got != "yes" {
		t.Errorf("asked: %q", got)
	}
	if b, _ := os.ReadFile(never.path); !strings.HasPrefix(string(b), "preempted ") {
		t.Errorf("the file says %q", b)
	}
}

// An app whose checkpoint signal is TERM and that ignores it is killed
// with its group at the signal + --app-grace (3 s), or at the
// reservation's end (C + margin = 15 s after the signal) when the grace
// is 0 or longer than that.
func TestAppGraceKills(t *testing.T) {
	for _, tc := range []struct {
		grace, want time.Duration
	}{{3 * time.Second, 3 * time.Second}, {0, 15 * time.Second}, {time.Hour, 15 * time.Second}} {
		st := chainDir(t, Chain{Job: "job.sh", Steps: []Step{{Time: 100, Checkpoint: true, CheckpointTime: 10}, {Time: 100, Restart: true}}}, 2)
		clk := &fakeClock{now: t0, ready: make(chan struct{})}
		cfg := runCfg(st, 1, bashApp(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`), "1")
		cfg.Stdout, cfg.AppSignal, cfg.AppGrace = &readyWriter{ready: clk.ready}, syscall.SIGTERM, tc.grace
		o, _, err := Run(context.Background(), cfg, &fakeSlurm{}, clk)
		if err != nil {
			t.Fatal(err)
		}
		if len(clk.waits) != 2 || clk.waits[0] != 85*time.Second || clk.waits[1] != tc.want || o.Exit != 128+9 || o.Outcome != OutcomeKilled {
			t.Errorf("grace %v: waited %v, outcome %+v", tc.grace, clk.waits, o)
		}
	}
}

// A preemption (Slurm's SIGTERM, scontrol says PreemptTime, the end moves
// to now + GraceTime) asks for the checkpoint at once: the file says
// "preempted", the app gets its signal (USR1) once, Slurm's SIGTERM is not
// forwarded, and the timer, if it comes after, sends nothing more. The
// record says preempted, at the progress saved, and the stall count
// ignores it; the requeued run (the same reservation) restarts from the
// checkpoint and completes.
func TestPreemptionSavesOnce(t *testing.T) {
	t.Parallel()
	for _, checkpoint := range []bool{false, true} {
		c := Chain{Job: "job.sh", Steps: []Step{{Time: 100, Checkpoint: checkpoint, CheckpointTime: 10}, {Time: 100, Restart: true}}}
		st := chainDir(t, c, 2)
		tmp := t.TempDir()
		usr1, from, nowf := filepath.Join(tmp, "usr1"), filepath.Join(tmp, "from"), filepath.Join(tmp, "now")
		app := bashApp(t, `if [ "$CKPT_RESTART" = 1 ]; then cat "$CKPT_PROGRESS_FILE" > `+from+`; exit 0; fi
trap 'echo USR1 >> `+usr1+`; cp "$CKPT_CHECKPOINT_NOW" `+nowf+`; sleep 0.3; echo 40 > "$CKPT_PROGRESS_FILE"; exit 1' USR1
trap 'echo TERM >> `+usr1+`; exit 143' TERM
echo ready; while :; do sleep 0.05; done`)
		clk := &fakeClock{now: t0, ready: make(chan struct{})}
		f := &fakeSlurm{preemptAt: t0.Add(10 * time.Second), preemptEnd: t0.Add(40 * time.Second)}
		cfg := runCfg(st, 1, app, "1")
		ctx, cancel := context.WithCancel(context.Background())
		cfg.Stdout = &readyWriter{ready: clk.ready}
		go func() { <-clk.ready; cancel() }()
		o, _, err := Run(ctx, cfg, f, clk)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(usr1)
		now, _ := os.ReadFile(nowf)
		if string(b) != "USR1\n" || !checkpoint && !strings.HasPrefix(string(now), "preempted ") {
			t.Errorf("checkpoint %v: the app got %q; the file said %q", checkpoint, b, now)
		}
		if o.Outcome != OutcomePreempted || o.Ended != OutcomePreempted || o.Progress != 40 || !o.Deadline.Equal(t0.Add(40*time.Second)) {
			t.Errorf("checkpoint %v: %+v", checkpoint, o)
		}
		if calls := strings.Join(f.calls, "\n"); !strings.Contains(calls, "outcome=preempted;progress=40;") || !strings.HasSuffix(calls, ";ended=preempted\nscontrol requeue 100") {
			t.Errorf("comments:\n%s", calls)
		}
		back, _ := Load(st.Dir)
		if n := Stalled(back, 1); n != 0 {
			t.Errorf("a preemption counted as a stall: %d", n)
		}
		f.preemptAt, f.preemptEnd = time.Time{}, time.Time{}
		o, status, err := Run(context.Background(), runCfg(st, 1, app, "1"), f, &fakeClock{now: t0})
		if got, _ := os.ReadFile(from); err != nil || o.Outcome != OutcomeDone || status != ExitDone || strings.TrimSpace(string(got)) != "40" {
			t.Errorf("requeued: %+v %v, restarted from %q", o, err, got)
		}
	}
}

// Slurm's SIGTERM at the time limit after the timer sent TERM (the app's
// checkpoint signal) under proctrack/pgid: the runner does not send a
// second TERM (the app would save twice).
func TestTermAfterTermTimerNotRepeated(t *testing.T) {
	t.Parallel()
	st := chainDir(t, Chain{Job: "job.sh", Steps: []Step{{Time: 100, Checkpoint: true, CheckpointTime: 10}, {Time: 100, Restart: true}}}, 2)
	terms := filepath.Join(t.TempDir(), "terms")
	app := bashApp(t, `trap 'echo TERM >> `+terms+`; sleep 0.5; echo 30 > "$CKPT_PROGRESS_FILE"; exit 1' TERM; echo ready; while :; do sleep 0.05; done`)
	clk := &fakeClock{now: t0, ready: make(chan struct{}), later: 3 * time.Second}
	cfg := runCfg(st, 1, app, "1")
	cfg.Stdout, cfg.AppSignal = &readyWriter{ready: clk.ready}, syscall.SIGTERM
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-clk.ready; time.Sleep(200 * time.Millisecond); cancel() }()
	o, _, err := Run(ctx, cfg, &fakeSlurm{}, clk)
	cancel()
	b, _ := os.ReadFile(terms)
	if err != nil || string(b) != "TERM\n" || o.Progress != 30 {
		t.Errorf("the app got %q; %+v %v", b, o, err)
	}
}

func TestParseAppSignal(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"": syscall.SIGUSR1, "TERM": syscall.SIGTERM, "sigterm": syscall.SIGTERM, "USR2": syscall.SIGUSR2, "INT": syscall.SIGINT, "SIGUSR1": syscall.SIGUSR1} {
		if got, err := ParseAppSignal(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"KILL", "9", "HUP", "SIG", "TERM ", "STOP"} {
		if _, err := ParseAppSignal(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	st := JobSettings{Reservation: "1", After: "exit", AppSignal: "KILL"}
	if err := st.Complete(&RunConfig{}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), `"KILL"`) {
		t.Errorf("--app-signal KILL: %v", err)
	}
	for _, s := range []JobSettings{{AppGrace: "-1"}, {AppGrace: "soon"}, {StepTime: "-2"}, {StepTime: "1e9"}} {
		s.Reservation, s.After = "1", "exit"
		if err := s.Complete(&RunConfig{}, func(string) string { return "" }); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// graceEnd is never after the end, and is at + grace when that comes
// first.
func TestGraceEndProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		at := t0.Add(time.Duration(rapid.Int64Range(0, 1e12).Draw(t, "at")))
		end := t0.Add(time.Duration(rapid.Int64Range(0, 1e12).Draw(t, "end")))
		grace := time.Duration(rapid.Int64Range(0, 1e12).Draw(t, "grace"))
		g := graceEnd(at, end, grace)
		switch {
		case g.After(end):
			t.Fatalf("%v after the end %v", g, end)
		case grace > 0 && at.Add(grace).Before(end) && !g.Equal(at.Add(grace)):
			t.Fatalf("%v, want at + grace", g)
		case (grace == 0 || !at.Add(grace).Before(end)) && !g.Equal(end):
			t.Fatalf("%v, want the end", g)
		}
	})
}

// A report: the latest checkpoint, the steps in order, bad lines counted
// with the first named.
func TestReadReport(t *testing.T) {
	in := "{\"step_s\": 0.5}\n\n{\"checkpoint_s\": 3}\n{\"checkpoint_s\": -1}\n{\"checkpoint_s\": 4, \"step_s\": 0.25}\n{}\n[1]\n{\"step_s\": 1e300}\n"
	c, steps, skipped, bad := ReadReport(strings.NewReader(in))
	if c != 4 || len(steps) != 2 || steps[0] != 0.5 || steps[1] != 0.25 || skipped != 4 || !strings.HasPrefix(bad, "line 4:") {
		t.Errorf("%v %v %d %q", c, steps, skipped, bad)
	}
	if m := median([]float64{5, 1, 3, 2}); m != 2.5 {
		t.Errorf("median %v", m)
	}
}

// FuzzReadReport: whatever the app writes, the measurements are finite
// seconds in [0, MaxDelay] and every non-empty line is kept or counted.
func FuzzReadReport(f *testing.F) {
	for _, s := range []string{"{\"step_s\": 0.5}\n", "{\"checkpoint_s\": NaN}", "{\"checkpoint_s\": 1e400}\n{", strings.Repeat("x", 70000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, steps, skipped, _ := ReadReport(strings.NewReader(s))
		for _, v := range append(steps, c) {
			if !(v >= 0 && v <= MaxDelay) || math.IsNaN(v) {
				t.Fatalf("measurement %v", v)
			}
		}
		if skipped < 0 || len(steps) > strings.Count(s, "\n")+1 {
			t.Fatalf("%d steps, %d skipped", len(steps), skipped)
		}
	})
}

// Slurm 22.05 does not signal the batch script at a preemption: the
// runner sees it by polling (PreemptPoll) when the cluster preempts, and
// asks for the checkpoint then, once; a cluster without preemption is not
// polled.
func TestPreemptionPolled(t *testing.T) {
	defer func(p time.Duration) { PreemptPoll = p }(PreemptPoll)
	PreemptPoll = 50 * time.Millisecond
	for _, pt := range []string{"preempt/qos", "preempt/none"} {
		st := chainDir(t, Chain{Job: "job.sh", Steps: []Step{{Time: 100}, {Time: 100, Restart: true}}}, 2)
		usr1 := filepath.Join(t.TempDir(), "usr1")
		app := bashApp(t, `trap 'echo USR1 >> `+usr1+`; echo 40 > "$CKPT_PROGRESS_FILE"; exit 1' USR1; for i in $(seq 40); do sleep 0.05; done; exit 0`)
		f := &fakeSlurm{preemptType: pt, preemptAt: t0.Add(10 * time.Second), preemptEnd: t0.Add(40 * time.Second)}
		o, _, err := Run(context.Background(), runCfg(st, 1, app, "1"), f, &fakeClock{now: t0})
		b, _ := os.ReadFile(usr1)
		switch {
		case err != nil:
			t.Fatal(err)
		case pt == "preempt/qos" && (string(b) != "USR1\n" || o.Outcome != OutcomePreempted || o.Progress != 40):
			t.Errorf("%s: the app got %q; %+v", pt, b, o)
		case pt == "preempt/none" && (len(b) != 0 || o.Outcome != OutcomeDone || strings.Contains(strings.Join(f.calls, "\n"), "show job")):
			t.Errorf("%s: the app got %q; %+v; calls %v", pt, b, o, f.calls)
		}
	}
}

// A reservation requeued more than MaxRequeues times does not start its
// app: the chain stops itself, saying why, and the rest is cancelled.
func TestRequeuesBounded(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(3)}, 3)
	ran := filepath.Join(t.TempDir(), "ran")
	cfg := runCfg(st, 1, bashApp(t, `touch `+ran+`; exit 0`), "1")
	cfg.Env = append(cfg.Env, fmt.Sprintf("SLURM_RESTART_COUNT=%d", MaxRequeues+1))
	f := &fakeSlurm{}
	o, _, err := Run(context.Background(), cfg, f, &fakeClock{now: t0})
	if _, serr := os.Stat(ran); err != nil || serr == nil || o.Outcome != OutcomeSkipped || !strings.Contains(st.Stopped(), "requeued 6 times") {
		t.Errorf("%+v %v; stopped %q", o, err, st.Stopped())
	}
	if calls := strings.Join(f.calls, "\n"); !strings.Contains(calls, "scancel") || !strings.Contains(calls, "stopped=stalled") {
		t.Errorf("calls:\n%s", calls)
	}
}

// The lead: the plan's C over the scale, replaced by a measured C; the
// step time given (--step-time) wins over the measured one.
func TestLeadOf(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(2)}, 0)
	step := Step{Time: 600, Checkpoint: true, CheckpointTime: 60}
	if l := leadOf(RunConfig{}, st, step, 2); l != (lead{Cost: 30}) {
		t.Errorf("no measurement: %+v, want C/scale = 30 s", l)
	}
	writeBytes(st.measuredPath(), []byte(`{"checkpoint_s": 12, "step_s": 3}`))
	if l := leadOf(RunConfig{}, st, step, 2); l != (lead{Cost: 12, Step: 3}) {
		t.Errorf("measured: %+v", l)
	}
	if l := leadOf(RunConfig{StepTime: 2 * time.Second}, st, step, 1); l != (lead{Cost: 12, Step: 2}) {
		t.Errorf("--step-time 2s: %+v", l)
	}
	writeBytes(st.measuredPath(), []byte(`{"checkpoint_s": -4}`))
	if l := leadOf(RunConfig{}, st, step, 1); l != (lead{Cost: 60}) {
		t.Errorf("a bad measurement: %+v, want the plan's", l)
	}
}

// FuzzSocketAnswer: whatever an app sends, the socket answers one line
// (no newline inside), "yes", "no …", a number, or "error …".
func FuzzSocketAnswer(f *testing.F) {
	for _, s := range []string{"should_checkpoint", "time_left", "", "\x00\xff", strings.Repeat("q", 300)} {
		f.Add(s)
	}
	r := &request{path: filepath.Join(f.TempDir(), "now"), at: t0.Add(30 * time.Second), end: t0.Add(50 * time.Second), clock: &fakeClock{now: t0}, stderr: os.Stderr}
	f.Fuzz(func(t *testing.T, q string) {
		a := r.answer(q)
		if strings.ContainsAny(a, "\n\r") || a == "" {
			t.Fatalf("%q: answer %q", q, a)
		}
		switch strings.TrimSpace(q) {
		case "should_checkpoint", "time_left":
		default:
			if !strings.HasPrefix(a, "error ") {
				t.Fatalf("%q: answer %q", q, a)
			}
		}
	})
}
