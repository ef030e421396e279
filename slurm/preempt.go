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
// the job's end time then (the preemption's grace end).
type Preempter interface {
	Preempted(ctx context.Context, id string) (at, end time.Time, err error)
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
	ses.env = protocolEnv(st, k, step, ses.req, ses.lead, cfg.Margin, scale, sock)
	return ses
}

func (s *session) close() { s.stop() }
