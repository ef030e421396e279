package advise

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SacctFormat is the sacct query whose output ReadSacct reads: every user's
// jobs of a window, one line per job, with the fields a workload is told
// by and the times the advisor learns from:
//
//	sacct -a -X -P -S 2026-01-01 -E now --format $(ckpt's SacctFormat) > jobs.sacct
const SacctFormat = "JobID,User,Account,JobName,Partition,NNodes,Submit,Start,End,Timelimit,ElapsedRaw,State,Comment"

// isSacct reports whether a log starts with sacct --parsable2's header.
func isSacct(br *bufio.Reader) bool {
	head, _ := br.Peek(6)
	return string(head) == "JobID|"
}

// ReadSacct reads a `sacct --parsable2` dump with a header naming at least
// JobID, Submit, Start, Timelimit, ElapsedRaw and State (SacctFormat has
// them all): job steps (IDs with a dot), jobs that did not end, jobs
// without a limit and the reservations of ckpt chains (their comment
// starts "ckpt:chain=": a chain's walltime is learnt by ckpt reserve
// --history, which joins its reservations) are skipped, each counted by
// reason. Times are read as UTC: only their differences matter. O(lines).
func ReadSacct(r io.Reader, name string) (Log, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	l := Log{Name: name, Skipped: map[string]int{}}
	var col map[string]int
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
		j, why := sacctJob(f, col)
		if why != "" {
			l.Skipped[why]++
			continue
		}
		l.Jobs = append(l.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return l, usage.Errorf("%s: %v", name, err)
	}
	if col == nil {
		return l, usage.Errorf("%s: empty sacct dump", name)
	}
	return finish(l)
}

// sacctJob maps one sacct line; why says why it is skipped ("" when not).
func sacctJob(f []string, col map[string]int) (Job, string) {
	get := func(k string) string {
		if i, ok := col[k]; ok {
			return f[i]
		}
		return ""
	}
	state, _, _ := strings.Cut(strings.TrimSpace(get("State")), " ") // "CANCELLED by 0"
	limit, lerr := units.ParseSeconds(get("Timelimit"))
	run, rerr := strconv.ParseFloat(get("ElapsedRaw"), 64)
	submit, serr := time.ParseInLocation("2006-01-02T15:04:05", get("Submit"), time.UTC)
	start, terr := time.ParseInLocation("2006-01-02T15:04:05", get("Start"), time.UTC)
	switch {
	case strings.Contains(get("JobID"), "."):
		return Job{}, "job step"
	case strings.HasPrefix(get("Comment"), "ckpt:chain="):
		return Job{}, "ckpt chain reservation (learnt by ckpt reserve --history)"
	case state == "PENDING" || state == "RUNNING" || state == "REQUEUED" || state == "SUSPENDED":
		return Job{}, "not ended"
	case lerr != nil || !(limit > 0):
		return Job{}, "no time limit"
	case rerr != nil || !(run > 0):
		return Job{}, "run time unknown or 0"
	case serr != nil || terr != nil:
		return Job{}, "submit or start time unknown"
	}
	nodes, err := strconv.ParseInt(get("NNodes"), 10, 64)
	if err != nil {
		nodes = -1
	}
	return Job{Submit: float64(submit.Unix()), Wait: start.Sub(submit).Seconds(), Run: run, Requested: limit, Nodes: nodes,
		Who: Who{User: get("User"), Group: get("Account"), App: get("JobName"), Partition: get("Partition")}}, ""
}

// finish keeps a log with at least one job, its jobs in submit order.
func finish(l Log) (Log, error) {
	if len(l.Jobs) == 0 {
		return l, usage.Errorf("%s: none of the %d jobs has a run time, a requested time and a submit time (%v)", l.Name, l.Read, l.Skipped)
	}
	sortJobs(l.Jobs)
	return l, nil
}
