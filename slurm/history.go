package slurm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// sacctFormat is the --format that ReadSacct wants.
const sacctFormat = "JobID,JobName,State,ElapsedRaw,ExitCode,Comment"

// SacctCommand is the command line whose output ReadSacct and Runs read.
const SacctCommand = "sacct -X --parsable2 --format " + sacctFormat

// ReadSacct reads the output of sacct --parsable2 (a header line naming the
// columns, then one job per line, fields separated by |). It needs JobID,
// State and ElapsedRaw or Elapsed; JobName, Comment and ExitCode are used
// when present. Job steps (123.batch) and heterogeneous-job components
// other than +0 are left out. Errors name the line.
func ReadSacct(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return nil, fmt.Errorf("%s: empty; want the output of %s", name, SacctCommand)
	}
	head := strings.Split(strings.TrimSpace(sc.Text()), "|")
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	_, hasID := col["jobid"]
	_, hasState := col["state"]
	_, raw := col["elapsedraw"]
	_, el := col["elapsed"]
	if len(head) < 2 || !hasID || !hasState || !raw && !el {
		first := sc.Text()
		if len(first) > 60 {
			first = first[:60] + "…"
		}
		return nil, fmt.Errorf("%s:1: not sacct --parsable2 output with JobID, State and ElapsedRaw columns (got %q); run %s", name, first, SacctCommand)
	}
	get := func(f []string, c string) string {
		if i, ok := col[c]; ok && i < len(f) {
			return strings.TrimSpace(f[i])
		}
		return ""
	}
	var recs []Record
	for line := 2; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "|")
		if len(f) != len(head) {
			return nil, fmt.Errorf("%s:%d: %d fields, the header has %d; was the output --parsable2 (-P)?", name, line, len(f), len(head))
		}
		rec := Record{JobID: get(f, "jobid"), JobName: get(f, "jobname"), State: get(f, "state"), Comment: get(f, "comment"), ExitCode: get(f, "exitcode")}
		if strings.Contains(rec.JobID, ".") || strings.Contains(rec.JobID, "+") && !strings.HasSuffix(rec.JobID, "+0") {
			continue
		}
		var err error
		if raw {
			rec.Elapsed, err = strconv.ParseFloat(get(f, "elapsedraw"), 64)
		} else {
			rec.Elapsed, err = units.ParseSeconds(get(f, "elapsed"))
		}
		if err != nil || !(rec.Elapsed >= 0) || math.IsInf(rec.Elapsed, 0) {
			return nil, fmt.Errorf("%s:%d: job %s: elapsed time is not a number of seconds >= 0", name, line, rec.JobID)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return recs, nil
}

// HistoryRun is one run of a job: a lone sacct job, or a chain of reservations.
type HistoryRun struct {
	// Chain is the chain id ("" for a lone job).
	Chain string   `json:"chain,omitempty"`
	Jobs  []string `json:"jobs"`
	// Walltime is the work the run needed (complete) or is known to have
	// needed more than (censored), in seconds.
	Walltime float64 `json:"walltime"`
	Censored bool    `json:"censored"`
}

// Runs is a history of runs, with what was left out and why.
type Runs struct {
	Runs     []HistoryRun   `json:"runs"`
	Complete int            `json:"complete"`
	Censored int            `json:"censored"`
	Skipped  map[string]int `json:"skipped"`
}

// Observations returns the walltimes and which are right-censored.
func (r Runs) Observations() (t []float64, censored []bool) {
	for _, run := range r.Runs {
		t = append(t, run.Walltime)
		censored = append(censored, run.Censored)
	}
	return t, censored
}

// RunsOptions chooses the sacct states of lone jobs: Complete states give
// complete runs, Censored states right-censored ones, others are skipped.
type RunsOptions struct {
	Complete, Censored []string
}

// DefaultRunsOptions: COMPLETED runs are complete, TIMEOUT runs censored.
var DefaultRunsOptions = RunsOptions{Complete: []string{"COMPLETED"}, Censored: []string{"TIMEOUT"}}

// chainField returns field key of a ckpt comment "ckpt:chain=ID;k=v;…".
func chainField(comment, key string) (string, bool) {
	rest, ok := strings.CutPrefix(comment, "ckpt:")
	if !ok {
		return "", false
	}
	for _, kv := range strings.Split(rest, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// GroupRuns turns sacct records into runs: the reservations of a chain
// (same chain id in the comment, or the same job name NAME.rK, a new chain
// starting at r1) are one run whose walltime is the work the runners
// recorded in the comment (final progress when done, complete; work run
// through otherwise, censored; for a reservation that Slurm ended before
// its runner recorded the outcome, the progress it started from plus its
// elapsed time less the restart). A lone job in a Complete state is a
// complete run of its elapsed time, one in a Censored state a censored
// one; the rest are skipped, counted by reason.
func GroupRuns(recs []Record, opt RunsOptions) Runs {
	out := Runs{Skipped: map[string]int{}}
	type group struct {
		id   string
		recs []Record
	}
	var groups []*group
	byID := map[string]*group{}
	lastByName := map[string]*group{}
	sorted := slices.Clone(recs)
	slices.SortStableFunc(sorted, func(a, b Record) int { return cmpJobID(a.JobID, b.JobID) })
	for _, r := range sorted {
		id, ok := chainField(r.Comment, "chain")
		if !ok {
			name, k, isRes := reservationName(r.JobName)
			if !isRes {
				out.add(lone(r, opt))
				continue
			}
			g := lastByName[name]
			if g == nil || k == 1 {
				g = &group{id: name + "@" + r.JobID}
				lastByName[name] = g
				groups = append(groups, g)
			}
			g.recs = append(g.recs, r)
			continue
		}
		g := byID[id]
		if g == nil {
			g = &group{id: id}
			byID[id] = g
			groups = append(groups, g)
		}
		g.recs = append(g.recs, r)
	}
	for _, g := range groups {
		out.add(chainRun(g.id, g.recs))
	}
	return out
}

func (r *Runs) add(run HistoryRun, skip string) {
	if skip != "" {
		r.Skipped[skip]++
		return
	}
	r.Runs = append(r.Runs, run)
	if run.Censored {
		r.Censored++
	} else {
		r.Complete++
	}
}

func lone(r Record, opt RunsOptions) (HistoryRun, string) {
	st := strings.ToUpper(strings.Fields(r.State + " ?")[0])
	complete, censored := slices.Contains(upper(opt.Complete), st), slices.Contains(upper(opt.Censored), st)
	switch {
	case !complete && !censored:
		return HistoryRun{}, "state " + st
	case !(r.Elapsed > 0):
		return HistoryRun{}, "elapsed time 0"
	}
	return HistoryRun{Jobs: []string{r.JobID}, Walltime: r.Elapsed, Censored: !complete}, ""
}

// chainRun makes one run of a chain's records, in job ID order.
func chainRun(id string, recs []Record) (HistoryRun, string) {
	run := HistoryRun{Chain: id}
	var work float64
	done := false
	for _, r := range recs {
		run.Jobs = append(run.Jobs, r.JobID)
		st := strings.Fields(r.State + " ?")[0]
		if st == "PENDING" || st == "RUNNING" || st == "REQUEUED" || st == "SUSPENDED" {
			return HistoryRun{}, "chain still running"
		}
		o, _ := chainField(r.Comment, "outcome")
		if o == "" {
			continue // never ran, or ran without ckpt run
		}
		w, err1 := strconv.ParseFloat(must(chainField(r.Comment, "work")), 64)
		p, err2 := strconv.ParseFloat(must(chainField(r.Comment, "progress")), 64)
		if err1 != nil || err2 != nil {
			return HistoryRun{}, "chain comment without progress"
		}
		switch o {
		case OutcomeDone:
			done, work = true, p
		case OutcomeSkipped:
		case OutcomeRunning: // ended by Slurm before the runner could record it
			restart, _ := strconv.ParseFloat(must(chainField(r.Comment, "restart")), 64)
			work = max(work, p+max(r.Elapsed-restart, 0))
		default:
			work = max(work, w)
		}
	}
	switch {
	case done:
		run.Walltime = work
	case work > 0:
		run.Walltime, run.Censored = work, true
	default:
		return HistoryRun{}, "chain without progress recorded by ckpt run"
	}
	if !(run.Walltime > 0) {
		return HistoryRun{}, "elapsed time 0"
	}
	return run, ""
}

func must(v string, _ bool) string { return v }

func upper(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.ToUpper(x)
	}
	return out
}

// reservationName splits "NAME.rK".
func reservationName(s string) (string, int, bool) {
	i := strings.LastIndex(s, ".r")
	if i <= 0 {
		return "", 0, false
	}
	k, err := strconv.Atoi(s[i+2:])
	if err != nil || k < 1 {
		return "", 0, false
	}
	return s[:i], k, true
}

// cmpJobID orders numeric job IDs numerically.
func cmpJobID(a, b string) int {
	x, e1 := strconv.ParseUint(strings.TrimSuffix(a, "+0"), 10, 64)
	y, e2 := strconv.ParseUint(strings.TrimSuffix(b, "+0"), 10, 64)
	if e1 != nil || e2 != nil {
		return strings.Compare(a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
