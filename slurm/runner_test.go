package slurm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeClock starts at T0; After(d) records d, moves the clock by d and
// fires once the app is ready (it printed its first line, after installing
// its handlers), or after a second of real time.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
	ready chan struct{}
	// later delays the timers after the first by this much real time.
	later time.Duration
}

// readyWriter closes ready at the first write.
type readyWriter struct {
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	os.Stderr.Write(p)
	w.once.Do(func() { close(w.ready) })
	return len(p), nil
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	var delay time.Duration
	if len(c.waits) > 1 {
		delay = c.later
	}
	go func() {
		if c.ready != nil {
			<-c.ready
		} else {
			time.Sleep(time.Second)
		}
		time.Sleep(delay)
		ch <- c.now
	}()
	return ch
}

func exampleApp(t *testing.T, name string) []string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".py") {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3")
		}
		return []string{py, p}
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	return []string{p}
}

// chainDir writes a chain of n reservations whose first `submitted` are
// recorded as jobs 1001, 1002, …
func chainDir(t *testing.T, c Chain, submitted int) *State {
	st := newState(t, c)
	b, _ := c.Script() // validates
	_ = b
	if err := writePlan(st); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= submitted; k++ {
		st.AddJob(k, string(rune('0'+k))+"00")
	}
	return st
}

func runCfg(st *State, k int, app []string, work string) RunConfig {
	return RunConfig{Dir: st.Dir, Reservation: k, JobID: st.Jobs[k], End: t0.Add(100 * time.Second), Margin: 5 * time.Second,
		App: app, Env: append(os.Environ(), "WORK="+work, "SPEED=20"), Stdout: os.Stderr, Stderr: os.Stderr}
}

// A reservation that ends with a checkpoint: the runner tops up the window,
// waits end − C − margin = 100 − 10 − 5 = 85 s, signals the app (bash and
// Python examples), which saves its progress and exits 1; the runner
// records "checkpointed" at that progress and exits 1 so that the next
// reservation runs.
func TestRunCheckpoints(t *testing.T) {
	t.Parallel()
	for _, app := range []string{"count.sh", "count.py"} {
		t.Run(app, func(t *testing.T) {
			c := Chain{Job: "job.sh", Name: "toy", Ahead: 2, Steps: []Step{
				{Time: 100, Checkpoint: true, CheckpointTime: 10, Milestone: 90},
				{Time: 100, Restart: true, RestartTime: 5, Milestone: 185}, {Time: 100, Restart: true, Milestone: 280}}}
			st := chainDir(t, c, 1)
			f, clk := &fakeSlurm{}, &fakeClock{now: t0, ready: make(chan struct{})}
			cfg := runCfg(st, 1, exampleApp(t, app), "100000")
			cfg.Stdout = &readyWriter{ready: clk.ready}
			o, status, err := Run(context.Background(), cfg, f, clk)
			if err != nil {
				t.Fatal(err)
			}
			if len(clk.waits) != 1 || clk.waits[0] != 85*time.Second {
				t.Errorf("waited %v, want [85s]", clk.waits)
			}
			p, _ := readProgress(st.ProgressFile())
			if o.Outcome != OutcomeCheckpointed || status != ExitMore || stamp(st.ProgressFile()) == "" || o.Progress != p || o.Exit != 1 {
				t.Errorf("outcome %+v, status %d, progress file %v", o, status, p)
			}
			back, _ := Load(st.Dir)
			if back.Outcomes[1].Outcome != OutcomeCheckpointed || len(back.Jobs) != 3 {
				t.Errorf("recorded %+v, jobs %v", back.Outcomes, back.Jobs)
			}
			calls := strings.Join(f.calls, "\n")
			for _, want := range []string{"--job-name=toy.r2", "--job-name=toy.r3", "--dependency=afternotok:100:1001 ", "scontrol update JobId=100 Comment=ckpt:chain=c1;r=1;outcome=checkpointed"} {
				if !strings.Contains(calls, want) {
					t.Errorf("calls lack %q:\n%s", want, calls)
				}
			}
		})
	}
}

// A reservation in which the work completes: exit 0, the rest of the chain
// cancelled, the final progress recorded.
func TestRunDone(t *testing.T) {
	t.Parallel()
	c := Chain{Job: "job.sh", Ahead: 0, Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 10}, {Time: 60, Restart: true}, {Time: 60, Restart: true}}}
	st := chainDir(t, c, 3)
	os.WriteFile(st.ProgressFile(), []byte("40\n"), 0o644)
	f := &fakeSlurm{}
	o, status, err := Run(context.Background(), runCfg(st, 2, exampleApp(t, "count.sh"), "45"), f, &fakeClock{now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if o.Outcome != OutcomeDone || status != ExitDone || o.Progress != 45 {
		t.Errorf("outcome %+v, status %d", o, status)
	}
	if !strings.Contains(strings.Join(f.calls, "\n"), "scancel 300") {
		t.Errorf("rest not cancelled: %v", f.calls)
	}
}

// The last reservation ends (Slurm's SIGTERM at the time limit) without
// the work done: "out", exit 1.
func TestRunOutOfReservations(t *testing.T) {
	t.Parallel()
	c := Chain{Job: "job.sh", Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 10}, {Time: 60, Restart: true}}}
	st := chainDir(t, c, 2)
	sig := make(chan os.Signal, 1)
	cfg := runCfg(st, 2, exampleApp(t, "count.sh"), "100000")
	cfg.Signals = sig
	go func() { time.Sleep(300 * time.Millisecond); sig <- syscall.SIGTERM }()
	o, status, err := Run(context.Background(), cfg, &fakeSlurm{}, &fakeClock{now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if o.Outcome != OutcomeOut || status != ExitMore {
		t.Errorf("outcome %+v, status %d", o, status)
	}
}

// A reservation after the one that completed does not start the app.
func TestRunSkipsAfterDone(t *testing.T) {
	c := Chain{Job: "job.sh", Steps: steps(3)}
	st := chainDir(t, c, 3)
	st.WriteOutcome(Outcome{Reservation: 1, Outcome: OutcomeDone})
	f := &fakeSlurm{}
	o, status, err := Run(context.Background(), runCfg(st, 2, []string{"/nonexistent/app"}, "1"), f, &fakeClock{now: t0})
	if err != nil || o.Outcome != OutcomeSkipped || status != ExitDone {
		t.Fatalf("%+v %d %v", o, status, err)
	}
}

// With the real clock the signal arrives within a fraction of a second of
// end − C − margin.
func TestRunSignalTimingRealClock(t *testing.T) {
	t.Parallel()
	c := Chain{Job: "job.sh", Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 1}, {Time: 60, Restart: true}}}
	st := chainDir(t, c, 1)
	cfg := runCfg(st, 1, exampleApp(t, "count.sh"), "100000")
	start := time.Now()
	cfg.End = start.Add(5 * time.Second)
	cfg.Margin = time.Second
	o, _, err := Run(context.Background(), cfg, &fakeSlurm{}, RealClock{})
	if err != nil {
		t.Fatal(err)
	}
	want := signalTimeDefault(start, cfg.End, 1, time.Second)
	if d := o.SignalAt.Sub(want); d < -time.Second || d > time.Second {
		t.Errorf("signal at %v, want %v", o.SignalAt, want)
	}
	// end − C − margin is 3 s after the start, truncated to the second.
	if d := want.Sub(start); d < 2*time.Second || d > 3*time.Second {
		t.Errorf("signal due %v after the start, want (2 s, 3 s]", d)
	}
	if lag := o.End.Sub(want); lag < 0 || lag > 1500*time.Millisecond || o.Outcome != OutcomeCheckpointed {
		t.Errorf("app ended %v after the signal was due, as %s; want within a tick, checkpointed", lag, o.Outcome)
	}
}

func TestSignalTime(t *testing.T) {
	start := t0
	end := t0.Add(120 * time.Second)
	if got := signalTimeDefault(start, end, 10, 5*time.Second); !got.Equal(t0.Add(105 * time.Second)) {
		t.Errorf("lead: %v", got.Sub(t0))
	}
	// C = 10.5 s: to the second, never later than end − C − margin.
	if got := signalTimeDefault(start, end, 10.5, 5*time.Second); got.Sub(t0) != 104*time.Second {
		t.Errorf("fractional C: %v", got.Sub(t0))
	}
	// A checkpoint that no longer fits: as soon as the app can listen.
	if got := signalTimeDefault(start, t0.Add(5*time.Second), 10, 5*time.Second); !got.Equal(start.Add(StartGrace)) {
		t.Errorf("short: %v", got.Sub(t0))
	}
}

// A reservation that Slurm requeued (scontrol requeue works on finished
// jobs too) after it, or a later one, completed the work does not start
// the app again and keeps its record.
func TestRunRequeuedAfterDone(t *testing.T) {
	for _, c := range []struct{ done, rerun int }{{1, 1}, {2, 1}, {3, 3}} {
		st := chainDir(t, Chain{Job: "job.sh", Steps: steps(3)}, 3)
		for k := 1; k <= c.done; k++ {
			o := Outcome{Reservation: k, Outcome: OutcomeCheckpointed, Progress: float64(100 * k)}
			if k == c.done {
				o.Outcome = OutcomeDone
			}
			st.WriteOutcome(o)
		}
		var stderr strings.Builder
		cfg := runCfg(st, c.rerun, []string{"/nonexistent/app"}, "1")
		cfg.Stderr = &stderr
		o, status, err := Run(context.Background(), cfg, &fakeSlurm{}, &fakeClock{now: t0})
		if err != nil || o.Outcome != OutcomeSkipped || status != ExitDone || !strings.Contains(stderr.String(), "requeued") {
			t.Fatalf("%+v: %+v %d %v %q", c, o, status, err, stderr.String())
		}
		back, err := Load(st.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec := back.Outcomes[c.rerun]; rec.Outcome == OutcomeSkipped || rec.Progress != float64(100*c.rerun) {
			t.Errorf("%+v: the record of reservation %d became %+v", c, c.rerun, rec)
		}
	}
}

// An app that cannot be started stops the chain at once: nothing more is
// submitted, what is pending is cancelled, the reservation records failed
// and the error says so in one line.
func TestRunMissingAppStopsTheChain(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Ahead: 1, Steps: steps(4)}, 2)
	f := &fakeSlurm{}
	o, status, err := Run(context.Background(), runCfg(st, 1, []string{"/nonexistent/app"}, "1"), f, &fakeClock{now: t0})
	if err == nil || !strings.Contains(err.Error(), "starting /nonexistent/app") || !strings.Contains(err.Error(), "the rest of the chain is cancelled") || status == ExitDone || o.Outcome != OutcomeFailed {
		t.Fatalf("%+v %d %v", o, status, err)
	}
	calls := strings.Join(f.calls, "\n")
	if strings.Contains(calls, "sbatch") || !strings.Contains(calls, "scancel 200") {
		t.Errorf("calls:\n%s", calls)
	}
	back, _ := Load(st.Dir)
	if back.Outcomes[1].Outcome != OutcomeFailed {
		t.Errorf("record %+v", back.Outcomes[1])
	}
}

// A scaled chain (Scale 30): reservation 1 of 90 s lasts 3 s of real
// time; the checkpoint signal comes at end − C/30 − margin = 3 − 1 − 0.2 s
// after the start, not rounded to the second, and the runner records the
// work in the plan's seconds.
func TestRunScaledSignal(t *testing.T) {
	t.Parallel()
	c := Chain{Job: "job.sh", Scale: 30, Steps: []Step{{Time: 90, Checkpoint: true, CheckpointTime: 30, Milestone: 60}, {Time: 60, Restart: true, RestartTime: 10, Milestone: 110}}}
	st := chainDir(t, c, 1)
	cfg := runCfg(st, 1, exampleApp(t, "count.sh"), "100000")
	cfg.End, cfg.Margin, cfg.Grace = time.Time{}, 200*time.Millisecond, 100*time.Millisecond
	o, _, err := Run(context.Background(), cfg, &fakeSlurm{}, RealClock{})
	if err != nil {
		t.Fatal(err)
	}
	// The scaled reservation starts with the app, just after the runner's
	// own start (its lock and records).
	if d := o.Deadline.Sub(o.Start); d < 3*time.Second || d > 3*time.Second+200*time.Millisecond {
		t.Errorf("scaled length %v, want 3 s (90 s / 30) from the app's start", d)
	}
	if d := o.Deadline.Sub(o.SignalAt); d != 1200*time.Millisecond {
		t.Errorf("signal %v before the end, want 1.2 s", d)
	}
	ran := o.End.Sub(o.Deadline.Add(-3 * time.Second)).Seconds() // from the app's start: the runner's own, on a loaded machine, is not work
	if o.Outcome != OutcomeCheckpointed || o.Work < 30*ran-1 || o.Work > 30*ran+1 {
		t.Errorf("%s, work %v after %v s of real time; want checkpointed, 30 s of work per second", o.Outcome, o.Work, ran)
	}
}

// The runner enforces the scaled end: an app that ignores SIGTERM is
// killed KillAfter later, long before Slurm's whole-minute limit.
func TestRunScaledEndEnforced(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	c := Chain{Job: "job.sh", Scale: 60, Steps: []Step{{Time: 60, Milestone: 60}}}
	st := chainDir(t, c, 1)
	cfg := runCfg(st, 1, []string{"bash", "-c", `trap "" TERM; while :; do sleep 0.1; done`}, "0")
	cfg.End = time.Now().Add(time.Minute) // Slurm's end: later than the scaled one
	start := time.Now()
	o, status, err := Run(context.Background(), cfg, &fakeSlurm{}, RealClock{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < time.Second+KillAfter || took > time.Second+KillAfter+time.Second {
		t.Errorf("the app ran %v; want the scaled 1 s + KillAfter", took)
	}
	if o.Outcome != OutcomeOut || status != ExitMore || !strings.Contains(o.Note, "scaled end") {
		t.Errorf("outcome %s (%q), status %d", o.Outcome, o.Note, status)
	}
}

// The app runs under package supervise: killed at the scaled end, its
// exit status is 128 + SIGKILL (the one rule, as the gate's), and what it
// started dies with it.
func TestRunKillsTheAppsGroup(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	c := Chain{Job: "job.sh", Scale: 60, Steps: []Step{{Time: 60, Milestone: 60}}}
	st := chainDir(t, c, 1)
	pidFile := filepath.Join(t.TempDir(), "helper")
	cfg := runCfg(st, 1, []string{"bash", "-c", `sleep 60 & echo $! > ` + pidFile + `; trap "" TERM; while :; do sleep 0.1; done`}, "0")
	cfg.End = time.Now().Add(time.Minute)
	o, _, err := Run(context.Background(), cfg, &fakeSlurm{}, RealClock{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Exit != 128+int(syscall.SIGKILL) || o.Outcome != OutcomeOut {
		t.Errorf("exit %d, outcome %s; want %d, %s", o.Exit, o.Outcome, 128+int(syscall.SIGKILL), OutcomeOut)
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("helper pid %q", b)
	}
	gone := false
	for end := time.Now().Add(5 * time.Second); !gone && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		gone = syscall.Kill(pid, 0) == syscall.ESRCH || err == nil && strings.Contains(string(stat), ") Z ")
	}
	if !gone {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the app's helper %d outlived the reservation", pid)
	}
}

// captureReady records what the app prints and closes ready at the first
// write (the app has installed its handlers).
type captureReady struct {
	mu  sync.Mutex
	buf strings.Builder
	readyWriter
}

func (w *captureReady) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	return w.readyWriter.Write(p)
}

// A reservation that Slurm requeues mid-run after a checkpoint was
// committed (here reservation 1, which the plan starts from scratch, had
// saved 90 s of work when its node failed) restarts the app from that
// checkpoint: CKPT_RESTART=1, the example app resumes at 90 (its own
// report, an oracle outside the runner), and the new checkpoint is beyond
// it. Without a record of an earlier run (no requeue) the plan stands: the
// app starts from 0 whatever the progress file says.
func TestRunRequeuedMidRunRestartsFromCheckpoint(t *testing.T) {
	t.Parallel()
	for _, rerun := range []bool{true, false} {
		c := Chain{Job: "job.sh", Name: "toy", Ahead: 0, Steps: []Step{
			{Time: 100, Checkpoint: true, CheckpointTime: 10, Milestone: 90},
			{Time: 100, Restart: true, RestartTime: 5, Milestone: 185}}}
		st := chainDir(t, c, 2)
		if rerun { // the first run: started, checkpointed at 90, then the node failed
			if err := st.WriteOutcome(Outcome{Reservation: 1, Outcome: OutcomeRunning, Start: t0.Add(-time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(st.ProgressFile(), []byte("90\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		clk := &fakeClock{now: t0, ready: make(chan struct{})}
		out := &captureReady{readyWriter: readyWriter{ready: clk.ready}}
		var stderr strings.Builder
		cfg := runCfg(st, 1, exampleApp(t, "count.sh"), "100000")
		cfg.Stdout, cfg.Stderr = out, &stderr
		o, status, err := Run(context.Background(), cfg, &fakeSlurm{}, clk)
		if err != nil || o.Outcome != OutcomeCheckpointed || status != ExitMore {
			t.Fatalf("rerun %v: %+v, status %d, %v", rerun, o, status, err)
		}
		out.mu.Lock()
		said := out.buf.String()
		out.mu.Unlock()
		if rerun {
			if !strings.Contains(said, "resumes at 90 of") || !(o.Progress >= 90) || !strings.Contains(o.Note, "requeued") || !strings.Contains(stderr.String(), "restarts from the checkpoint at 90") {
				t.Errorf("requeued: app said %q, outcome %+v, stderr %q; want a restart from 90", said, o, stderr.String())
			}
			// Work run through: 90 + 85 s elapsed − R = 5 s, the chain's
			// restart time (the app saved less: it counts in real time).
			if o.Work != 90+85-5 {
				t.Errorf("requeued: work %v, want 170", o.Work)
			}
		} else if !strings.Contains(said, "resumes at 0 of") || o.Progress >= 90 || o.Note != "" {
			t.Errorf("first run: app said %q, outcome %+v; want a start from 0", said, o)
		}
	}
}

// signalTimeDefault is the runner's signal time with its default grace:
// end − C − margin, to the second, but not before start + StartGrace (when
// the checkpoint no longer fits, the app is told as soon as it can listen).
func signalTimeDefault(start, end time.Time, c float64, margin time.Duration) time.Time {
	return signalTime(start, end, c, margin, StartGrace, true)
}

// writePlan writes the chain's plan (chain.json) in its folder.
func writePlan(st *State) error {
	b, err := json.MarshalIndent(st.Chain, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(st.Dir, "chain.json"), append(b, '\n'), 0o644)
}
