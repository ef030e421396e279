package trace

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
)

// Google cluster trace (v2, May 2011) task event types.
const (
	GoogleSubmit        = 0
	GoogleSchedule      = 1
	GoogleEvict         = 2
	GoogleFail          = 3
	GoogleFinish        = 4
	GoogleKill          = 5
	GoogleLost          = 6
	GoogleUpdatePending = 7
	GoogleUpdateRunning = 8
)

// googleMaxTime is the trace's timestamp for events after its end (2⁶³−1).
const googleMaxTime = math.MaxInt64

// GoogleTaskEvent is one row of the task_events table of the Google
// cluster trace v2 (Reiss, Wilkes, Hellerstein, "Google cluster-usage
// traces: format + schema", 2011): 13 comma-separated columns
//
//	timestamp, missing info, job ID, task index, machine ID, event type,
//	user, scheduling class, priority, CPU request, memory request,
//	disk request, different-machine constraint
//
// Only the fields below are interpreted; the others may be empty.
type GoogleTaskEvent struct {
	Time      int64 // microseconds since 600 s before the trace's start; 0 = before, 2⁶³−1 = after it
	JobID     int64
	TaskIndex int64
	Machine   string // machine ID, empty when none
	Type      int    // GoogleSubmit … GoogleUpdateRunning
	User      string
	Priority  int // 0–11
}

// GoogleTaskEventReader streams a task_events table (plain or gzip). Blank
// lines and lines starting with "#" are skipped and counted. Memory: one
// line.
type GoogleTaskEventReader struct {
	records[GoogleTaskEvent]
}

// NewGoogleTaskEventReader returns a reader of r; name is used in errors.
func NewGoogleTaskEventReader(r io.Reader, name string) *GoogleTaskEventReader {
	return &GoogleTaskEventReader{records[GoogleTaskEvent]{src: r, name: name, parse: parseGoogleTaskEvent}}
}

func parseGoogleTaskEvent(ls *lineScanner, line string) (GoogleTaskEvent, error) {
	f := strings.Split(line, ",")
	if len(f) != 13 {
		return GoogleTaskEvent{}, ls.errorf("%d fields, task events have 13", len(f))
	}
	var n [4]int64
	for i, c := range []struct {
		col  int
		name string
	}{{0, "timestamp"}, {2, "job ID"}, {3, "task index"}, {8, "priority"}} {
		s := strings.TrimSpace(f[c.col])
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil || x < 0 {
			return GoogleTaskEvent{}, ls.errorf("invalid %s %s", c.name, quote(s))
		}
		n[i] = x
	}
	s := strings.TrimSpace(f[5])
	typ, err := strconv.Atoi(s)
	if err != nil || typ < GoogleSubmit || typ > GoogleUpdateRunning {
		return GoogleTaskEvent{}, ls.errorf("invalid event type %s: want 0 to 8", quote(s))
	}
	if n[3] > 11 {
		return GoogleTaskEvent{}, ls.errorf("invalid priority %d: want 0 to 11", n[3])
	}
	return GoogleTaskEvent{Time: n[0], JobID: n[1], TaskIndex: n[2], Machine: strings.TrimSpace(f[4]), Type: typ,
		User: strings.TrimSpace(f[6]), Priority: int(n[3])}, nil
}

// GooglePriorityStats are the failure statistics of one priority.
type GooglePriorityStats struct {
	Priority int `json:"priority"`
	// FailureCount counts the tasks scheduled at least once, the
	// interruptions followed by a new schedule (failures) and the length of
	// the segments that ended in one.
	FailureCount
	// MNOF is Failures/Tasks; MTBF the mean length of the segments that
	// ended in a failure (NaN without failure): FailureCount's.
	MNOF float64       `json:"mnof"`
	MTBF output.Number `json:"mtbf_s"`
	// Ends counts segment ends by event type (evict, fail, finish, kill,
	// lost), the last segment of each task included.
	Ends map[string]int `json:"ends"`
}

type googleTask struct {
	priority int
	running  bool
	start    int64 // of the current segment, µs
	last     int64 // time of the task's last event
	lastLen  float64
	ended    bool // the last segment ended with an interruption
	segments int
	failures int
	sum      float64 // seconds of the failed segments
}

// GoogleSegments turns task events into execution segments, as GloudSim
// does from the same table (Di et al., SC'13, Section 4.1): a segment runs
// from a SCHEDULE to the next EVICT, FAIL, KILL, LOST or FINISH of the task.
// A segment ended by EVICT, FAIL, KILL or LOST and followed by a new
// SCHEDULE is a failure, its length a failure interval; a task's last
// segment is censored whatever ended it. Tasks are keyed by (job ID, task
// index) and take the priority of their first SCHEDULE. Memory: one small
// record per task seen (O(tasks), not O(events)); events of a task must
// come in time order, as in the trace, and events after the trace's end
// (timestamp 2⁶³−1) are ignored.
type GoogleSegments struct {
	tasks  map[[2]int64]*googleTask
	ends   map[int]map[string]int
	events int
}

// NewGoogleSegments returns an empty accumulator.
func NewGoogleSegments() *GoogleSegments {
	return &GoogleSegments{tasks: map[[2]int64]*googleTask{}, ends: map[int]map[string]int{}}
}

var googleEndNames = map[int]string{GoogleEvict: "evict", GoogleFail: "fail", GoogleFinish: "finish", GoogleKill: "kill", GoogleLost: "lost"}

// Add counts one event.
func (g *GoogleSegments) Add(e GoogleTaskEvent) error {
	if e.Time == googleMaxTime {
		return nil
	}
	g.events++
	key := [2]int64{e.JobID, e.TaskIndex}
	t := g.tasks[key]
	if t != nil && e.Time < t.last {
		return fmt.Errorf("job %d task %d: event at %d µs before the task's previous event at %d µs", e.JobID, e.TaskIndex, e.Time, t.last)
	}
	switch e.Type {
	case GoogleSchedule:
		if t == nil {
			t = &googleTask{priority: e.Priority}
			g.tasks[key] = t
		}
		if t.running {
			return fmt.Errorf("job %d task %d: scheduled at %d µs while running", e.JobID, e.TaskIndex, e.Time)
		}
		if t.ended { // the previous segment was interrupted: a failure
			t.failures++
			t.sum += t.lastLen
		}
		t.running, t.start, t.ended = true, e.Time, false
		t.segments++
	case GoogleEvict, GoogleFail, GoogleKill, GoogleLost, GoogleFinish:
		if t == nil || !t.running {
			break // ends a task that was not running (killed while pending)
		}
		t.running = false
		t.lastLen = float64(e.Time-t.start) / 1e6
		t.ended = e.Type != GoogleFinish
		m := g.ends[t.priority]
		if m == nil {
			m = map[string]int{}
			g.ends[t.priority] = m
		}
		m[googleEndNames[e.Type]]++
	}
	if t != nil {
		t.last = e.Time
	}
	return nil
}

// Stats returns the statistics per priority, by priority.
func (g *GoogleSegments) Stats() []GooglePriorityStats {
	by := map[int]*GooglePriorityStats{}
	for _, t := range g.tasks {
		s := by[t.priority]
		if s == nil {
			s = &GooglePriorityStats{Priority: t.priority, Ends: g.ends[t.priority]}
			by[t.priority] = s
		}
		s.Add(t.failures, t.sum)
	}
	out := make([]GooglePriorityStats, 0, len(by))
	for _, s := range by {
		s.MNOF, s.MTBF = s.FailureCount.MNOF(), output.Number(s.FailureCount.MTBF())
		if s.Ends == nil {
			s.Ends = map[string]int{}
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
	return out
}

// EstimateGoogle reads a task_events table (one file; call
// NewGoogleSegments and Add to combine the trace's 500 parts) and returns
// MNOF and MTBF per priority. Errors name the file and line.
func EstimateGoogle(r io.Reader, name string) ([]GooglePriorityStats, error) {
	rd := NewGoogleTaskEventReader(r, name)
	g := NewGoogleSegments()
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return g.Stats(), nil
		}
		if err != nil {
			return nil, err
		}
		if err := g.Add(e); err != nil {
			return nil, errorf(name, rd.Line(), "%v", err)
		}
	}
}

// FailureCount is the failure history of a group of tasks, from which the
// MNOF and the MTBF are estimated as in Table 7 of Di et al. (SC'13): the
// one estimator of both, for Google task events and GloudSim traces alike.
type FailureCount struct {
	Tasks    int `json:"tasks"`    // tasks of the group
	Failures int `json:"failures"` // failures over all of them
	// Interrupted is the total length, in seconds, of the runs that ended
	// in a failure (the failure intervals).
	Interrupted float64 `json:"-"`
}

// Add counts one task with its failures and the total length of the runs
// they interrupted.
func (c *FailureCount) Add(failures int, interrupted float64) {
	c.Tasks++
	c.Failures += failures
	c.Interrupted += interrupted
}

// Plus is the count of the two groups together.
func (c FailureCount) Plus(d FailureCount) FailureCount {
	return FailureCount{Tasks: c.Tasks + d.Tasks, Failures: c.Failures + d.Failures, Interrupted: c.Interrupted + d.Interrupted}
}

// MNOF is the mean number of failures per task, Failures/Tasks; NaN for
// no task.
func (c FailureCount) MNOF() float64 {
	if c.Tasks == 0 {
		return math.NaN()
	}
	return float64(c.Failures) / float64(c.Tasks)
}

// MTBF is the mean failure interval, Interrupted/Failures: the mean
// uninterrupted run that ended in a failure; NaN without failure.
func (c FailureCount) MTBF() float64 {
	if c.Failures == 0 {
		return math.NaN()
	}
	return c.Interrupted / float64(c.Failures)
}
