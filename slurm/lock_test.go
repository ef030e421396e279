package slurm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bashApp is a bash application (skips without bash).
func bashApp(t *testing.T, script string) []string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	return []string{"bash", "-c", script}
}

// A later reservation holds the chain's lock: a late runner (an older
// reservation requeued, or started after its successor) refuses and its
// app never starts. A live runner of the same reservation on this host
// refuses too.
func TestRunRefusesWhileALaterReservationHolds(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(4)}, 4)
	host, _ := os.Hostname()
	marker := filepath.Join(t.TempDir(), "ran")
	app := bashApp(t, "touch "+marker)
	for _, h := range []Holder{{Reservation: 3, Host: "elsewhere", PID: 1}, {Reservation: 2, Host: host, PID: 1}} {
		if err := writeBytes(st.lockPath(), []byte(`{"reservation":`+strconv.Itoa(h.Reservation)+`,"host":"`+h.Host+`","pid":1}`)); err != nil {
			t.Fatal(err)
		}
		_, status, err := Run(context.Background(), runCfg(st, 2, app, "1"), &fakeSlurm{}, &fakeClock{now: t0})
		if err == nil || status != ExitMore {
			t.Errorf("holder %+v: reservation 2 ran (status %d)", h, status)
		}
		if h.Reservation == 3 && !errors.Is(err, ErrSuperseded) {
			t.Errorf("holder %+v: %v, want ErrSuperseded", h, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("holder %+v: the app started", h)
		}
	}
}

// The runner of reservation 1 was killed with -9 (its lock names a dead
// process, its record says running, its app's helper lives on): reservation
// 2 takes the lock over, kills the helper, marks reservation 1 vanished with
// Slurm's state, in the folder and in job 100's comment, runs, and
// releases the lock.
func TestRunTakesOverFromAVanishedRunner(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(3)}, 3)
	host, _ := os.Hostname()
	dead := exec.Command("true")
	dead.Run()
	st.WriteOutcome(Outcome{Reservation: 1, JobID: "100", Outcome: OutcomeRunning, Start: t0.Add(-time.Hour)})
	writeBytes(st.lockPath(), []byte(`{"reservation":1,"host":"`+host+`","pid":`+strconv.Itoa(dead.Process.Pid)+`}`))
	stray := exec.Command("sleep", "60")
	stray.Env = append(os.Environ(), "CKPT_CHAIN_DIR="+st.Dir, "CKPT_RESERVATION=1", "CKPT_PROGRESS_FILE="+st.ReservationProgressFile(1))
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan error, 1)
	go func() { reaped <- stray.Wait() }()
	defer stray.Process.Kill()
	f := &fakeSlurm{jobs: []*fakeJob{{id: "100", state: "CANCELLED", end: t0.Add(-time.Minute)}}}
	o, _, err := Run(context.Background(), runCfg(st, 2, bashApp(t, "exit 0"), "1"), f, &fakeClock{now: t0})
	if err != nil || o.Outcome != OutcomeDone {
		t.Fatalf("reservation 2: %+v, %v", o, err)
	}
	select {
	case <-reaped:
	case <-time.After(5 * time.Second):
		t.Errorf("the stray of reservation 1 (pid %d) still runs", stray.Process.Pid)
	}
	back, _ := Load(st.Dir)
	r1 := back.Outcomes[1]
	if r1.Outcome != OutcomeVanished || !r1.End.Equal(t0.Add(-time.Minute)) || !strings.Contains(r1.Note, "CANCELLED") {
		t.Errorf("reservation 1 recorded %+v", r1)
	}
	if c := f.job("100").comment; !strings.Contains(c, "outcome=vanished") {
		t.Errorf("job 100's comment %q", c)
	}
	if _, ok, _ := back.Holder(); ok {
		t.Error("the lock outlived reservation 2")
	}
}

// Progress is fenced by reservation index: reservation 1's app saves 100
// (committed), reservation 2's saves 150; then reservation 1's app, had it
// outlived its runner, writes 240 where it was told to write (its
// CKPT_PROGRESS_FILE). The chain's progress stays 150 and reservation 3
// restarts from 150. (Before the fence, reservation 1's file was the
// chain's: the late write replaced the newer checkpoint.)
func TestLateWriterCannotOverwriteNewerProgress(t *testing.T) {
	c := Chain{Job: "job.sh", Steps: []Step{{Time: 60}, {Time: 60, Restart: true}, {Time: 60, Restart: true}}}
	st := chainDir(t, c, 3)
	tmp := t.TempDir()
	for k, p := range []string{1: "100", 2: "150"} {
		if k == 0 {
			continue
		}
		script := `echo "$CKPT_PROGRESS_FILE" > ` + filepath.Join(tmp, "path"+strconv.Itoa(k)) + `; echo ` + p + ` > "$CKPT_PROGRESS_FILE"; exit 1`
		o, _, err := Run(context.Background(), runCfg(st, k, bashApp(t, script), "1"), &fakeSlurm{}, &fakeClock{now: t0})
		if err != nil || strconv.FormatFloat(o.Progress, 'f', -1, 64) != p {
			t.Fatalf("reservation %d: %+v, %v", k, o, err)
		}
	}
	path1, _ := os.ReadFile(filepath.Join(tmp, "path1"))
	os.WriteFile(strings.TrimSpace(string(path1)), []byte("240\n"), 0o644) // the late writer
	got := filepath.Join(tmp, "start3")
	script := `cat "$CKPT_PROGRESS_FILE" > ` + got + `; exit 0`
	if _, _, err := Run(context.Background(), runCfg(st, 3, bashApp(t, script), "1"), &fakeSlurm{}, &fakeClock{now: t0}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); strings.TrimSpace(string(b)) != "150" {
		t.Errorf("reservation 3 restarted from %q, want 150", b)
	}
	// A runner that no longer holds the lock commits nothing.
	writeBytes(st.ReservationProgressFile(1), []byte("999\n"))
	writeBytes(st.lockPath(), []byte(`{"reservation":3,"host":"x","pid":1}`))
	if err := st.CommitProgress(Holder{Reservation: 1, Host: "x", PID: 1}); err == nil {
		t.Error("reservation 1 committed while reservation 3 holds the chain")
	}
	if p, _ := readProgress(st.ProgressFile()); p == 999 {
		t.Error("the fenced write went through")
	}
}

// An app that never saves progress stops its chain after StallLimit
// reservations: it crashes at start (failed), or ignores the checkpoint
// signal until Slurm's SIGTERM (killed). Reservation 2 records the reason,
// cancels reservations 3–5 and says "stopped=stalled" in its job comment;
// a reservation 3 that runs anyway does not start the app. A plan without
// checkpoints (reservations that run from scratch by design) does not
// stall on runs that reach their end.
func TestChainStopsAfterStalledReservations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		app     string
		steps   []Step
		stalled bool
	}{
		{"crash", "exit 3", steps(5), true},
		{"ignores the signal", `trap "" USR1; echo ready; while :; do sleep 0.05; done`, steps(5), true},
		{"no checkpoint planned", `trap "exit 143" TERM; echo ready; while :; do sleep 0.05; done`, []Step{{Time: 60}, {Time: 60}, {Time: 60}, {Time: 60}, {Time: 60}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for i := range tc.steps {
				tc.steps[i].Checkpoint = tc.stalled && tc.steps[i].Checkpoint
				if tc.stalled {
					tc.steps[i].Checkpoint = true
				}
			}
			st := chainDir(t, Chain{Job: "job.sh", Ahead: 0, Steps: tc.steps}, 5)
			f := &fakeSlurm{}
			for k := 1; k <= 3; k++ {
				cfg := runCfg(st, k, bashApp(t, tc.app), "1")
				cfg.StallLimit = DefaultStallLimit
				ctx, cancel := context.WithCancel(context.Background())
				if tc.app != "exit 3" {
					go func() { time.Sleep(1500 * time.Millisecond); cancel() }() // Slurm's SIGTERM at the limit
				}
				clk := &fakeClock{now: t0} // a crash: the app exits before the signal (1 s)
				if tc.app != "exit 3" {
					clk.ready = make(chan struct{})
					cfg.Stdout = &readyWriter{ready: clk.ready}
				}
				o, _, err := Run(ctx, cfg, f, clk)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case tc.name == "crash" && k < 3 && (o.Outcome != OutcomeFailed || o.Exit != 3):
					t.Errorf("reservation %d: %+v, want failed, exit 3", k, o)
				case tc.stalled && k == 2 && (!strings.Contains(o.Note, "stalled: 2 reservations") || !strings.Contains(strings.Join(f.calls, "\n"), "scancel 300 400 500")):
					t.Errorf("reservation 2: %+v, calls %v", o, f.calls)
				case tc.stalled && k == 3 && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Note, "stopped itself")):
					t.Errorf("reservation 3 ran: %+v", o)
				case !tc.stalled && (o.Outcome == OutcomeSkipped || st.Stopped() != ""):
					t.Errorf("reservation %d: %+v, stopped %q", k, o, st.Stopped())
				}
			}
			calls := strings.Join(f.calls, "\n")
			if tc.stalled && !strings.Contains(calls, "Comment=ckpt:chain=c1;r=2;outcome="+map[bool]string{true: "failed", false: "killed"}[tc.name == "crash"]+";progress=0;") || tc.stalled != strings.Contains(calls, ";stopped=stalled") {
				t.Errorf("comments:\n%s", calls)
			}
		})
	}
}

// Slurm ends the reservation (its SIGTERM reaches the runner and, under
// proctrack/linuxproc or cgroup, the app too): the app gets SIGTERM once,
// not a second one forwarded by the runner; the runner records how the
// reservation ends (timeout near the deadline, cancelled before it) in
// the job comment before the app has ended. Under proctrack/pgid the
// runner forwards it (Slurm's does not reach the app's group).
func TestSlurmTermReachesTheAppOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		proctrack, ended string
		deadline         time.Duration
		slurmSignalsApp  bool
	}{
		{"proctrack/linuxproc", OutcomeTimeout, 2 * time.Second, true},
		{"proctrack/cgroup", OutcomeCancelled, 100 * time.Second, true},
		{"proctrack/pgid", OutcomeTimeout, 2 * time.Second, false},
	} {
		t.Run(tc.proctrack, func(t *testing.T) {
			t.Parallel()
			st := chainDir(t, Chain{Job: "job.sh", Steps: []Step{{Time: 60}, {Time: 60}}}, 2)
			tmp := t.TempDir()
			pidf, terms := filepath.Join(tmp, "pid"), filepath.Join(tmp, "terms")
			app := bashApp(t, `trap 'echo TERM >> `+terms+`; sleep 0.5; exit 143' TERM; echo $$ > `+pidf+`; while :; do sleep 0.05; done`)
			cfg := runCfg(st, 1, app, "1")
			cfg.End = t0.Add(tc.deadline)
			f := &fakeSlurm{proctrack: tc.proctrack}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for time.Sleep(50 * time.Millisecond); ; time.Sleep(50 * time.Millisecond) {
					b, _ := os.ReadFile(pidf)
					if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						time.Sleep(200 * time.Millisecond)
						if tc.slurmSignalsApp {
							syscall.Kill(pid, syscall.SIGTERM) // Slurm's, to every process of the step
						}
						cancel() // and the runner's
						return
					}
				}
			}()
			o, _, err := Run(ctx, cfg, f, &fakeClock{now: t0})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(terms)
			if n := strings.Count(string(b), "TERM"); n != 1 {
				t.Errorf("the app got SIGTERM %d times", n)
			}
			calls := strings.Join(f.calls, "\n")
			if !strings.Contains(calls, "outcome="+tc.ended+";") || o.Ended != tc.ended || !strings.Contains(calls, ";ended="+tc.ended) {
				t.Errorf("ended %q, calls:\n%s", o.Ended, calls)
			}
		})
	}
}

// A reservation that finds the work done says what is saved: its record
// carries the chain's progress (31 s), not 0.
func TestSkippedReservationKeepsTheProgress(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(3)}, 3)
	st.WriteOutcome(Outcome{Reservation: 1, Outcome: OutcomeDone, Progress: 31})
	os.WriteFile(st.ProgressFile(), []byte("31\n"), 0o644)
	o, _, err := Run(context.Background(), runCfg(st, 2, []string{"/nonexistent"}, "1"), &fakeSlurm{}, &fakeClock{now: t0})
	if err != nil || o.Outcome != OutcomeSkipped || o.Progress != 31 {
		t.Errorf("%+v, %v", o, err)
	}
}

// A runner killed after its app saved (Slurm's SIGKILL after KillWait, or
// kill -9): reservation 1's record says timeout (written at SIGTERM), its
// app's file holds 77 written before Slurm's end. Reservation 2 commits
// it, records reservation 1 checkpointed at 77, and restarts from 77; a
// file written after Slurm's end (a late writer) is not adopted.
func TestSuccessorAdoptsProgressSavedBeforeTheEnd(t *testing.T) {
	for _, late := range []bool{false, true} {
		c := Chain{Job: "job.sh", Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 5}, {Time: 60, Restart: true}}}
		st := chainDir(t, c, 2)
		st.WriteOutcome(Outcome{Reservation: 1, JobID: "100", Outcome: OutcomeTimeout, Ended: OutcomeTimeout, Start: t0})
		writeBytes(st.ReservationProgressFile(1), []byte("77\n"))
		end := time.Now().Add(time.Second)
		if late {
			end = time.Now().Add(-time.Hour)
		}
		f := &fakeSlurm{jobs: []*fakeJob{{id: "100", state: "TIMEOUT", end: end}}}
		got := filepath.Join(t.TempDir(), "from")
		o, _, err := Run(context.Background(), runCfg(st, 2, bashApp(t, `cat "$CKPT_PROGRESS_FILE" > `+got+` 2>/dev/null; exit 0`), "1"), f, &fakeClock{now: t0})
		if err != nil || o.Outcome != OutcomeDone {
			t.Fatalf("late %v: %+v %v", late, o, err)
		}
		back, _ := Load(st.Dir)
		b, _ := os.ReadFile(got)
		r1 := back.Outcomes[1]
		switch {
		case !late && (strings.TrimSpace(string(b)) != "77" || r1.Outcome != OutcomeCheckpointed || r1.Progress != 77):
			t.Errorf("restarted from %q; reservation 1: %+v", b, r1)
		case late && (len(b) != 0 || r1.Outcome != OutcomeTimeout || r1.End.IsZero()):
			t.Errorf("late writer: restarted from %q; reservation 1: %+v", b, r1)
		}
	}
}

// A commit waits for a takeover in progress (the fence): reservation 3
// takes the lock over while reservation 1's commit is on its way; the
// commit, checked after the takeover, refuses.
func TestCommitWaitsForTakeover(t *testing.T) {
	st := chainDir(t, Chain{Job: "job.sh", Steps: steps(3)}, 3)
	me := Holder{Reservation: 1, Host: "h", PID: 1}
	writeBytes(st.lockPath(), []byte(`{"reservation":1,"host":"h","pid":1}`))
	writeBytes(st.ReservationProgressFile(1), []byte("240\n"))
	inside, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go st.withFence(func() error {
		close(inside)
		<-release
		return writeBytes(st.lockPath(), []byte(`{"reservation":3,"host":"h","pid":3}`))
	})
	<-inside
	go func() { done <- st.CommitProgress(me) }()
	select {
	case err := <-done:
		t.Fatalf("the commit did not wait for the takeover: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("reservation 1 committed after reservation 3 took the chain over")
	}
	if p, _ := readProgress(st.ProgressFile()); p == 240 {
		t.Error("the late progress reached the chain")
	}
}
