package slurm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Root returns the folder that holds the chain folders: $CKPT_CHAINS, else
// ~/.ckpt/chains (what the submission script uses). It must be on a file
// system the compute nodes share.
func Root() (string, error) {
	if r := os.Getenv("CKPT_CHAINS"); r != "" {
		return r, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no $CKPT_CHAINS and no home folder: %v", err)
	}
	return filepath.Join(home, ".ckpt", "chains"), nil
}

// ReservationStatus is one reservation of a chain as Slurm and its runner
// see it.
type ReservationStatus struct {
	Reservation int     `json:"reservation"`
	JobID       string  `json:"job_id,omitempty"`
	State       string  `json:"state,omitempty"`   // Slurm's (squeue, else sacct)
	Outcome     string  `json:"outcome,omitempty"` // the runner's
	Progress    float64 `json:"progress"`
	// Reason is why Slurm keeps a pending reservation waiting (squeue %r:
	// Dependency, Resources, PartitionTimeLimit, …).
	Reason string `json:"reason,omitempty"`
	// Note is the runner's note (why it skipped, what its successor found).
	Note string `json:"note,omitempty"`
}

// ChainStatus is what "ckpt chain status" reports.
type ChainStatus struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Reservations int    `json:"reservations"`
	// Running is the reservation that runs (0: none); Pending those
	// waiting.
	Running int   `json:"running"`
	Pending []int `json:"pending"`
	// Progress is the work saved (seconds).
	Progress float64 `json:"progress"`
	// Outcome: done, out (ran out of reservations), cancelled, running,
	// pending, or stalled (the chain stopped itself, or nothing runs or
	// waits and the work is not done).
	Outcome string `json:"outcome"`
	// Reason says why the chain is stalled or pending: the reason it
	// recorded when it stopped itself, or Slurm's reason for its first
	// pending reservation.
	Reason string              `json:"reason,omitempty"`
	Jobs   []ReservationStatus `json:"jobs"`
	// Warnings name what could not be asked (sacct unavailable, …).
	Warnings []string `json:"warnings,omitempty"`
}

// Status reports the chain in st from its records, squeue and sacct.
func Status(ctx context.Context, cl Cluster, st *State) (ChainStatus, error) {
	cs := ChainStatus{ID: st.ID, Name: st.Chain.JobName(), Reservations: len(st.Chain.Steps), Pending: []int{}}
	var ids []string
	for k := 1; k <= len(st.Chain.Steps); k++ {
		if id, ok := st.Jobs[k]; ok {
			ids = append(ids, id)
		}
	}
	live, err := cl.Queue(ctx, ids)
	if err != nil {
		return cs, err
	}
	final, comments := map[string]string{}, map[string]string{}
	var gone, waiting []string
	for _, id := range ids {
		if state, ok := live[id]; !ok {
			gone = append(gone, id)
		} else if state == "PENDING" {
			waiting = append(waiting, id)
		}
	}
	reasons, err := cl.Reasons(ctx, waiting)
	if err != nil {
		cs.Warnings = append(cs.Warnings, err.Error())
	}
	if recs, err := cl.Accounting(ctx, gone); err != nil {
		cs.Warnings = append(cs.Warnings, err.Error())
	} else {
		for _, r := range recs {
			final[r.JobID] = strings.Fields(r.State + " ?")[0]
			comments[r.JobID] = r.Comment
		}
	}
	for k := 1; k <= len(st.Chain.Steps); k++ {
		id, ok := st.Jobs[k]
		if _, ran := st.Outcomes[k]; !ok && !ran {
			continue
		}
		rs := ReservationStatus{Reservation: k, JobID: id, State: live[id], Reason: reasons[id]}
		if rs.State == "" && id != "" {
			rs.State = final[id]
		}
		o := st.Outcomes[k]
		if o.Outcome == "" {
			o.Reservation, o.JobID = k, id
		}
		o, ok = reconcile(o, rs.State, comments[id], &cs)
		if ok {
			rs.Outcome, rs.Progress, rs.Note = o.Outcome, o.Progress, o.Note
			if o.Outcome != OutcomeSkipped {
				cs.Progress = o.Progress
			}
			if o.Outcome == OutcomeDone || o.Outcome == OutcomeOut {
				cs.Outcome = o.Outcome
			}
		}
		switch rs.State {
		case "RUNNING", "COMPLETING":
			cs.Running = k
		case "PENDING", "CONFIGURING", "REQUEUED":
			cs.Pending = append(cs.Pending, k)
			if cs.Reason == "" && rs.Reason != "" && rs.Reason != "None" {
				cs.Reason = "Slurm: " + rs.Reason
			}
		}
		cs.Jobs = append(cs.Jobs, rs)
	}
	switch why := st.Stopped(); {
	case cs.Outcome != "":
		cs.Reason = ""
	case why != "":
		cs.Outcome, cs.Reason = OutcomeStalled, why
	case cancelled(st):
		cs.Outcome = OutcomeCancelled
	case cs.Running > 0:
		cs.Outcome = "running"
	case len(cs.Pending) > 0:
		cs.Outcome = "pending"
	default:
		cs.Outcome = OutcomeStalled
	}
	if cs.Outcome != "pending" && cs.Outcome != OutcomeStalled {
		cs.Reason = ""
	}
	return cs, nil
}

// reconcile is reservation o's outcome as the folder and Slurm tell it
// together: a record that says running (or the interim timeout or
// cancelled) of a job Slurm has ended is shown as vanished (its successor
// completes the record when it runs), and a reservation without a record
// in the folder takes its outcome and progress from the job comment sacct
// keeps. A disagreement is a warning of cs. ok is false when neither
// knows an outcome.
func reconcile(o Outcome, state, comment string, cs *ChainStatus) (Outcome, bool) {
	ended := state != "" && !liveStates[state]
	if o.Outcome == "" {
		out, ok := chainField(comment, "outcome")
		if !ok {
			return o, false
		}
		p, _ := strconv.ParseFloat(must(chainField(comment, "progress")), 64)
		o.Outcome, o.Progress = out, p
		cs.Warnings = append(cs.Warnings, fmt.Sprintf("reservation %d: no record in the chain folder; Slurm's comment says %s", o.Reservation, out))
		if !ended || out != OutcomeRunning {
			return o, true
		}
	}
	if ended && o.End.IsZero() && (o.Outcome == OutcomeRunning || o.Outcome == OutcomeTimeout || o.Outcome == OutcomeCancelled || o.Outcome == OutcomePreempted) {
		cs.Warnings = append(cs.Warnings, fmt.Sprintf("reservation %d: its runner recorded %s, but Slurm ended job %s (%s) before it recorded how it ended", o.Reservation, o.Outcome, o.JobID, state))
		if o.Outcome == OutcomeRunning {
			o.Outcome = OutcomeVanished
		}
	}
	return o, true
}

func cancelled(st *State) bool {
	_, err := os.Stat(filepath.Join(st.Dir, "cancelled"))
	return !errors.Is(err, fs.ErrNotExist)
}

// Cancel cancels every reservation of the chain that is pending or
// running and records that the chain was cancelled; it returns the job
// IDs cancelled.
func Cancel(ctx context.Context, cl Cluster, st *State) ([]string, error) {
	var ids []string
	for _, id := range st.Jobs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, cmpJobID)
	live, err := cl.Queue(ctx, ids)
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, id := range ids {
		if _, ok := live[id]; ok {
			todo = append(todo, id)
		}
	}
	if err := os.WriteFile(filepath.Join(st.Dir, "cancelled"), []byte(time.Now().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return nil, err
	}
	return todo, cl.Cancel(ctx, todo)
}
