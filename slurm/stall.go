package slurm

import (
	"context"
	"fmt"
)

// Stalled returns how many reservations in a row, ending with reservation
// k, saved no new progress: those that planned a checkpoint and saved
// nothing beyond the progress before them, those whose app failed, and
// those whose runner vanished. A reservation that saved new progress or
// completed the work ends the count; one skipped, one preempted, or one
// that planned no checkpoint and ran to its end, neither counts nor ends
// it. O(k).
func Stalled(st *State, k int) int {
	n := 0
	for j := k; j >= 1; j-- {
		o, ok := st.Outcomes[j]
		if !ok {
			return n
		}
		switch o.Outcome {
		case OutcomeDone:
			return n
		case OutcomeSkipped:
			continue
		}
		if o.Progress > progressBefore(st, j) {
			return n
		}
		if o.Outcome == OutcomePreempted { // Slurm's doing, not the app's
			continue
		}
		if o.Outcome == OutcomeFailed || o.Outcome == OutcomeVanished || st.Chain.Steps[j-1].Checkpoint {
			n++
		}
	}
	return n
}

// progressBefore is the progress saved when reservation j started: that
// recorded by the closest earlier reservation that ran.
func progressBefore(st *State, j int) float64 {
	for i := j - 1; i >= 1; i-- {
		if o, ok := st.Outcomes[i]; ok && o.Outcome != OutcomeSkipped {
			return o.Progress
		}
	}
	return 0
}

// stallCheck stops the chain when reservation o (just ended, not done)
// makes cfg.StallLimit reservations in a row without new saved progress:
// it records why (State.Stop), cancels the later reservations and returns
// the reason ("" when the chain goes on).
func stallCheck(ctx context.Context, cfg RunConfig, cl Cluster, st *State, o Outcome) string {
	if cfg.StallLimit <= 0 || o.Outcome == OutcomeDone || o.Reservation == len(st.Chain.Steps) {
		return ""
	}
	prev, had := st.Outcomes[o.Reservation]
	st.Outcomes[o.Reservation] = o
	n := Stalled(st, o.Reservation)
	if had {
		st.Outcomes[o.Reservation] = prev
	} else {
		delete(st.Outcomes, o.Reservation)
	}
	if n < cfg.StallLimit {
		return ""
	}
	why := fmt.Sprintf("stalled: %d reservations in a row saved no new progress (the last: %s, exit %d, progress %.0f s); the app crashes, ignores the checkpoint signal or checkpoints slower than planned; the rest of the chain is cancelled", n, o.Outcome, o.Exit, o.Progress)
	if err := st.Stop(why); err != nil {
		fmt.Fprintf(cfg.Stderr, "ckpt run: warning: %v\n", err)
	}
	fmt.Fprintf(cfg.Stderr, "ckpt run: %s\n", why)
	cancelLater(ctx, cfg, cl, st)
	return why
}
