package slurm

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// sacctFormat is the --format that ReadSacct wants.
const sacctFormat = "JobID,JobName,State,ElapsedRaw,ExitCode,Comment"

// SacctCommand is the command line whose output ReadSacct and Runs read.
const SacctCommand = "sacct -X --parsable2 --format " + sacctFormat

// ReadSacct reads the output of sacct --parsable2 (or --parsable, whose
// lines end with "|"): a header line naming the columns, then one job per
// line, fields separated by |. It needs JobID, State and ElapsedRaw or
// Elapsed ([D-]HH:MM:SS); JobName, Comment, ExitCode, Start and End are
// used when present. Blank lines, "#" comments and repeats of the header
// (outputs concatenated) are skipped, as are job steps (123.batch) and
// heterogeneous-job components other than +0. It is the one reader of
// sacct output in ckpt. Errors are one line naming the file and line;
// sacct's fixed-width layout is refused with a pointer to --parsable2.
// O(lines) time, O(jobs) memory.
func ReadSacct(r io.Reader, name string) ([]Record, error) {
	sc := trace.NewScanner(r)
	line, header := 0, ""
	for header == "" && sc.Scan() {
		line++
		if t := strings.TrimSpace(sc.Text()); t != "" && !strings.HasPrefix(t, "#") {
			header = sc.Text()
		}
	}
	if err := trace.ScanError(sc, name, line); err != nil {
		return nil, err
	}
	if header == "" {
		return nil, fmt.Errorf("%s: empty; want the output of %s", name, SacctCommand)
	}
	col, err := sacctColumns(header)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line, err)
	}
	ncol := strings.Count(header, "|") + 1
	var recs []Record
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") || sc.Text() == header {
			continue
		}
		rec, keep, err := sacctRecord(sc.Text(), ncol, col)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if keep {
			recs = append(recs, rec)
		}
	}
	if err := trace.ScanError(sc, name, line); err != nil {
		return nil, err
	}
	return recs, nil
}

// sacctColumns maps the lower-cased column names of a --parsable2 header
// to their index, checking that the needed ones are there.
func sacctColumns(header string) (map[string]int, error) {
	head := strings.Split(strings.TrimSpace(header), "|")
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	_, hasID := col["jobid"]
	_, hasState := col["state"]
	_, raw := col["elapsedraw"]
	_, el := col["elapsed"]
	if len(head) >= 2 && hasID && hasState && (raw || el) {
		return col, nil
	}
	first := header
	if len(first) > 60 {
		first = first[:60] + "…"
	}
	if !strings.Contains(header, "|") && (strings.Contains(strings.ToLower(header), "jobid") || strings.Contains(header, "---")) {
		return nil, fmt.Errorf("sacct's fixed-width layout (got %q): run %s", first, SacctCommand)
	}
	return nil, fmt.Errorf("not sacct --parsable2 output with JobID, State and ElapsedRaw columns (got %q); run %s", first, SacctCommand)
}

// sacctRecord reads one job line; keep is false for a job step or a
// heterogeneous-job component other than +0.
func sacctRecord(text string, ncol int, col map[string]int) (Record, bool, error) {
	f := strings.Split(text, "|")
	if len(f) != ncol {
		return Record{}, false, fmt.Errorf("%d fields, the header has %d; was the output --parsable2 (-P)?", len(f), ncol)
	}
	get := func(c string) string {
		if i, ok := col[c]; ok {
			return strings.TrimSpace(f[i])
		}
		return ""
	}
	rec := Record{JobID: get("jobid"), JobName: get("jobname"), State: get("state"), Comment: get("comment"), ExitCode: get("exitcode")}
	switch {
	case rec.JobID == "":
		return rec, false, fmt.Errorf("empty JobID")
	case strings.Contains(rec.JobID, ".") || strings.Contains(rec.JobID, "+") && !strings.HasSuffix(rec.JobID, "+0"):
		return rec, false, nil
	case rec.State == "":
		return rec, false, fmt.Errorf("job %s: empty State", rec.JobID)
	}
	rec.Start, rec.End = sacctTime(get("start")), sacctTime(get("end"))
	var err error
	if _, raw := col["elapsedraw"]; raw {
		rec.Elapsed, err = strconv.ParseFloat(get("elapsedraw"), 64)
	} else {
		rec.Elapsed, err = units.ParseSeconds(get("elapsed"))
	}
	if err != nil || !(rec.Elapsed >= 0) || math.IsInf(rec.Elapsed, 0) {
		v := get("elapsed")
		if _, raw := col["elapsedraw"]; raw {
			v = get("elapsedraw")
		}
		return rec, false, fmt.Errorf("job %s: elapsed time %q is not a number of seconds >= 0", rec.JobID, v)
	}
	return rec, true, nil
}

// sacctTime reads a Start or End field (local time); zero for Unknown,
// None or anything else that is not a time.
func sacctTime(v string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// HistoryRun is one run of a job: a lone sacct job, or a chain of reservations.
type HistoryRun struct {
	// Chain is the chain id ("" for a lone job).
	Chain string   `json:"chain,omitempty"`
	Jobs  []string `json:"jobs,omitempty"`
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

// jobStates are the states sacct gives a job (Slurm 22–24).
var jobStates = []string{"BOOT_FAIL", "CANCELLED", "COMPLETED", "COMPLETING", "CONFIGURING", "DEADLINE", "FAILED", "NODE_FAIL",
	"OUT_OF_MEMORY", "PENDING", "PREEMPTED", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "REVOKED", "RUNNING",
	"SIGNALING", "SPECIAL_EXIT", "STAGE_OUT", "STOPPED", "SUSPENDED", "TIMEOUT"}

// Validate refuses a state that is not a Slurm job state (a typo would
// silently skip every run in the state meant), and a state both Complete
// and Censored (its runs were silently counted complete). The error names
// the field: Complete or Censored.
func (o RunsOptions) Validate() error {
	for _, f := range []struct {
		name   string
		states []string
	}{{"Complete", o.Complete}, {"Censored", o.Censored}} {
		for _, st := range f.states {
			if !slices.Contains(jobStates, strings.ToUpper(st)) {
				return usage.Fieldf(f.name, "%q is not a Slurm job state (%s)", st, strings.Join(jobStates, ", "))
			}
		}
	}
	for _, st := range o.Censored {
		if slices.ContainsFunc(o.Complete, func(c string) bool { return strings.EqualFold(c, st) }) {
			return usage.Fieldf("Censored", "%s is also a complete state (states %s): a state is complete or censored, not both",
				strings.ToUpper(st), strings.Join(o.Complete, ","))
		}
	}
	return nil
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
// elapsed time less the restart). A requeued job's earlier runs (sacct
// --duplicates: state REQUEUED or PREEMPTED, a preempted reservation's
// comment says outcome=preempted) count as the work they had done,
// censored unless a later record completes the chain. A chain that did not complete and whose
// app failed on its own in a reservation (outcome failed: a non-zero exit
// the runner's signal did not cause) is a failure, not a censored
// observation: it is skipped. A lone job in a Complete state is a
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
	done, failed := false, false
	last := map[string]int{} // a job's last instance (sacct --duplicates lists each run of a requeued job)
	for i, r := range recs {
		last[r.JobID] = i
	}
	for i, r := range recs {
		if last[r.JobID] == i {
			run.Jobs = append(run.Jobs, r.JobID)
		}
		st := strings.Fields(r.State + " ?")[0]
		if st == "PENDING" || st == "RUNNING" || st == "SUSPENDED" || st == "REQUEUED" && last[r.JobID] == i {
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
		case OutcomeFailed: // the app failed on its own: its time says nothing of the work's
			failed = true
			work = max(work, w)
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
	case failed:
		return HistoryRun{}, "chain whose app failed (not a censored walltime)"
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

// cmpJobID orders job IDs by their leading number (the job, or the array
// job), then by the rest ("_7", "+0") as text: a total order, numeric on
// plain IDs.
func cmpJobID(a, b string) int {
	na, ra := leadingNumber(a)
	nb, rb := leadingNumber(b)
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(ra, rb)
}

// leadingNumber splits the leading digits of s (at most 18 of them) off.
func leadingNumber(s string) (uint64, string) {
	i := 0
	for i < len(s) && i < 18 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.ParseUint(s[:i], 10, 64)
	return n, s[i:]
}
