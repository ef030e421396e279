package advise

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// LearnRequest builds or extends a model file from a job log.
type LearnRequest struct {
	Log   string `json:"log"`   // SWF (gzip recognised) or CQSim .rst
	Model string `json:"model"` // the model file, created or extended
	// Params are used for a new model; an existing model keeps its own.
	Params Params `json:"params"`
}

// Validate names the first bad field.
func (r LearnRequest) Validate() error {
	if r.Log == "" {
		return usage.Fieldf("log", "a job log is needed")
	}
	if r.Model == "" {
		return usage.Fieldf("model", "a model file is needed")
	}
	if fi, err := os.Stat(filepath.Dir(r.Model)); err != nil || !fi.IsDir() {
		return usage.Fieldf("model", "the folder of %s does not exist", r.Model)
	}
	return r.Params.Validate()
}

// LearnReport says what a learn did.
type LearnReport struct {
	Model string `json:"model"`
	Log   string `json:"log"`
	// New counts the jobs learnt; Old those at or before the model's last
	// submit time, skipped as already learnt.
	New        int       `json:"new_jobs"`
	Old        int       `json:"old_jobs"`
	Jobs       int       `json:"jobs"`
	Groups     int       `json:"groups"`
	LastSubmit float64   `json:"last_submit"`
	Wait       WaitModel `json:"wait_model"`
	Extended   bool      `json:"extended"`
}

// Learn runs r: reads the model if it exists, feeds it the log's jobs
// submitted after its last submit time (no look-ahead: the ledger judges
// each job's advice as it was at submission) and writes it back.
func Learn(ctx context.Context, r LearnRequest) (LearnReport, error) {
	if err := r.Validate(); err != nil {
		return LearnReport{}, err
	}
	rep := LearnReport{Model: r.Model, Log: r.Log}
	e := NewEngine(r.Params)
	if _, err := os.Stat(r.Model); err == nil {
		if e, err = ReadModel(r.Model); err != nil {
			return rep, err
		}
		rep.Extended = true
	}
	l, err := ReadLogFile(r.Log)
	if err != nil {
		return rep, err
	}
	jobs := l.Jobs
	if rep.Extended {
		i := 0
		for i < len(jobs) && jobs[i].Submit <= e.lastSeen {
			i++
		}
		rep.Old, jobs = i, jobs[i:]
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	rep.New = len(jobs)
	e.Feed(jobs, true, nil)
	if err := e.WriteModel(r.Model); err != nil {
		return rep, err
	}
	rep.Jobs, rep.Groups, rep.LastSubmit = e.jobs, len(e.groups), e.lastSeen
	rep.Wait, _ = e.WaitModel()
	return rep, nil
}

// WriteText writes one line.
func (r LearnReport) WriteText(w io.Writer) error {
	verb := "learnt"
	if r.Extended {
		verb = "extended"
	}
	_, err := fmt.Fprintf(w, "%s %s: %d new jobs from %s (%d already learnt), %d jobs in %d groups, %s\n",
		verb, r.Model, r.New, r.Log, r.Old, r.Jobs, r.Groups, r.Wait)
	return err
}

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

// ReplayRequest replays a log.
type ReplayRequest struct {
	Log    string `json:"log"`
	Params Params `json:"params"`
	// Priors, when given, replay ckpt again with each of these priors (its
	// operating points, from bold to cautious) for the picture.
	Priors []float64 `json:"priors,omitempty"`
}

// Validate names the first bad field.
func (r ReplayRequest) Validate() error {
	if r.Log == "" {
		return usage.Fieldf("log", "a job log is needed")
	}
	for _, p := range r.Priors {
		if !(p >= 0) || math.IsInf(p, 0) {
			return usage.Fieldf("priors", "each must be finite and >= 0, got %v", p)
		}
	}
	return r.Params.Validate()
}

// ReplayRun reads the log and replays it.
func ReplayRun(ctx context.Context, r ReplayRequest) (ReplayReport, error) {
	if err := r.Validate(); err != nil {
		return ReplayReport{}, err
	}
	l, err := ReadLogFile(r.Log)
	if err != nil {
		return ReplayReport{}, err
	}
	rep, err := Replay(ctx, l, r.Params)
	for _, prior := range r.Priors {
		if err != nil {
			break
		}
		p := r.Params
		p.Prior = prior
		var pt ReplayReport
		if pt, err = Replay(ctx, l, p); err == nil {
			for _, pr := range pt.Policies[len(pt.Policies)-2:] {
				pr.Policy = fmt.Sprintf("%s prior %g", pr.Policy, prior)
				rep.Points = append(rep.Points, pr)
			}
		}
	}
	return rep, err
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
