package logs

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/usage"
)

// LearnRequest builds or extends a model file from a job log.
type LearnRequest struct {
	Log   string `json:"log"`   // SWF (gzip recognised), CQSim .rst or sacct --parsable2
	Model string `json:"model"` // the model file, created or extended
	// Params are used for a new model; an existing model keeps its own,
	// and refuses (a usage error naming the field) one asked for, not the
	// default, that differs.
	Params advise.Params `json:"params"`
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
	Deferred   int              `json:"deferred_jobs,omitempty"`
	Waiting    string           `json:"waiting,omitempty"`
	Chains     int              `json:"chains,omitempty"`
	Jobs       int              `json:"jobs"`
	Groups     int              `json:"groups"`
	LastSubmit float64          `json:"last_submit"`
	Wait       advise.WaitModel `json:"wait_model"`
	Extended   bool             `json:"extended"`
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
	e := advise.NewEngine(r.Params)
	if _, err := os.Stat(r.Model); err == nil {
		if e, err = advise.ReadModel(r.Model); err != nil {
			return rep, err
		}
		if err := keptParams(r.Params, e.P, r.Model); err != nil {
			return rep, err
		}
		rep.Extended = true
	}
	var l advise.Log
	var err error
	from := 0.0
	if r.FromCluster {
		l, from, err = clusterLog(ctx, r, e, rep.Extended)
		rep.Log = l.Name
	} else {
		l, err = ReadLogFile(ctx, r.Log)
	}
	if err != nil {
		return rep, err
	}
	if !rep.Extended {
		if from == 0 && len(l.Jobs) > 0 {
			from = l.Jobs[0].Submit
		}
		e.StartAt(from)
	}
	jobs, old := e.Learnable(l, rep.Extended)
	if rep.Old, rep.Deferred = old, len(l.Waiting); rep.Deferred > 0 {
		rep.Waiting = waitingFor(l)
	}
	for _, j := range jobs {
		if j.Chain != "" {
			rep.Chains++
		}
	}
	rep.New = len(jobs)
	if err := e.FeedContext(ctx, jobs, true, nil); err != nil {
		return rep, err // the model file is left as it was
	}
	if err := e.WriteModel(r.Model); err != nil {
		return rep, err
	}
	rep.Jobs, rep.Groups = e.Size()
	_, rep.LastSubmit = e.Span()
	rep.Wait, _ = e.WaitModel()
	return rep, nil
}

// keptParams refuses a parameter asked for (not the default) that differs
// from the one the existing model was built with, which it keeps: the
// request would otherwise be ignored without a word.
func keptParams(asked, model advise.Params, path string) error {
	def := advise.DefaultParams()
	wait := func(m advise.WaitModel) string {
		if m.A == 0 {
			return "fitted on the log"
		}
		return fmt.Sprintf("%g,%g", m.A, m.B)
	}
	for _, f := range []struct {
		field, what string
		a, d, m     any
	}{{"min_runs", "minimum runs", asked.MinRuns, def.MinRuns, model.MinRuns}, {"window", "window", asked.Window, def.Window, model.Window},
		{"min_wait_pairs", "minimum wait pairs", asked.MinWaitPairs, def.MinWaitPairs, model.MinWaitPairs},
		{"prior", "prior", asked.Prior, def.Prior, model.Prior}, {"abstain", "abstain", asked.Abstain, def.Abstain, model.Abstain},
		{"wait", "wait model", wait(asked.Wait), wait(def.Wait), wait(model.Wait)}} {
		if f.a != f.d && f.a != f.m {
			return usage.Fieldf(f.field, "%v: %s keeps the %s it was built with, %v (learn a new model to change it)", f.a, path, f.what, f.m)
		}
	}
	return nil
}

// waitingFor says which job (or chain) of l not ended was submitted
// first, and since when.
func waitingFor(l advise.Log) string {
	first := advise.Waiting{Submit: math.Inf(1)}
	for _, w := range l.Waiting {
		if w.Submit < first.Submit {
			first = w
		}
	}
	what := "job " + first.ID
	if c, ok := strings.CutPrefix(first.ID, "chain:"); ok {
		what = "ckpt chain " + c
	}
	s := fmt.Sprintf("%s is %s since %s", what, first.State, wallClock(first.Submit, time.UTC).Format(slurm.SacctTimeLayout))
	if len(l.Waiting) > 1 {
		s = "the first, " + s
	}
	return s
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
