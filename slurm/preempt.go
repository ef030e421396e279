package slurm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Preempter is what a Cluster may also tell (Exec does): whether Slurm
// has selected job id for preemption (the time it did; zero when not) and
// the job's end time then (the preemption's grace end), and the cluster's
// PreemptType (preempt/none: no preemption).
type Preempter interface {
	Preempted(ctx context.Context, id string) (at, end time.Time, err error)
	PreemptType(ctx context.Context) (string, error)
	// Requeue puts job id back in the queue (scontrol requeue): the same
	// job ID runs again, with SLURM_RESTART_COUNT one higher.
	Requeue(ctx context.Context, id string) error
}

// Requeue runs scontrol requeue.
func (Exec) Requeue(ctx context.Context, id string) error {
	_, err := run(ctx, "scontrol", "requeue", id)
	return err
}

// requeueSelf ends a preempted reservation whose app has saved and ended:
// it requeues its own job at once, as Slurm would at the grace end
// (PreemptMode=REQUEUE), without holding the node for the rest of the
// grace. A job that ends on its own during the grace is not requeued by
// Slurm 22.05 (it ends FAILED, and the chain would go on with the next
// reservation). It reports whether the requeue was asked; when it fails
// the chain goes on with the next reservation.
func requeueSelf(ctx context.Context, cfg RunConfig, cl Cluster) bool {
	p, ok := cl.(Preempter)
	if !ok || cfg.JobID == "" {
		return false
	}
	if err := p.Requeue(ctx, cfg.JobID); err != nil {
		fmt.Fprintf(cfg.Stderr, "ckpt run: warning: requeueing the preempted job: %v; the next reservation goes on\n", err)
		return false
	}
	return true
}

// PreemptType reads PreemptType from scontrol show config.
func (Exec) PreemptType(ctx context.Context) (string, error) {
	out, err := run(ctx, "scontrol", "show", "config")
	if err != nil {
		return "", err
	}
	return configValue(out, "PreemptType")
}

// PreemptPoll is how often a runner whose cluster preempts asks Slurm
// whether its job was selected for preemption. Slurm 22.05 sends its
// preemption SIGTERM to the job's steps, not to the batch script (the
// runner), unless the job asked for a --signal=B:… and the cluster sets
// preempt_send_user_signal; it sends the batch script SIGTERM only at the
// grace end, when it is too late to save. Polling needs neither: with a
// GraceTime of 30 s or more, 5 s leaves the app most of it.
var PreemptPoll = 5 * time.Second

// watchPreemption returns a channel closed when Slurm selects job
// cfg.JobID for preemption, polled every PreemptPoll (real time) until ctx
// ends; nil (never) outside Slurm or when the cluster does not preempt.
func watchPreemption(ctx context.Context, cfg RunConfig, cl Cluster) <-chan struct{} {
	p, ok := cl.(Preempter)
	if !ok || cfg.JobID == "" {
		return nil
	}
	if t, err := p.PreemptType(ctx); err != nil || t == "" || t == "preempt/none" {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		tk := time.NewTicker(PreemptPoll)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
			if at, _, err := p.Preempted(ctx, cfg.JobID); err == nil && !at.IsZero() {
				close(ch)
				return
			}
		}
	}()
	return ch
}

// MaxRequeues bounds how often one reservation runs again (Slurm's
// SLURM_RESTART_COUNT: preemptions, node failures, scontrol requeue):
// beyond it the runner does not start the app and stops the chain. Slurm
// 23.02's MaxBatchRequeue (default 5) bounds it on the cluster's side;
// 22.05 has no bound.
const MaxRequeues = 5

// restartCount is SLURM_RESTART_COUNT in env (0 when unset or bad).
func restartCount(env []string) int {
	n := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "SLURM_RESTART_COUNT="); ok {
			fmt.Sscan(v, &n)
		}
	}
	return n
}

// Preempted runs scontrol show job and reads PreemptTime and EndTime.
func (Exec) Preempted(ctx context.Context, id string) (time.Time, time.Time, error) {
	out, err := run(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	return parsePreempted(out)
}

// parsePreempted reads scontrol show job's PreemptTime (None, or when the
// job was selected for preemption) and EndTime.
func parsePreempted(out string) (time.Time, time.Time, error) {
	end, err := parseEndTime(out)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "PreemptTime="); ok {
			if v == "None" || v == "Unknown" {
				return time.Time{}, end, nil
			}
			at, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
			if err != nil {
				return time.Time{}, end, fmt.Errorf("scontrol: PreemptTime %q is not a time", v)
			}
			return at, end, nil
		}
	}
	return time.Time{}, end, nil
}

// endedBy is how Slurm's SIGTERM ends reservation o: preempted when the
// cluster says Slurm selected the job for preemption (the deadline, and
// the socket's end, become the preemption's grace end), else timeout
// within endSlack of the deadline, else cancelled.
func endedBy(ctx context.Context, cfg RunConfig, cl Cluster, clock Clock, o *Outcome, ses *session) string {
	ended := OutcomeCancelled
	if !clock.Now().Before(o.Deadline.Add(-endSlack)) {
		ended = OutcomeTimeout
	}
	p, ok := cl.(Preempter)
	if !ok || cfg.JobID == "" {
		return ended
	}
	at, end, err := p.Preempted(ctx, cfg.JobID)
	switch {
	case err != nil:
		fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
	case !at.IsZero():
		ended = OutcomePreempted
		if !end.IsZero() && end.Before(o.Deadline) {
			o.Deadline = end
			ses.req.setEnd(end)
		}
		fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d preempted at %s, ends %s: the app is asked to checkpoint\n", cfg.Reservation, at.Format(time.RFC3339), o.Deadline.Format(time.RFC3339))
	}
	return ended
}

// session is a reservation's side of the app protocol: the checkpoint
// request (file and socket), the app's checkpoint signal, the lead and
// the variables the app gets.
type session struct {
	req  *request
	sig  syscall.Signal
	lead lead
	env  []string
	stop func()
	// preempted is closed when Slurm selects the job for preemption
	// (watchPreemption); nil when it cannot.
	preempted <-chan struct{}
}

// newSession prepares reservation o's protocol: the lead (leadOf), the
// signal time (o.SignalAt, when the step ends with a checkpoint), a fresh
// CKPT_CHECKPOINT_NOW and CKPT_REPORT_FILE (a requeued run must not read
// its previous run's), and the socket.
func newSession(cfg RunConfig, st *State, step Step, o *Outcome, clock Clock, scale float64) *session {
	k := cfg.Reservation
	ses := &session{sig: cfg.AppSignal, lead: leadOf(cfg, st, step, scale)}
	if ses.sig == 0 {
		ses.sig = syscall.SIGUSR1
	}
	ses.req = &request{path: st.CheckpointNowFile(k), end: o.Deadline, clock: clock, stderr: cfg.Stderr}
	if step.Checkpoint {
		grace := cfg.Grace
		if grace <= 0 {
			grace = StartGrace
		}
		o.SignalAt = signalTime(o.Start, o.Deadline, ses.lead.Cost+ses.lead.Step, cfg.Margin, grace, scale == 1)
		ses.req.at = o.SignalAt
	}
	os.Remove(ses.req.path)
	os.Remove(st.ReportFile(k))
	var sock string
	sock, ses.stop = ses.req.serve(st.SocketPath(k))
	ses.env = protocolEnv(st, k, step, ses.req, ses.lead, ses.sig, cfg.Margin, scale, sock)
	return ses
}

func (s *session) close() { s.stop() }
