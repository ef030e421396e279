package slurm

import (
	"strconv"
	"time"

	"github.com/ckpt-hpc/ckpt/usage"
)

// JobSettings are the runner's settings as text, as ckpt run takes them
// from its flags or from the variables the submission and Slurm set.
type JobSettings struct {
	// Reservation is the 1-based index (default $CKPT_RESERVATION).
	Reservation string
	// After is what the app does after its checkpoint: exit, or continue
	// until done or the time limit.
	After string
	// End is the job's end time as Unix seconds; "" reads
	// $SLURM_JOB_END_TIME, and when that is unset too Run asks the cluster.
	End string
}

// Complete sets cfg's Reservation, Continue and End from s (getenv reads
// $SLURM_JOB_END_TIME) and checks cfg.Scale. Errors are usage errors; a
// bad Reservation, After, Scale or End names its field (Reservation,
// Continue, Scale, End).
func (s JobSettings) Complete(cfg *RunConfig, getenv func(string) string) error {
	k, err := strconv.Atoi(s.Reservation)
	if err != nil || k < 1 {
		return usage.Fieldf("Reservation", "%q: want an index >= 1", s.Reservation)
	}
	cfg.Reservation = k
	if !ValidScale(cfg.Scale) {
		return usage.Fieldf("Scale", "%v: want a factor in [1e-3, 1e6] (0: the chain's)", cfg.Scale)
	}
	switch s.After {
	case "exit":
	case "continue":
		cfg.Continue = true
	default:
		return usage.Fieldf("Continue", "%q: want exit or continue", s.After)
	}
	end := s.End
	if end == "" {
		end = getenv("SLURM_JOB_END_TIME")
	}
	if end != "" {
		sec, err := strconv.ParseInt(end, 10, 64)
		if err != nil || sec <= 0 {
			return usage.Fieldf("End", "%q: want the end time as Unix seconds", end)
		}
		cfg.End = time.Unix(sec, 0)
	}
	return nil
}
