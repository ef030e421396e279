package slurm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/ckpt-hpc/ckpt/supervise"
)

// Exit statuses of the runner: what the dependencies read.
const (
	ExitDone = 0 // the work is complete (or was already): the chain stops
	ExitMore = 1 // not complete: the next reservation runs, if any
)

// Clock is the runner's time: real (RealClock) or a test's.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// RunConfig is what "ckpt run" passes to Run.
type RunConfig struct {
	// Dir is the chain folder; Reservation the 1-based index.
	Dir         string
	Reservation int
	// JobID is this job's Slurm ID ("" outside Slurm).
	JobID string
	// End is the job's end time; zero asks the Cluster (EndTime).
	End time.Time
	// Margin is subtracted, with C, from the end time to signal the app.
	Margin time.Duration
	// Continue keeps the app running after its checkpoint.
	Continue bool
	// App is the command line of the application.
	App []string
	// Env is the environment the app inherits (CKPT_* are added).
	Env            []string
	Stdout, Stderr io.Writer
	// Signals delivers the signals the runner receives (SIGTERM from Slurm
	// at the time limit); they are forwarded to the app.
	Signals <-chan os.Signal
	// Scale replaces the chain's time scale (Chain.Scale) when > 0. With a
	// scale other than 1 the reservation lasts Time/Scale seconds from the
	// app's start (or until Slurm's end, if earlier), the app is
	// signalled at end − C/Scale − Margin (not rounded to the second), and
	// the runner stops it at the end: SIGTERM, then SIGKILL after
	// KillAfter. Progress and work stay in the plan's seconds.
	Scale float64
	// Grace replaces StartGrace when > 0.
	Grace time.Duration
	// StallLimit stops the chain after this many reservations in a row
	// without new saved progress (Stalled); 0 never stops it.
	StallLimit int
	// AppSignal is the signal that asks the app to checkpoint (0:
	// SIGUSR1): USR1, USR2, TERM or INT (ParseAppSignal).
	AppSignal syscall.Signal
	// AppGrace bounds how long an app sent a terminating AppSignal (TERM,
	// INT) has to exit: then it is killed with its process group, and
	// never later than the reservation's end; 0: the end.
	AppGrace time.Duration
	// StepTime is the app's step time, added to the signal's lead
	// (frameworks save at a step's end); 0: the step time the chain's
	// apps reported (Measured), else none.
	StepTime time.Duration
}

// DefaultStallLimit is ckpt run's --stall-limit: an app that has saved
// nothing new in two reservations in a row (it crashes at start, ignores
// the signal, or checkpoints slower than planned) stops its chain.
const DefaultStallLimit = 2

// MaxDelay bounds the runner's margin and start grace (seconds): 10⁷ s,
// 115 days, longer than any reservation, and a time.Duration still.
const MaxDelay = 1e7

// KillAfter is how long an app stopped at its scaled end has between
// SIGTERM and SIGKILL.
const KillAfter = time.Second

// StartGrace is the earliest the runner signals an app after starting it,
// so that the app has installed its handler (a signal that comes first
// kills it).
const StartGrace = 2 * time.Second

// signalTime is when the runner sends the checkpoint signal: end − c −
// margin, truncated to the second if asked, not
// before start + grace.
func signalTime(start, end time.Time, c float64, margin, grace time.Duration, truncate bool) time.Time {
	at := end.Add(-time.Duration(c*float64(time.Second)) - margin)
	if truncate {
		at = at.Truncate(time.Second)
	}
	if at.Before(start.Add(grace)) {
		return start.Add(grace)
	}
	return at
}

// scaleOf is the time scale of a run: cfg.Scale, else the chain's.
func scaleOf(cfg RunConfig, c Chain) float64 {
	if cfg.Scale > 0 {
		return cfg.Scale
	}
	return c.TimeScale()
}

// deadline is when the reservation ends: Slurm's end (cfg.End, else the
// Cluster's), and with a scale other than 1, the scaled length from start
// if that comes first. Without either, the planned length in whole
// minutes, as sbatch --time has it.
func deadline(ctx context.Context, cfg RunConfig, cl Cluster, step Step, start time.Time, scale float64) time.Time {
	end := cfg.End
	if end.IsZero() && cfg.JobID != "" {
		var err error
		if end, err = cl.EndTime(ctx, cfg.JobID); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v; assuming the planned length\n", err)
		}
	}
	if scale != 1 {
		scaled := start.Add(time.Duration(step.Time / scale * float64(time.Second)))
		if end.IsZero() || scaled.Before(end) {
			end = scaled
		}
	}
	if end.IsZero() {
		end = start.Add(time.Duration(math.Ceil(step.Time/60) * 60 * float64(time.Second)))
	}
	return end
}

// Classify returns the outcome of a reservation from how the app ended:
// its exit status (supervise's rule: 128 + N when signal N killed it),
// whether it wrote its progress file (a checkpoint),
// whether it was signalled (checkpoint or termination), and whether
// the reservation is the chain's last.
func Classify(exit int, progressed, signalled, last bool) (string, int) {
	switch {
	case exit == 0:
		return OutcomeDone, ExitDone
	case last:
		return OutcomeOut, ExitMore
	case progressed:
		return OutcomeCheckpointed, ExitMore
	case signalled || supervise.Signalled(exit):
		return OutcomeKilled, ExitMore
	}
	return OutcomeFailed, ExitMore
}

// Run runs reservation cfg.Reservation of the chain in cfg.Dir: it tops
// up the rolling window, starts the app (unless a reservation recorded
// that the work is done, or the chain stopped itself) from the point
// startingPoint gives, signals it at signalTime, records the Outcome and
// returns it with the exit status for the dependencies.
//
// Only one reservation's app runs at a time: the runner takes the
// chain's lock first (State.Lock; a later reservation's lock makes it
// refuse), kills what earlier reservations left running on its host, and
// marks the earlier reservations whose runner vanished (markVanished).
// The app writes its own progress file (ReservationProgressFile), which
// the runner commits to the chain's only while it holds the lock
// (State.CommitProgress). After cfg.StallLimit reservations in a row
// without new saved progress (Stalled), the chain stops itself: the rest
// is cancelled and the reason recorded (State.Stop, the job comment).
// Cluster errors while topping up or cancelling are reported on Stderr,
// not fatal: the dependencies are the safety net.
func Run(ctx context.Context, cfg RunConfig, cl Cluster, clock Clock) (Outcome, int, error) {
	st, err := Load(cfg.Dir)
	if err != nil {
		return Outcome{}, ExitMore, err
	}
	k, n := cfg.Reservation, len(st.Chain.Steps)
	if k < 1 || k > n {
		return Outcome{}, ExitMore, fmt.Errorf("reservation %d: the chain has %d", k, n)
	}
	if len(cfg.App) == 0 {
		return Outcome{}, ExitMore, fmt.Errorf("no application to run")
	}
	if !ValidScale(cfg.Scale) {
		return Outcome{}, ExitMore, fmt.Errorf("scale %v: want 0 (the chain's) or a factor in [1e-3, 1e6]", cfg.Scale)
	}
	o := Outcome{Reservation: k, JobID: cfg.JobID, Start: clock.Now()}
	if o, status, done, err := skip(ctx, cfg, cl, st, o); done {
		return o, status, err
	}
	me, err := takeChain(ctx, cfg, cl, st, &o)
	if err != nil {
		return o, ExitMore, err
	}
	defer st.Unlock(me)
	if err := checkApp(ctx, cfg, cl, st, &o); err != nil {
		return o, ExitMore, err
	}
	step, p0, err := startingPoint(st, k)
	if err != nil {
		return o, ExitMore, err
	}
	if step.Restart && !st.Chain.Steps[k-1].Restart {
		o.Note = fmt.Sprintf("ran again (requeued?): restarts from the checkpoint at %.0f s of work", p0)
		fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d %s, not from scratch\n", k, o.Note)
	}
	mine := st.ReservationProgressFile(k)
	if err := seedProgress(st, mine, step.Restart); err != nil {
		return o, ExitMore, err
	}
	before := stamp(mine)
	o.Progress, o.Outcome = p0, OutcomeRunning
	if err := st.WriteOutcome(o); err != nil {
		return o, ExitMore, err
	}
	// A scaled reservation lasts Time/S from here, when the app starts: the
	// runner's own start (lock, strays, records), S times magnified, is not
	// the app's loss. In real time Slurm's end is the end.
	scale, appStart := scaleOf(cfg, st.Chain), clock.Now()
	o.Deadline = deadline(ctx, cfg, cl, step, appStart, scale)
	ses := newSession(cfg, st, step, &o, clock, scale)
	defer ses.close()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	ses.preempted = watchPreemption(watchCtx, cfg, cl)
	restart := 0.0
	if step.Restart {
		restart = step.RestartTime
	}
	workAt := func(t time.Time) float64 { return p0 + max(t.Sub(appStart).Seconds()*scale-restart, 0) }
	onTerm := func() string { // Slurm's SIGTERM: record how it ends before its SIGKILL
		ended := endedBy(context.WithoutCancel(ctx), cfg, cl, clock, &o, ses)
		interim := o
		interim.Outcome, interim.Ended, interim.Work = ended, ended, workAt(clock.Now())
		o.Ended = ended
		setComment(context.WithoutCancel(ctx), cfg, cl, fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=%.0f;work=%.0f", st.ID, k, ended, p0, interim.Work))
		if err := st.WriteOutcome(interim); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
		}
		return ended
	}
	// What talks to Slurm waits until the app has started: the
	// reservation's time is the app's.
	afterStart := func() bool {
		if err := Submit(ctx, cl, st, TopUp(st.Chain, st.Jobs, k)); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: topping up the chain: %v\n", err)
		}
		// If Slurm ends the job before the runner can record the outcome, sacct
		// still tells the work run through: progress + elapsed − restart.
		setComment(ctx, cfg, cl, fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=%.0f;work=%.0f;restart=%.0f", st.ID, k, OutcomeRunning, p0, p0, restart))
		return cfg.JobID != "" && stepSignalled(ctx, cl)
	}
	exit, signalled, err := runApp(ctx, cfg, st, step, &o, clock, scale, ses, afterStart, onTerm)
	if err != nil {
		return o, ExitMore, err
	}
	o.End = clock.Now()
	status := settle(context.WithoutCancel(ctx), cfg, cl, st, me, &o, mine, before, exit, signalled, workAt(o.End))
	err = st.WriteOutcome(o)
	if o.Outcome == OutcomePreempted { // run this reservation again, from its checkpoint
		st.Unlock(me)
		requeueSelf(context.WithoutCancel(ctx), cfg, cl)
	}
	return o, status, err
}

// takeChain makes this runner the chain's only one before its app starts:
// it takes the chain's lock (State.Lock), kills what earlier reservations
// left running on this host, and completes the records of earlier
// reservations whose runner vanished (markVanished). The caller releases
// the lock (State.Unlock of the Holder returned).
func takeChain(ctx context.Context, cfg RunConfig, cl Cluster, st *State, o *Outcome) (Holder, error) {
	k := cfg.Reservation
	host, _ := os.Hostname()
	me := Holder{Reservation: k, JobID: cfg.JobID, Host: host, PID: os.Getpid(), Since: o.Start}
	prev, err := st.Lock(me)
	if err != nil {
		return me, err
	}
	if prev != nil {
		fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d took the chain's lock over from reservation %d (pid %d on %s)\n", k, prev.Reservation, prev.PID, prev.Host)
	}
	if pids := killStrays(st.Dir, k); len(pids) > 0 {
		o.Note = fmt.Sprintf("killed %d process(es) earlier reservations left running: %v", len(pids), pids)
		fmt.Fprintf(cfg.Stderr, "ckpt run: %s\n", o.Note)
	}
	markVanished(ctx, cfg, cl, st, o.Start)
	return me, nil
}

// settle records how reservation o ended, once its app has: the progress
// the app wrote in its file (mine, changed since before) is committed
// (fenced: State.CommitProgress), the outcome classified (Classify) with
// the work run through, the rest of the chain cancelled when the work is
// done, the stall limit applied (stallCheck), and the job comment set. It
// returns the runner's exit status.
func settle(ctx context.Context, cfg RunConfig, cl Cluster, st *State, me Holder, o *Outcome, mine, before string, exit int, signalled bool, work float64) int {
	k, n := cfg.Reservation, len(st.Chain.Steps)
	wrote := stamp(mine) != before && stamp(mine) != ""
	p1, perr := readProgress(mine)
	if perr != nil {
		fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", perr)
		wrote = false
	}
	if wrote {
		if err := st.CommitProgress(me); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
			o.Note, wrote = err.Error(), false
		}
	}
	o.Work, o.Exit = work, exit
	learnReport(st, k, cfg.Stderr)
	var status int
	o.Outcome, status = Classify(exit, wrote, signalled, k == n)
	if o.Ended == OutcomePreempted && o.Outcome != OutcomeDone { // Slurm requeues it: not the app's failure, not the chain's end
		o.Outcome = OutcomePreempted
	}
	switch {
	case o.Outcome == OutcomeDone && wrote:
		o.Progress, o.Work = p1, p1
	case o.Outcome == OutcomeDone:
		o.Progress = o.Work
	case wrote:
		o.Progress, o.Work = p1, max(o.Work, p1)
	}
	if o.Outcome == OutcomeDone {
		cancelLater(ctx, cfg, cl, st)
	}
	comment := fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=%.0f;work=%.0f", st.ID, k, o.Outcome, o.Progress, o.Work)
	if o.Ended != "" {
		comment += ";ended=" + o.Ended
	}
	if why := stallCheck(ctx, cfg, cl, st, *o); why != "" {
		o.Note = why
		comment += ";stopped=" + OutcomeStalled
	}
	setComment(ctx, cfg, cl, comment)
	return status
}

// skip ends a reservation that must not start the app: the work is done
// (an earlier reservation, or this or a later one when Slurm requeued this
// reservation, recorded it), or the chain stopped itself. done is false
// when the app is to run.
func skip(ctx context.Context, cfg RunConfig, cl Cluster, st *State, o Outcome) (Outcome, int, bool, error) {
	k := cfg.Reservation
	saved, _ := readProgress(st.ProgressFile())
	if j := DoneIn(st.Outcomes); j > 0 {
		o.Outcome, o.Progress, o.Work, o.End = OutcomeSkipped, saved, saved, o.Start
		o.Note = fmt.Sprintf("reservation %d completed the work", j)
		cancelLater(ctx, cfg, cl, st)
		if j >= k { // requeued: keep the record of what this reservation did
			fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d ran again (requeued?) after reservation %d completed the work; the app is not started\n", k, j)
			return o, ExitDone, true, nil
		}
		return o, ExitDone, true, st.WriteOutcome(o)
	}
	if n := restartCount(cfg.Env); n > MaxRequeues && st.Stopped() == "" {
		why := fmt.Sprintf("reservation %d was requeued %d times (more than %d): preempted or failed over and over", k, n, MaxRequeues)
		if err := st.Stop(why); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
		}
		setComment(ctx, cfg, cl, fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=%.0f;work=%.0f;stopped=%s", st.ID, k, OutcomeSkipped, saved, saved, OutcomeStalled))
	}
	if why := st.Stopped(); why != "" {
		o.Outcome, o.Progress, o.Work, o.End = OutcomeSkipped, saved, saved, o.Start
		o.Note = "the chain stopped itself: " + why
		cancelLater(ctx, cfg, cl, st)
		fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d: %s; the app is not started\n", k, o.Note)
		return o, ExitDone, true, st.WriteOutcome(o)
	}
	return o, 0, false, nil
}

// seedProgress prepares the reservation's progress file (path): the
// chain's committed progress when the step restarts from it, else no
// file.
func seedProgress(st *State, path string, restart bool) error {
	os.Remove(path)
	if !restart {
		return nil
	}
	b, err := os.ReadFile(st.ProgressFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return writeBytes(path, b)
}

// startingPoint is reservation k's step as it runs and the work it starts
// from: the plan's (the chain's last checkpoint when the step restarts,
// else 0), except that a reservation that runs again (its outcome is on
// record: Slurm requeued it, after a node failure or scontrol requeue)
// restarts from the chain's last committed checkpoint whenever there is one,
// even where the plan starts it from scratch (the first reservation, or
// none before it checkpoints): its own first run, or a later reservation,
// may have committed it. Such a restart reads the checkpoint in the
// chain's restart time (that of its first restarting step).
func startingPoint(st *State, k int) (Step, float64, error) {
	step := st.Chain.Steps[k-1]
	p0, err := readProgress(st.ProgressFile())
	if err != nil {
		return step, 0, err
	}
	if step.Restart {
		return step, p0, nil
	}
	if _, rerun := st.Outcomes[k]; rerun && p0 > 0 {
		step.Restart = true
		for _, s := range st.Chain.Steps {
			if s.Restart {
				step.RestartTime = s.RestartTime
				break
			}
		}
		return step, p0, nil
	}
	return step, 0, nil
}

// checkApp stops the chain when the app cannot be started (not found,
// not executable): every later reservation would fail the same way, so
// nothing more is submitted, what is pending is cancelled, and the
// reservation records "failed".
func checkApp(ctx context.Context, cfg RunConfig, cl Cluster, st *State, o *Outcome) error {
	_, err := exec.LookPath(cfg.App[0])
	if err == nil {
		return nil
	}
	o.Outcome, o.Note, o.End = OutcomeFailed, fmt.Sprintf("cannot start %s", cfg.App[0]), o.Start
	cancelLater(ctx, cfg, cl, st)
	setComment(ctx, cfg, cl, fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=0;work=0", st.ID, cfg.Reservation, OutcomeFailed))
	if werr := st.WriteOutcome(*o); werr != nil {
		return werr
	}
	return fmt.Errorf("starting %s: %v; the rest of the chain is cancelled", cfg.App[0], err)
}

// setComment records c in the job's comment (what sacct keeps), best
// effort.
func setComment(ctx context.Context, cfg RunConfig, cl Cluster, c string) {
	if cfg.JobID == "" {
		return
	}
	if err := cl.SetComment(ctx, cfg.JobID, c); err != nil {
		fmt.Fprintf(cfg.Stderr, "ckpt run: warning: recording the outcome in the job comment: %v\n", err)
	}
}

func cancelLater(ctx context.Context, cfg RunConfig, cl Cluster, st *State) {
	if ids := Later(st.Jobs, cfg.Reservation); len(ids) > 0 {
		if err := cl.Cancel(ctx, ids); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: cancelling the rest of the chain: %v\n", err)
		}
	}
}

// appEnv is the app's environment: cfg.Env plus the protocol's variables.
func appEnv(cfg RunConfig, st *State, step Step, end time.Time, scale float64) []string {
	after := "exit"
	if cfg.Continue {
		after = "continue"
	}
	return append(append([]string{}, cfg.Env...),
		"CKPT_CHAIN="+st.ID, "CKPT_CHAIN_DIR="+st.Dir,
		"CKPT_RESERVATION="+strconv.Itoa(cfg.Reservation), "CKPT_RESERVATIONS="+strconv.Itoa(len(st.Chain.Steps)),
		"CKPT_CHECKPOINT="+strconv.Itoa(b2i(step.Checkpoint)), "CKPT_CHECKPOINT_TIME="+strconv.FormatFloat(step.CheckpointTime, 'f', -1, 64),
		"CKPT_RESTART="+strconv.Itoa(b2i(step.Restart)), "CKPT_MILESTONE="+strconv.FormatFloat(math.Round(step.Milestone), 'f', -1, 64),
		"CKPT_PROGRESS_FILE="+st.ReservationProgressFile(cfg.Reservation), "CKPT_AFTER_CHECKPOINT="+after,
		"CKPT_END="+strconv.FormatFloat(float64(end.UnixNano())/1e9, 'f', 3, 64), "CKPT_SCALE="+strconv.FormatFloat(scale, 'f', -1, 64))
}

// runApp starts the app under the supervisor (package supervise: its own
// process group, killed with the runner) and waits for it, asking for its
// checkpoint (the session's request: the CKPT_CHECKPOINT_NOW file and
// cfg.AppSignal) at the signal time, forwarding cfg.Signals, and, when ctx
// ends (Slurm's SIGTERM: its time limit, a preemption, scancel), calling
// onTerm, which records how the reservation ends, then acting on the
// app's behalf (actOnTerm). An app sent a terminating checkpoint signal
// (TERM, INT) is killed with its group at graceEnd. With a scale other
// than 1 it stops the app at the deadline (SIGTERM, then SIGKILL to its
// group after KillAfter). afterStart runs once the app has started and
// says whether Slurm signals the whole step, the app included. It returns
// the exit status (supervise's rule: 128 + N when signal N killed it) and
// whether a signal was sent.
func runApp(ctx context.Context, cfg RunConfig, st *State, step Step, o *Outcome, clock Clock, scale float64, ses *session, afterStart func() bool, onTerm func() string) (int, bool, error) {
	env := append(appEnv(cfg, st, step, o.Deadline, scale), ses.env...)
	app, err := supervise.Start(cfg.App, env, cfg.Stdout, cfg.Stderr)
	if err != nil {
		return 0, false, err
	}
	var timer, stop, kill, graceKill <-chan time.Time
	if !o.SignalAt.IsZero() {
		timer = clock.After(o.SignalAt.Sub(clock.Now()))
	}
	if scale != 1 {
		stop = clock.After(o.Deadline.Sub(clock.Now()))
	}
	slurmSignals := afterStart()
	signalled := false
	armGrace := func() {
		if terminates(ses.sig) {
			now := clock.Now()
			graceKill = clock.After(graceEnd(now, o.Deadline, cfg.AppGrace).Sub(now))
		}
	}
	for {
		select {
		case <-timer:
			timer, signalled = nil, true
			if ses.req.make("time") { // not twice: Slurm's SIGTERM may have asked first
				app.Signal(ses.sig)
				armGrace()
			}
		case <-stop: // the scaled end: the runner enforces the reservation
			stop, kill, signalled = nil, clock.After(KillAfter), true
			o.Note = "stopped at the scaled end"
			app.Signal(syscall.SIGTERM)
		case <-kill:
			kill = nil
			app.Kill()
		case <-graceKill:
			graceKill = nil
			o.Note = fmt.Sprintf("killed after its grace (%s)", ses.sig)
			app.Kill()
		case s := <-cfg.Signals:
			signalled = true
			app.Signal(s)
		case <-ses.preempted: // seen by polling: Slurm's SIGTERM comes at the grace end
			ses.preempted, signalled, timer = nil, true, nil
			if actOnTerm(app, ses, onTerm(), slurmSignals) {
				armGrace()
			}
		case <-ctx.Done(): // Slurm's time limit, a preemption, scancel, or Ctrl-C
			signalled = true
			ctx = context.Background()
			ses.preempted, timer = nil, nil // the checkpoint is asked for now or was: never twice
			if actOnTerm(app, ses, onTerm(), slurmSignals) {
				armGrace()
			}
		case <-app.Done():
			exit, err := app.Status()
			return exit, signalled, err
		}
	}
}

// actOnTerm acts on Slurm's SIGTERM for the app, once the reservation's
// end is known (ended: timeout, cancelled, preempted). The checkpoint is
// asked for (the CKPT_CHECKPOINT_NOW file) unless it was already. An app
// whose checkpoint signal is TERM gets it from the runner only if Slurm's
// did not reach it (proctrack/pgid) and the runner had not sent it: one
// TERM, one save. A preempted app is sent its checkpoint signal (USR1, …)
// if it has not had it, and Slurm's SIGTERM is not forwarded: the app has
// the preemption's grace time to save.
// Otherwise Slurm's SIGTERM is forwarded as before (proctrack/pgid). It
// reports whether the app was just sent a terminating checkpoint signal
// (or Slurm's TERM is that signal), so that its grace starts.
func actOnTerm(app *supervise.Process, ses *session, ended string, slurmSignals bool) bool {
	first := ses.req.make(ended)
	switch {
	case ses.sig == syscall.SIGTERM:
		if first && !slurmSignals {
			app.Signal(syscall.SIGTERM)
		}
		return first
	case ended == OutcomePreempted: // not forwarded: the app may be saving
		if first {
			app.Signal(ses.sig)
		}
		return first && terminates(ses.sig)
	case !slurmSignals:
		app.Signal(syscall.SIGTERM)
	}
	return false
}

// endSlack: a SIGTERM this close to the deadline is Slurm's time limit.
const endSlack = 5 * time.Second

// stepSignalled reports whether Slurm signals every process of the job
// step, the app included (process tracking by cgroup or by process tree),
// not only the runner's process group (proctrack/pgid: the app, in its own
// group, would not get Slurm's signal). When it cannot tell, it answers
// false: the runner forwards the signal.
func stepSignalled(ctx context.Context, cl Cluster) bool {
	pt, err := cl.Proctrack(ctx)
	return err == nil && pt != "" && pt != "proctrack/pgid"
}

// stamp identifies a version of a file (modification time and size).
func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.ModTime().UnixNano(), fi.Size())
}
