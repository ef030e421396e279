package slurm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	// pending, or stalled (nothing runs or waits, the work is not done).
	Outcome string              `json:"outcome"`
	Jobs    []ReservationStatus `json:"jobs"`
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
	final := map[string]string{}
	var gone []string
	for _, id := range ids {
		if _, ok := live[id]; !ok {
			gone = append(gone, id)
		}
	}
	if recs, err := cl.Accounting(ctx, gone); err != nil {
		cs.Warnings = append(cs.Warnings, err.Error())
	} else {
		for _, r := range recs {
			final[r.JobID] = strings.Fields(r.State + " ?")[0]
		}
	}
	for k := 1; k <= len(st.Chain.Steps); k++ {
		id, ok := st.Jobs[k]
		if _, ran := st.Outcomes[k]; !ok && !ran {
			continue
		}
		rs := ReservationStatus{Reservation: k, JobID: id, State: live[id]}
		if rs.State == "" && id != "" {
			rs.State = final[id]
		}
		if o, ok := st.Outcomes[k]; ok {
			rs.Outcome, rs.Progress = o.Outcome, o.Progress
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
		}
		cs.Jobs = append(cs.Jobs, rs)
	}
	switch {
	case cs.Outcome != "":
	case cancelled(st):
		cs.Outcome = OutcomeCancelled
	case cs.Running > 0:
		cs.Outcome = "running"
	case len(cs.Pending) > 0:
		cs.Outcome = "pending"
	default:
		cs.Outcome = "stalled"
	}
	return cs, nil
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
