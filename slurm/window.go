package slurm

import (
	"context"
	"fmt"
	"slices"
)

// The decisions of a chain are pure functions of its State; the actions
// that follow them go through a Cluster.

// TopUp returns the reservations to submit when reservation k starts
// (k = 0: at submission): those of k+1 … k+Ahead (every one when Ahead is
// 0) not submitted yet, in order.
func TopUp(c Chain, jobs map[int]string, k int) []int {
	last := len(c.Steps)
	if c.Ahead > 0 {
		last = min(last, max(k, 1)+c.Ahead)
	}
	var out []int
	for j := k + 1; j <= last; j++ {
		if _, ok := jobs[j]; !ok {
			out = append(out, j)
		}
	}
	return out
}

// Dependencies returns the job IDs of reservations 1 … j−1, which
// reservation j depends on (afternotok on all of them); an error when one
// is unknown, since a dependency list with a gap would let j run after a
// completion.
func Dependencies(jobs map[int]string, j int) ([]string, error) {
	ids := make([]string, 0, j-1)
	for i := 1; i < j; i++ {
		id, ok := jobs[i]
		if !ok {
			return nil, fmt.Errorf("reservation %d was never submitted, so reservation %d cannot depend on it", i, j)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Later returns the job IDs of the reservations after k, in order: what
// the reservation that completes the work cancels.
func Later(jobs map[int]string, k int) []string {
	var ks []int
	for j := range jobs {
		if j > k {
			ks = append(ks, j)
		}
	}
	slices.Sort(ks)
	ids := make([]string, len(ks))
	for i, j := range ks {
		ids[i] = jobs[j]
	}
	return ids
}

// DoneIn reports the earliest reservation of the chain that recorded that
// the work is done (0 if none). Any position counts: an earlier one (the
// dependency guard failed), this one or a later one (Slurm requeued this
// reservation, scontrol requeue works on finished jobs too).
func DoneIn(outcomes map[int]Outcome) int {
	first := 0
	for j, o := range outcomes {
		if o.Outcome == OutcomeDone && (first == 0 || j < first) {
			first = j
		}
	}
	return first
}

// Submit submits reservations ks of the chain in st, in order, each
// depending on all earlier ones, and records their job IDs. It stops at
// the first error.
func Submit(ctx context.Context, cl Cluster, st *State, ks []int) error {
	for _, j := range ks {
		deps, err := Dependencies(st.Jobs, j)
		if err != nil {
			return err
		}
		id, err := cl.Sbatch(ctx, st.Chain.Env(st.ID, st.Dir, j), st.Chain.Args(st.ID, st.Dir, j, deps))
		if err != nil {
			return fmt.Errorf("reservation %d: %w", j, err)
		}
		if err := st.AddJob(j, id); err != nil {
			return err
		}
	}
	return nil
}
