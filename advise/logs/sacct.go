package logs

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SacctFormat is the sacct query whose output ReadSacct reads: every user's
// jobs of a window, one line per job, with the fields a workload is told
// by and the times the advisor learns from (ckpt advise learn
// --from-cluster runs it through slurm.SiteAccounting):
//
//	sacct -a -X -P -S 2026-01-01 -E now --format $(ckpt's SacctFormat) > jobs.sacct
const SacctFormat = slurm.SiteSacctFormat

// chainPrefix starts the comment of every reservation of a ckpt chain.
const chainPrefix = "ckpt:chain="

// isSacct reports whether a log starts with sacct --parsable2's header.
func isSacct(br *bufio.Reader) bool {
	head, _ := br.Peek(6)
	return string(head) == "JobID|"
}

// sacctRow is one allocation of a dump, as read.
type sacctRow struct {
	f   []string
	job advise.Job
	end float64 // the logged end, 0 when unknown
	why string  // why it is not a usable lone job ("" when it is)
	// state is the job's State without "by UID"; chain its ckpt chain's
	// ID ("" when none).
	state, chain string
}

// ReadSacct reads a `sacct --parsable2` dump with a header naming at least
// JobID, Submit, Start, Timelimit, ElapsedRaw and State (SacctFormat has
// them all). Job steps (IDs with a dot), jobs that did not end and jobs
// without a limit are skipped, each counted by reason. The reservations of
// a ckpt chain (comment "ckpt:chain=ID…") are one run, joined as ckpt
// reserve --history joins them (slurm.GroupRuns): its length is the work
// the chain's runners recorded, complete if the chain completed (its
// request is then the sum of its reservations' limits, or the work if more,
// as in a chain run faster than its plan), else censored at that work (its
// request is the work: the run needed at least that); its
// wait is unknown (not the wait of one request), it is submitted with its
// first reservation and ends with its last, its job name is the chain's
// (NAME of NAME.rK). A chain still running, or
// whose app failed on its own, is skipped as reserve --history skips it.
// Log.Waiting lists the jobs and chains that have not ended (Log.Unended
// the earliest submit among them) and Log.Listed every job's and chain's ID.
// Times are read as UTC: only their differences matter. O(lines).
func ReadSacct(r io.Reader, name string) (advise.Log, error) {
	l, err := readSacct(r, name)
	if err != nil {
		return l, err
	}
	return finish(l)
}

// readSacct is ReadSacct without the refusal of a dump with no usable job.
func readSacct(r io.Reader, name string) (advise.Log, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	l := advise.Log{Name: name, Skipped: map[string]int{}, Unended: math.Inf(1), Listed: map[string]bool{}}
	var col map[string]int
	chains := map[string][]sacctRow{}
	var order []string
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "|")
		if col == nil {
			col = map[string]int{}
			for i, h := range f {
				col[h] = i
			}
			for _, need := range []string{"JobID", "Submit", "Start", "Timelimit", "ElapsedRaw", "State"} {
				if _, ok := col[need]; !ok {
					return l, usage.Errorf("%s: the sacct header has no %s column (query with --format %s)", name, need, SacctFormat)
				}
			}
			continue
		}
		if len(f) != len(col) {
			return l, usage.Errorf("%s:%d: %d fields, the header has %d", name, line, len(f), len(col))
		}
		l.Read++
		row := sacctJob(f, col)
		if row.why != "job step" {
			l.Listed[row.job.ID] = true
		}
		if id, ok := chainID(field(f, col, "Comment")); ok && row.why != "job step" {
			row.chain = id
			if chains[id] == nil {
				order = append(order, id)
			}
			l.Listed["chain:"+id] = true
			chains[id] = append(chains[id], row)
			continue
		}
		switch {
		case row.why == "not ended":
			l.Unended = math.Min(l.Unended, row.job.Submit)
			l.Waiting = append(l.Waiting, advise.Waiting{ID: row.job.ID, State: row.state, Submit: row.job.Submit})
			fallthrough
		case row.why != "":
			l.Skipped[row.why]++
		default:
			l.Jobs = append(l.Jobs, row.job)
		}
	}
	if err := sc.Err(); err != nil {
		return l, usage.Errorf("%s: %v", name, err)
	}
	if col == nil {
		return l, usage.Errorf("%s: empty sacct dump", name)
	}
	for _, id := range order {
		joinChain(&l, chains[id], col)
	}
	advise.SortJobs(l.Jobs)
	return l, nil
}

// chainID is the ID of a ckpt chain comment "ckpt:chain=ID;…".
func chainID(comment string) (string, bool) {
	rest, ok := strings.CutPrefix(comment, chainPrefix)
	if !ok {
		return "", false
	}
	id, _, _ := strings.Cut(rest, ";")
	id, _, _ = strings.Cut(id, " ")
	return id, id != ""
}

// joinChain adds the run of one chain's reservations to l, or counts why
// it is skipped.
func joinChain(l *advise.Log, rows []sacctRow, col map[string]int) {
	recs := make([]slurm.Record, len(rows))
	byID := map[string]sacctRow{}
	for i, r := range rows {
		el, _ := strconv.ParseFloat(field(r.f, col, "ElapsedRaw"), 64)
		recs[i] = slurm.Record{JobID: field(r.f, col, "JobID"), JobName: field(r.f, col, "JobName"),
			State: field(r.f, col, "State"), Comment: field(r.f, col, "Comment"), Elapsed: max(el, 0)}
		byID[recs[i].JobID] = r
	}
	runs := slurm.GroupRuns(recs, slurm.DefaultRunsOptions)
	for why, n := range runs.Skipped {
		l.Skipped["ckpt chain: "+why] += n
		if why == "chain still running" {
			w := advise.Waiting{ID: "chain:" + rows[0].chain, State: "RUNNING", Submit: math.Inf(1)}
			for _, r := range rows {
				l.Unended = math.Min(l.Unended, r.job.Submit)
				w.Submit = math.Min(w.Submit, r.job.Submit)
			}
			l.Waiting = append(l.Waiting, w)
		}
	}
	for _, run := range runs.Runs {
		if math.IsInf(run.Walltime, 0) || run.Walltime > 100*365*86400 {
			l.Skipped["ckpt chain: work recorded beyond 100 years"]++
			continue
		}
		j := advise.Job{Submit: math.Inf(1), Wait: -1, Run: run.Walltime, Chain: run.Chain, Nodes: -1, ID: "chain:" + run.Chain}
		var limits float64
		for _, id := range run.Jobs {
			r := byID[id]
			if r.job.Submit < j.Submit {
				j.Submit, j.Who, j.Nodes = r.job.Submit, r.job.Who, r.job.Nodes
			}
			limits += r.job.Requested
			j.EndAt = max(j.EndAt, r.end)
		}
		if i := strings.LastIndex(j.App, ".r"); i > 0 {
			if _, err := strconv.Atoi(j.App[i+2:]); err == nil {
				j.App = j.App[:i] // the chain's name, NAME.rK
			}
		}
		j.Requested, j.Complete = max(limits, run.Walltime), !run.Censored
		if run.Censored {
			j.Requested = run.Walltime // at least this long
		}
		if math.IsInf(j.Submit, 0) || !(j.Requested > 0) {
			l.Skipped["ckpt chain: submit time or limits unknown"]++
			continue
		}
		j.EndAt = max(j.EndAt, j.Submit+j.Run)
		l.Chains++
		l.Jobs = append(l.Jobs, j)
	}
}

// field is column k of a line, "" when the dump has no such column.
func field(f []string, col map[string]int, k string) string {
	if i, ok := col[k]; ok {
		return f[i]
	}
	return ""
}

// sacctJob maps one sacct line; why says why it is not a usable job.
func sacctJob(f []string, col map[string]int) sacctRow {
	get := func(k string) string { return field(f, col, k) }
	state, _, _ := strings.Cut(strings.TrimSpace(get("State")), " ") // "CANCELLED by 0"
	limit, lerr := units.ParseSeconds(get("Timelimit"))
	run, rerr := strconv.ParseFloat(get("ElapsedRaw"), 64)
	submit, serr := time.ParseInLocation(slurm.SacctTimeLayout, get("Submit"), time.UTC)
	start, terr := time.ParseInLocation(slurm.SacctTimeLayout, get("Start"), time.UTC)
	end, eerr := time.ParseInLocation(slurm.SacctTimeLayout, get("End"), time.UTC)
	nodes, err := strconv.ParseInt(get("NNodes"), 10, 64)
	if err != nil {
		nodes = -1
	}
	row := sacctRow{f: f, state: state, job: advise.Job{ID: get("JobID"), Submit: float64(submit.Unix()), Wait: start.Sub(submit).Seconds(), Run: run, Requested: limit, Nodes: nodes,
		Who: advise.Who{User: get("User"), Group: get("Account"), App: get("JobName"), Partition: get("Partition")}}}
	if eerr == nil && serr == nil {
		row.end = float64(end.Unix())
	}
	switch {
	case strings.Contains(get("JobID"), "."):
		row.why = "job step"
	case serr != nil:
		row.why = "submit or start time unknown"
	case state == "PENDING" || state == "RUNNING" || state == "REQUEUED" || state == "SUSPENDED":
		row.why = "not ended"
	case lerr != nil || !(limit > 0):
		row.why = "no time limit"
	case rerr != nil || !(run > 0) || math.IsInf(run, 1):
		row.why = "run time unknown or 0"
	case terr != nil:
		row.why = "submit or start time unknown"
	}
	return row
}

// finish keeps a log with at least one job, its jobs in submit order.
func finish(l advise.Log) (advise.Log, error) {
	if len(l.Jobs) == 0 {
		return l, usage.Errorf("%s: none of the %d jobs has a run time, a requested time and a submit time (%v)", l.Name, l.Read, l.Skipped)
	}
	advise.SortJobs(l.Jobs)
	return l, nil
}
