package slurm

import (
	"strconv"
	"time"

	"github.com/ckpt-hpc/ckpt/units"
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
	// Margin (>= 0) and Grace (> 0) are durations (units.ParseSeconds), at
	// most MaxDelay: RunConfig's Margin and Grace.
	Margin, Grace string
	// AppSignal names the app's checkpoint signal (ParseAppSignal; ""
	// USR1); AppGrace (>= 0, "" 0: the reservation's end) and StepTime
	// (>= 0, "" 0: measured) are durations: RunConfig's AppSignal,
	// AppGrace and StepTime.
	AppSignal, AppGrace, StepTime string
}

// Complete sets cfg's Reservation, Continue, End, Margin, Grace,
// AppSignal, AppGrace and StepTime from s (getenv reads
// $SLURM_JOB_END_TIME) and checks cfg.Scale and cfg.StallLimit. Errors
// are usage errors naming the field (Reservation, Continue, Scale, End,
// Margin, Grace, StallLimit, AppSignal, AppGrace, StepTime).
func (s JobSettings) Complete(cfg *RunConfig, getenv func(string) string) error {
	k, err := strconv.Atoi(s.Reservation)
	if err != nil || k < 1 {
		return usage.Fieldf("Reservation", "%q: want an index >= 1", s.Reservation)
	}
	cfg.Reservation = k
	if cfg.StallLimit < 0 {
		return usage.Fieldf("StallLimit", "%d: want a number of reservations >= 0 (0: never stop)", cfg.StallLimit)
	}
	var err2 error
	if cfg.Margin, err2 = delay("Margin", s.Margin, 0); err2 != nil {
		return err2
	}
	if cfg.Grace, err2 = delay("Grace", s.Grace, StartGrace); err2 != nil {
		return err2
	}
	if cfg.AppGrace, err2 = delay("AppGrace", s.AppGrace, 0); err2 != nil {
		return err2
	}
	if cfg.StepTime, err2 = delay("StepTime", s.StepTime, 0); err2 != nil {
		return err2
	}
	if cfg.AppSignal, err2 = ParseAppSignal(s.AppSignal); err2 != nil {
		return usage.Fieldf("AppSignal", "%v", err2)
	}
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

// delay reads a duration of the runner (field: Grace, > 0, or another,
// >= 0), at most MaxDelay; "" is def.
func delay(field, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	sec, err := units.ParseSeconds(v)
	switch {
	case err != nil:
		return 0, usage.Fieldf(field, "%v", err)
	case sec < 0 || field == "Grace" && sec == 0:
		return 0, usage.Fieldf(field, "%s: want a duration %s 0", v, map[bool]string{true: ">=", false: ">"}[field != "Grace"])
	case sec > MaxDelay:
		return 0, usage.Fieldf(field, "%s: want at most %s", v, units.FormatSeconds(MaxDelay))
	}
	return time.Duration(sec * float64(time.Second)), nil
}
