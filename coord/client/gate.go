package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/supervise"
	"github.com/ckpt-hpc/ckpt/usage"
)

// GateConfig configures Gate.
type GateConfig struct {
	Client *Client
	// Job is the registration (ID, Nodes, C, End, …; JobToken is drawn if
	// empty), sent at the first checkpoint signal.
	Job api.RegisterRequest
	// App is the application's command line; Env its environment.
	App            []string
	Env            []string
	Stdout, Stderr io.Writer
	// ProgressFile is the file the app writes when its checkpoint is done
	// (the slurm package's CKPT_PROGRESS_FILE): a new version of it ends
	// the lease.
	ProgressFile string
	// Signals are the signals the gate receives: SIGUSR1 (the checkpoint
	// signal) is forwarded once the coordinator grants the file system,
	// any other at once.
	Signals <-chan os.Signal
	// Poll is how often the progress file is looked at (200 ms if zero).
	Poll time.Duration
	// Log receives one line per coordinator exchange (nil: none).
	Log io.Writer
	// MaxWait bounds the wait for a grant (0: no bound). A checkpoint that
	// waits longer could not finish before the allocation ends, so the
	// gate withdraws its request and forwards the signal anyway: a late
	// checkpoint that contends is better than none.
	MaxWait time.Duration
	// AppSignalled, when not nil, says whether the SIGTERM that ended ctx
	// reached the app too (Slurm signals every process of the job step):
	// the gate then sends it no second one. nil: the gate forwards it.
	// RunGate sets it as slurm.Run decides not to forward Slurm's SIGTERM.
	AppSignalled func() bool
}

// Gate runs the app between the runner of a reservation (`ckpt run
// --coordinator URL`, which signals the gate where it would signal the
// app) and the coordinator: on the checkpoint signal it registers the job
// (once), acquires the file system for a checkpoint, forwards the signal
// when granted and renews the lease (heartbeats at a third of its TTL)
// until the app writes its progress file (the checkpoint is done) or
// exits; it then releases the lease with the measured duration. Other
// signals, and ctx's end (as SIGTERM, unless AppSignalled says the app got
// it already), are forwarded at once; a pending
// request is cancelled. When the job ends the gate tells the coordinator
// (done). A coordinator that cannot be reached does not cost the job its
// checkpoint: the signal is forwarded and the failure logged.
//
// The app runs under package supervise (its own process group, killed
// with the gate), and Gate returns its exit status under supervise's one
// rule: the exit code, or 128 + N when signal N killed it. Complexity:
// O(1) memory; one request per heartbeat.
func Gate(ctx context.Context, cfg GateConfig) (int, error) {
	if len(cfg.App) == 0 {
		return 0, errors.New("gate: no app")
	}
	if t := cfg.Job.JobToken; t != "" && (len(t) < 16 || len(t) > 128) {
		// the coordinator refuses it at the first checkpoint, when the
		// app already runs: refuse it before starting the app
		return 0, usage.Fieldf("--job-token", "%d characters: a job token has 16-128", len(t))
	}
	app, err := supervise.Start(cfg.App, cfg.Env, cfg.Stdout, cfg.Stderr)
	if err != nil {
		return 0, err
	}
	g := &gate{cfg: cfg, app: app, poll: cfg.Poll}
	if g.poll == 0 {
		g.poll = 200 * time.Millisecond
	}
	if g.cfg.Job.JobToken == "" {
		g.cfg.Job.JobToken = NewJobToken()
	}
	var tick <-chan time.Time
	ticker := time.NewTicker(g.poll)
	defer ticker.Stop()
	for {
		if g.lease != nil || g.grant != nil {
			tick = ticker.C
		} else {
			tick = nil
		}
		select {
		case s := <-cfg.Signals:
			if s == syscall.SIGUSR1 {
				g.checkpoint(ctx)
			} else {
				g.abandon(ctx)
				app.Signal(s)
			}
		case gr := <-g.grant:
			g.granted(gr)
		case <-tick:
			g.heartbeat(ctx)
		case <-ctx.Done():
			g.abandon(context.Background())
			if cfg.AppSignalled == nil || !cfg.AppSignalled() {
				app.Signal(syscall.SIGTERM)
			}
			ctx = context.Background()
		case <-app.Done():
			g.finish(context.Background())
			return app.Status()
		}
	}
}

type grantResult struct {
	g   coord.Grant
	err error
}

type gate struct {
	cfg        GateConfig
	app        *supervise.Process
	poll       time.Duration
	registered bool
	request    string
	cancel     context.CancelFunc // of the pending WaitGrant
	grant      chan grantResult   // the pending WaitGrant's answer
	lease      *coord.Grant       // held
	since      time.Time          // when the signal was forwarded
	stamp      string             // progress file version at the signal
	renewed    time.Time
}

func (g *gate) logf(format string, a ...any) {
	if g.cfg.Log != nil {
		fmt.Fprintf(g.cfg.Log, "ckpt coord gate: "+format+"\n", a...)
	}
}

// checkpoint asks for the file system (in the background) and forwards
// the signal when granted; without a coordinator, at once.
func (g *gate) checkpoint(ctx context.Context) {
	if g.grant != nil || g.lease != nil {
		return // already asking or holding
	}
	if !g.registered {
		if _, err := g.cfg.Client.Register(ctx, g.cfg.Job); err != nil {
			g.logf("register %s: %v; checkpointing without the coordinator", g.cfg.Job.ID, err)
			g.forward()
			return
		}
		g.registered = true
	}
	g.request = NewRequestID()
	wctx, cancel := context.WithCancel(ctx)
	if g.cfg.MaxWait > 0 {
		wctx, cancel = context.WithTimeout(ctx, g.cfg.MaxWait)
	}
	g.cancel, g.grant = cancel, make(chan grantResult, 1)
	ch := g.grant
	g.logf("job %s asks for the file system", g.cfg.Job.ID)
	go func() {
		gr, err := g.cfg.Client.WaitGrant(wctx, g.cfg.Job.ID, g.cfg.Job.JobToken, api.AcquireRequest{RequestID: g.request, Kind: arbiter.Checkpoint})
		ch <- grantResult{gr, err}
	}()
}

func (g *gate) granted(r grantResult) {
	g.cancel()
	g.grant, g.cancel = nil, nil
	if errors.Is(r.err, context.DeadlineExceeded) {
		g.logf("no grant within %v; withdrawing and checkpointing without the coordinator", g.cfg.MaxWait)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := g.cfg.Client.Cancel(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, g.request, nil); err != nil {
			g.logf("cancel: %v", err)
		}
		cancel()
	} else if r.err != nil {
		g.logf("acquire: %v; checkpointing without the coordinator", r.err)
	} else {
		g.lease = &r.g
		g.renewed = time.Now()
		g.logf("job %s granted the file system (token %d)", g.cfg.Job.ID, r.g.Token)
	}
	g.forward()
}

func (g *gate) forward() {
	g.since, g.stamp = time.Now(), stamp(g.cfg.ProgressFile)
	g.app.Signal(syscall.SIGUSR1)
}

// heartbeat releases the lease once the progress file changed, else
// renews it at a third of its TTL.
func (g *gate) heartbeat(ctx context.Context) {
	if g.lease == nil {
		return
	}
	if g.cfg.ProgressFile != "" && stamp(g.cfg.ProgressFile) != g.stamp {
		g.release(ctx)
		return
	}
	ttl := time.Duration((g.lease.Expires - float64(g.renewed.UnixNano())/1e9) * float64(time.Second))
	if time.Since(g.renewed) >= ttl/3 {
		if r, err := g.cfg.Client.Renew(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, g.lease.Token, nil); err != nil {
			g.logf("renew: %v", err)
		} else {
			g.lease.Expires, g.renewed = r.Expires, time.Now()
		}
	}
}

func (g *gate) release(ctx context.Context) {
	d := time.Since(g.since).Seconds()
	if _, err := g.cfg.Client.Release(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, g.lease.Token, d, nil); err != nil {
		g.logf("release: %v", err)
	} else {
		g.logf("job %s released the file system after %.1fs", g.cfg.Job.ID, d)
	}
	g.lease = nil
}

// abandon cancels a pending request.
func (g *gate) abandon(ctx context.Context) {
	if g.grant == nil {
		return
	}
	g.cancel()
	g.grant, g.cancel = nil, nil
	if _, err := g.cfg.Client.Cancel(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, g.request, nil); err != nil {
		g.logf("cancel: %v", err)
	}
}

// finish releases what is held and ends the job on the coordinator.
func (g *gate) finish(ctx context.Context) {
	g.abandon(ctx)
	switch {
	case g.lease != nil && g.cfg.ProgressFile != "" && stamp(g.cfg.ProgressFile) == g.stamp:
		// the app ended without its checkpoint: withdraw, count nothing
		if _, err := g.cfg.Client.Cancel(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, g.request, nil); err != nil {
			g.logf("cancel: %v", err)
		}
		g.lease = nil
	case g.lease != nil:
		g.release(ctx)
	}
	if g.registered {
		if _, err := g.cfg.Client.Done(ctx, g.cfg.Job.ID, g.cfg.Job.JobToken, false, nil); err != nil {
			g.logf("done: %v", err)
		}
	}
}

// stamp identifies a version of a file (modification time and size).
func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.ModTime().UnixNano(), fi.Size())
}

// RunGate runs Gate as `ckpt coord gate` does, in this process: it
// catches SIGUSR1, SIGUSR2 and SIGHUP for the app, whose environment is
// this process's and whose progress file is $CKPT_PROGRESS_FILE (cfg's
// Signals, Env, ProgressFile and AppSignalled are set here: the app gets
// SIGTERM once, see stepSignalsApp). An app that exits with a non-zero
// status is an *AppExit naming it, whose status `ckpt coord gate` exits
// with.
func RunGate(ctx context.Context, cfg GateConfig) error {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP)
	defer signal.Stop(sig)
	cfg.Signals, cfg.Env, cfg.ProgressFile = sig, os.Environ(), os.Getenv("CKPT_PROGRESS_FILE")
	cfg.AppSignalled = stepSignalsApp(ctx, slurm.Exec{}, os.Getenv, time.Now)
	code, err := Gate(ctx, cfg)
	if err == nil && code != 0 {
		err = &AppExit{App: cfg.App[0], Status: code}
	}
	return err
}

// AppExit is the end of an app that did not succeed: its exit status
// under supervise's rule (the exit code, or 128 + N when signal N killed
// it, as shells report it). ckpt exits with ExitStatus, so that the gate
// stands for the app in a job script and before the runner.
type AppExit struct {
	App    string
	Status int
}

func (e *AppExit) Error() string {
	if supervise.Signalled(e.Status) {
		s := syscall.Signal(e.Status - 128)
		return fmt.Sprintf("%s killed by signal %d (%v): status %d", e.App, int(s), s, e.Status)
	}
	return fmt.Sprintf("%s exited with status %d", e.App, e.Status)
}

// ExitStatus is the status the process that ran the app exits with.
func (e *AppExit) ExitStatus() int { return e.Status }

// stepSignalsApp says, for the gate that ckpt run starts in place of the
// app, whether a SIGTERM that reaches the gate reached the app too, so
// that the app gets it once, as under the runner alone. Inside a Slurm job
// (SLURM_JOB_ID) whose process tracking signals every process of the step
// (ProctrackType other than proctrack/pgid, asked of cl in the background
// from the start, at most 5 s), Slurm's SIGTERM (time limit, scancel) goes
// to the app as to the gate, and slurm.Run does not forward it either;
// elsewhere the runner's SIGTERM reaches the gate alone and the gate
// forwards it. A scaled reservation (CKPT_SCALE other than 1) is stopped
// by the runner at its scaled end, CKPT_END, with a SIGTERM to the gate
// alone: one from 1 s before that end on is forwarded. nil (always
// forward) outside Slurm.
func stepSignalsApp(ctx context.Context, cl interface {
	Proctrack(context.Context) (string, error)
}, env func(string) string, now func() time.Time) func() bool {
	if env("SLURM_JOB_ID") == "" {
		return nil
	}
	ch := make(chan bool, 1)
	go func() {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		pt, err := cl.Proctrack(c)
		ch <- err == nil && pt != "" && pt != "proctrack/pgid"
	}()
	whole := sync.OnceValue(func() bool { return <-ch })
	return func() bool {
		if s := env("CKPT_SCALE"); s != "" && s != "1" {
			end, err := strconv.ParseFloat(env("CKPT_END"), 64)
			if err != nil || !now().Before(time.Unix(0, int64(end*1e9)).Add(-time.Second)) {
				return false // the runner's stop at the scaled end
			}
		}
		return whole()
	}
}
