package advise

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// LearnRequest builds or extends a model file from a job log.
type LearnRequest struct {
	Log   string `json:"log"`   // SWF (gzip recognised), CQSim .rst or sacct --parsable2
	Model string `json:"model"` // the model file, created or extended
	// Params are used for a new model; an existing model keeps its own.
	Params Params `json:"params"`
	// FromCluster learns from the cluster's accounting instead of Log:
	// every user's jobs (sacct -a) from Since (default: where the model
	// stopped, or DefaultSince ago) to Until (default: now); ParseWhen
	// reads both.
	FromCluster bool   `json:"from_cluster,omitempty"`
	Since       string `json:"since,omitempty"`
	Until       string `json:"until,omitempty"`
	// Cluster answers the accounting query (nil: slurm.Exec, the
	// commands on PATH); Now is the clock (nil: time.Now).
	Cluster slurm.SiteAccounting `json:"-"`
	Now     func() time.Time     `json:"-"`
}

// Validate names the first bad field.
func (r LearnRequest) Validate() error {
	switch {
	case r.FromCluster && r.Log != "":
		return usage.Fieldf("log", "give a job log or --from-cluster, not both (got %s)", r.Log)
	case !r.FromCluster && r.Since != "":
		return usage.Fieldf("since", "--since and --until bound the window of --from-cluster")
	case !r.FromCluster && r.Until != "":
		return usage.Fieldf("until", "--since and --until bound the window of --from-cluster")
	case !r.FromCluster && r.Log == "":
		return usage.Fieldf("log", "a job log (or --from-cluster) is needed")
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
	New int `json:"new_jobs"`
	Old int `json:"old_jobs"`
	// Deferred counts the jobs (and chains) of the log that had not ended:
	// the model keeps their IDs and a later learn takes each once it has
	// ended; Waiting names the earliest submitted.
	Deferred   int       `json:"deferred_jobs,omitempty"`
	Waiting    string    `json:"waiting,omitempty"`
	Chains     int       `json:"chains,omitempty"`
	Jobs       int       `json:"jobs"`
	Groups     int       `json:"groups"`
	LastSubmit float64   `json:"last_submit"`
	Wait       WaitModel `json:"wait_model"`
	Extended   bool      `json:"extended"`
}

// Learn runs r: reads the model if it exists, feeds it the log's jobs
// submitted after its last submit time and those it waited for, by ID
// (not ended at an earlier learn), in submit order (no look-ahead: the
// ledger judges each job's advice as it was at submission), keeps the IDs
// of the jobs not ended and writes it back.
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
	var l Log
	var err error
	from := 0.0
	if r.FromCluster {
		l, from, err = clusterLog(ctx, r, e, rep.Extended)
		rep.Log = l.Name
	} else {
		l, err = ReadLogFile(r.Log)
	}
	if err != nil {
		return rep, err
	}
	if !rep.Extended {
		if e.from = from; from == 0 && len(l.Jobs) > 0 {
			e.from = l.Jobs[0].Submit
		}
	}
	jobs := learnable(e, l, rep.Extended, &rep)
	for _, j := range jobs {
		if j.Chain != "" {
			rep.Chains++
		}
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

// learnable returns the jobs of l that e has not learnt, in submit order:
// those submitted after its last submit and those it waits for by ID (not
// ended at an earlier learn); it sets e's new waiting list (the jobs of l
// not ended, and those e waited for that l does not list) and counts the
// rest as old. O(jobs + waiting).
func learnable(e *Engine, l Log, extended bool, rep *LearnReport) []Job {
	waited := make(map[string]bool, len(e.waiting))
	for _, id := range e.waiting {
		waited[id] = true
	}
	var jobs []Job
	for _, j := range l.Jobs {
		if extended && j.Submit <= e.lastSeen && !(j.ID != "" && waited[j.ID]) {
			rep.Old++
			continue
		}
		jobs = append(jobs, j)
	}
	var still []string
	for _, id := range e.waiting {
		if !l.Listed[id] {
			still = append(still, id)
		}
	}
	first := Waiting{Submit: math.Inf(1)}
	for _, w := range l.Waiting {
		if w.ID != "" {
			still = append(still, w.ID)
		}
		if w.Submit < first.Submit {
			first = w
		}
	}
	e.waiting = still
	if rep.Deferred = len(l.Waiting); rep.Deferred > 0 {
		what := "job " + first.ID
		if c, ok := strings.CutPrefix(first.ID, "chain:"); ok {
			what = "ckpt chain " + c
		}
		rep.Waiting = fmt.Sprintf("%s is %s since %s", what, first.State,
			wallClock(first.Submit, time.UTC).Format(slurm.SacctTimeLayout))
		if rep.Deferred > 1 {
			rep.Waiting = "the first, " + rep.Waiting
		}
	}
	return jobs
}

// WriteText writes one line.
func (r LearnReport) WriteText(w io.Writer) error {
	verb := "learnt"
	if r.Extended {
		verb = "extended"
	}
	var more string
	if r.Chains > 0 {
		more += fmt.Sprintf(", %d of them ckpt chains joined", r.Chains)
	}
	if r.Deferred > 0 {
		more += fmt.Sprintf(", %d not ended, learnt once ended: %s", r.Deferred, r.Waiting)
	}
	_, err := fmt.Fprintf(w, "%s %s: %d new jobs from %s (%d already learnt%s), %d jobs in %d groups, %s\n",
		verb, r.Model, r.New, r.Log, r.Old, more, r.Jobs, r.Groups, r.Wait)
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
