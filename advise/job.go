package advise

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Job is one ended job of a log, in the advisor's terms. Times are seconds.
type Job struct {
	Submit    float64 // submit time
	Wait      float64 // queue wait, -1 when unknown
	Run       float64 // run time as logged
	Requested float64 // the user's requested time (the limit)
	Nodes     int64   // processors or nodes used (SWF allocated, else requested)
	Who               // user, account, job name, queue, partition
	// Chain is the ID of the ckpt chain whose reservations this run joins
	// ("" for one job); EndAt, when > 0, is its logged end (the end of
	// its last reservation).
	Chain string
	EndAt float64
	// Complete says the run is known to have completed (a chain that did):
	// it is never taken as censored.
	Complete bool
	// ID is the job's accounting ID (sacct JobID, "chain:ID" for a ckpt
	// chain; "" when the log has none): a job that had not ended at one
	// learn is taken by ID at the next.
	ID string
}

// Who identifies a job's workload: each field is "" when unknown.
type Who struct {
	User      string `json:"user,omitempty"`
	Group     string `json:"group,omitempty"` // group or account
	App       string `json:"app,omitempty"`   // job name, or the SWF executable number
	Queue     string `json:"queue,omitempty"`
	Partition string `json:"partition,omitempty"`
}

func id(v int64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// End is the job's end time as logged: EndAt when known, else submit +
// wait + run (a job whose wait is unknown is taken to start at once).
func (j Job) End() float64 {
	if j.EndAt > 0 {
		return j.EndAt
	}
	return j.Submit + math.Max(j.Wait, 0) + j.Run
}

// Tolerance is how close to its limit a run must end to count as killed at
// the limit (censored): max(1 s, 1 % of the limit).
func Tolerance(requested float64) float64 { return math.Max(1, 0.01*requested) }

// Censored reports whether the job hit its limit: its true length is
// unknown, at least its request.
func (j Job) Censored() bool {
	return !j.Complete && j.Run >= j.Requested-Tolerance(j.Requested)
}

// Length is the length the advisor learns and the replay plays: the run,
// or the request for a censored run (a lower bound of the true length).
func (j Job) Length() float64 {
	if j.Censored() {
		return j.Requested
	}
	return j.Run
}

// NodeClass is ⌈log2 n⌉ (0 for one node, -1 when unknown).
func NodeClass(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return int64(bits.Len64(uint64(n - 1)))
}

// FromSWF maps an SWF job; ok is false for a job the advisor cannot use
// (no run time, no request, no submit time) and why says which.
func FromSWF(s trace.SWFJob) (j Job, ok bool, why string) {
	switch {
	case s.RunTime <= 0:
		return j, false, "run time unknown or 0"
	case s.RequestedTime <= 0:
		return j, false, "requested time unknown"
	case s.SubmitTime < 0:
		return j, false, "submit time unknown"
	}
	nodes := s.AllocatedProcs
	if nodes <= 0 {
		nodes = s.RequestedProcs
	}
	return Job{Submit: s.SubmitTime, Wait: s.WaitTime, Run: s.RunTime, Requested: s.RequestedTime,
		Nodes: nodes, Who: Who{User: id(s.UserID), Group: id(s.GroupID), App: id(s.Executable),
			Queue: id(s.Queue), Partition: id(s.Partition)}}, true, ""
}

// Log is a job log read for the advisor: the usable jobs in submit order and
// how many lines were skipped, by reason.
type Log struct {
	Name    string         `json:"name"`
	Jobs    []Job          `json:"-"`
	Read    int            `json:"read"`
	Skipped map[string]int `json:"skipped,omitempty"`
	// Chains counts the runs joined from ckpt chains' reservations
	// (sacct dumps).
	Chains int `json:"chains,omitempty"`
	// Unended is the earliest submit time of a job or chain of the log
	// that had not ended (+Inf when none, 0 for logs that cannot tell).
	Unended float64 `json:"-"`
	// Waiting lists the jobs and chains that had not ended; Listed holds
	// the ID of every job and chain of the log, ended or not.
	Waiting []Waiting       `json:"-"`
	Listed  map[string]bool `json:"-"`
}

// Waiting is a job (or chain) of a log that has not ended.
type Waiting struct {
	ID, State string
	Submit    float64
}

// ReadSWF reads an SWF log (gzip recognised) or, when name ends in ".rst",
// a CQSim result file (whose waits are simulated, so dropped). Slurm's
// sacct dumps are read by package advise/logs.
func ReadSWF(r io.Reader, name string) (Log, error) {
	var sw []trace.SWFJob
	var err error
	if strings.HasSuffix(strings.TrimSuffix(name, ".gz"), ".rst") {
		sw, err = trace.ReadCQSim(r, name)
	} else {
		_, sw, err = trace.ReadSWF(r, name)
	}
	if err != nil {
		return Log{}, usage.Wrap(err)
	}
	return FromSWFJobs(filepath.Base(name), sw)
}

// FromSWFJobs keeps the usable jobs of sw, sorted by submit time (stable).
func FromSWFJobs(name string, sw []trace.SWFJob) (Log, error) {
	l := Log{Name: name, Read: len(sw), Skipped: map[string]int{}}
	for _, s := range sw {
		j, ok, why := FromSWF(s)
		if !ok {
			l.Skipped[why]++
			continue
		}
		l.Jobs = append(l.Jobs, j)
	}
	if len(l.Jobs) == 0 {
		return l, usage.Errorf("%s: none of the %d jobs has a run time, a requested time and a submit time", name, len(sw))
	}
	SortJobs(l.Jobs)
	return l, nil
}

// SortJobs sorts jobs by submit time (stable).
func SortJobs(jobs []Job) {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
}

// ReadSWFFile opens and reads path with ReadSWF (a missing file is a
// usage error).
func ReadSWFFile(path string) (Log, error) {
	f, err := usage.Open(path)
	if err != nil {
		return Log{}, err
	}
	defer f.Close()
	l, err := ReadSWF(f, path)
	if err != nil {
		return l, fmt.Errorf("%w", err)
	}
	return l, nil
}
