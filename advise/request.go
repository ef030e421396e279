package advise

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// AskRequest asks the model for one job about to be submitted.
type AskRequest struct {
	Model string `json:"model"`
	Query
}

// Validate names the first bad field.
func (r AskRequest) Validate() error {
	switch {
	case r.Model == "":
		return usage.Fieldf("model", "a model file is needed")
	case r.User == "":
		return usage.Fieldf("user", "the user is needed")
	case r.Nodes < 0:
		return usage.Fieldf("nodes", "must be >= 0, got %d", r.Nodes)
	case !(r.Requested >= 0) || math.IsInf(r.Requested, 0):
		return usage.Fieldf("time", "must be a finite duration >= 0, got %v", r.Requested)
	}
	return nil
}

// AskReport is the advice with its Slurm forms.
type AskReport struct {
	Advice
	// SlurmTime and SlurmTimeMin are Time and TimeMin rounded up to whole
	// minutes for sbatch; Comment is the job comment the cli_filter sets.
	SlurmTime    string `json:"slurm_time"`
	SlurmTimeMin string `json:"slurm_time_min"`
	Comment      string `json:"comment"`
}

// AskRun answers r.
func AskRun(_ context.Context, r AskRequest) (AskReport, error) {
	if err := r.Validate(); err != nil {
		return AskReport{}, err
	}
	a, err := Ask(r.Model, r.Query)
	if err != nil {
		return AskReport{}, err
	}
	rep := AskReport{Advice: a, SlurmTime: units.SlurmTime(a.Time), SlurmTimeMin: units.SlurmTime(a.TimeMin)}
	if a.Keep && r.Requested <= 0 {
		// No --time to keep: no advice, the partition's default applies.
		rep.Time, rep.TimeMin, rep.Sequence, rep.SlurmTime, rep.SlurmTimeMin = 0, 0, nil, "", ""
	}
	seq := make([]string, len(a.Sequence))
	for i, s := range a.Sequence {
		seq[i] = units.SlurmTime(s)
	}
	if a.Keep {
		rep.Comment = "ckpt:advice=keep"
	} else {
		rep.Comment = "ckpt:advice=" + strings.Join(seq, ",")
	}
	return rep, nil
}

// WriteText writes the advice in one line.
func (r AskReport) WriteText(w io.Writer) error {
	switch {
	case r.Keep && r.SlurmTime == "":
		_, err := fmt.Fprintf(w, "no advice (the partition's default time applies): %s\n", r.Reason)
		return err
	case r.Keep:
		_, err := fmt.Fprintf(w, "keep --time=%s: %s\n", r.SlurmTime, r.Reason)
		return err
	}
	rest := make([]string, 0, len(r.Sequence))
	for _, s := range r.Sequence[1:] {
		rest = append(rest, units.SlurmTime(s))
	}
	_, err := fmt.Fprintf(w, "--time=%s --time-min=%s, if killed %s (group %s, %d runs: expected turnaround %s instead of %s)\n",
		r.SlurmTime, r.SlurmTimeMin, strings.Join(rest, " then "), r.Level, r.Runs,
		units.FormatSeconds(r.Expected), units.FormatSeconds(r.ExpectedUser))
	return err
}

// ParseWait reads a wait model "A,B" (slope, then seconds with the duration
// grammar).
func ParseWait(s string) (WaitModel, error) {
	as, bs, ok := strings.Cut(s, ",")
	var m WaitModel
	var err error
	if ok {
		if _, err = fmt.Sscan(as, &m.A); err == nil {
			m.B, err = units.ParseSeconds(strings.TrimSpace(bs))
		}
	}
	if !ok || err != nil || !(m.A > 0) || math.IsInf(m.A, 0) || m.B < 0 {
		return m, usage.Fieldf("wait", "want A,B (A > 0 seconds of wait per second requested, B >= 0 a duration), got %q", s)
	}
	return m, nil
}
