package slurm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// markVanished completes the records of the earlier reservations whose
// runner ended without recording how (outcome running, or the interim
// timeout/cancelled it writes at Slurm's SIGTERM, without an end): killed
// with -9, its node lost, or killed by Slurm after its KillWait. Run calls
// it holding the chain's lock, so those runners are gone. Each record
// gets Slurm's state and end (sacct) and the progress the app wrote in
// its own file before the reservation ended, which is committed when it
// is newer than the chain's; a running record becomes vanished. The job
// comment is updated too (best effort: Slurm may have forgotten the job).
func markVanished(ctx context.Context, cfg RunConfig, cl Cluster, st *State, now time.Time) {
	for j := 1; j < cfg.Reservation; j++ {
		o, ok := st.Outcomes[j]
		if !ok || !o.End.IsZero() || o.Outcome == OutcomeSkipped {
			continue
		}
		slurmState, end := "unknown", time.Time{}
		if o.JobID != "" {
			if recs, err := cl.Accounting(ctx, []string{o.JobID}); err == nil && len(recs) == 1 {
				slurmState, end = strings.Fields(recs[0].State + " ?")[0], recs[0].End
			}
		}
		if o.Outcome == OutcomeRunning {
			o.Outcome = OutcomeVanished
		}
		o.Note = fmt.Sprintf("the runner ended without recording it (Slurm: %s); completed by reservation %d", slurmState, cfg.Reservation)
		o.End = end
		if end.IsZero() {
			o.End = now
			o.Note += "; end unknown, taken as reservation " + fmt.Sprint(cfg.Reservation) + "'s start"
		}
		if p, ok := adoptProgress(st, j, end); ok {
			o.Progress, o.Work = p, max(o.Work, p)
			o.Outcome = OutcomeCheckpointed
			o.Note += fmt.Sprintf("; its app had saved %.0f s of work, committed", p)
		}
		if err := st.WriteOutcome(o); err != nil {
			fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
			continue
		}
		fmt.Fprintf(cfg.Stderr, "ckpt run: reservation %d: %s: %s\n", j, o.Outcome, o.Note)
		if o.JobID != "" {
			c := fmt.Sprintf("ckpt:chain=%s;r=%d;outcome=%s;progress=%.0f;work=%.0f", st.ID, j, o.Outcome, o.Progress, o.Work)
			if o.Ended != "" {
				c += ";ended=" + o.Ended
			}
			if err := cl.SetComment(ctx, o.JobID, c); err != nil {
				fmt.Fprintf(cfg.Stderr, "ckpt run: warning: recording reservation %d's outcome in job %s's comment: %v\n", j, o.JobID, err)
			}
		}
	}
}

// adoptProgress commits the progress reservation j's app wrote in its own
// file when it is more than the chain's and was written by the end of
// the reservation (end, when known, plus Slurm's kill delay): a late
// writer's file is ignored.
func adoptProgress(st *State, j int, end time.Time) (float64, bool) {
	path := st.ReservationProgressFile(j)
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	if !end.IsZero() && fi.ModTime().After(end.Add(lateWrite)) {
		return 0, false
	}
	p, err := readProgress(path)
	saved, err2 := readProgress(st.ProgressFile())
	if err != nil || err2 != nil || !(p > saved) {
		return 0, false
	}
	b, err := os.ReadFile(path)
	if err != nil || writeBytes(st.ProgressFile(), b) != nil {
		return 0, false
	}
	return p, true
}

// lateWrite bounds how long after Slurm's end of a reservation its app's
// progress is still its own: Slurm's kill delay (KillWait, 30 s by
// default) and a clock skew.
const lateWrite = 35 * time.Second
