package trace

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/usage"
)

// GloudSimMaxOverlap is the largest overlap, in seconds, between a segment
// and the previous one of the same task that ReadGloudSim tolerates.
const GloudSimMaxOverlap = 1.0

// GloudSimTrace is a whole GloudSim job trace file ("jobTrace-dec.dat" of
// the GloudSim simulator): real jobs of the Google cluster trace of May
// 2011, each with its tasks and, for each task, its execution segments. The
// text is indented by level (indentation is not checked, the line's key is):
//
//	jtMeanLength=2579.4517
//	  pjcMeanLength=952.4605  priority=4
//	    jobID:6451259517 jobMeanLength=100.0  mkspan=652.5  start=2124002.5  s=2  vs=1
//	      btMeanLength=100.0  sTime=2124002.5  totalTaskLength=652.5  wclockLength=654.0
//	        0 0.0 100.0 100.0
//	        0 101.5 654.0 552.5
//
// A segment line is "taskIndex start end duration", in seconds from the
// task's start. A segment is an uninterrupted execution; every segment but
// the last ended with a failure event of the Google trace (evict, kill,
// fail, lost) after which the task was restarted from scratch, so a task
// with k+1 segments failed k times. These are the failure counts and
// uninterrupted work intervals from which Di et al. ("Optimization of
// cloud task processing with checkpoint-restart mechanism", SC'13) estimate
// MNOF (mean number of failures per task, Theorem 1 / Formula (3)) and MTBF
// (Young's formula), per priority (Table 7). The GloudSim sample keeps only
// jobs in which at least half of the tasks failed at least once.
//
// Validation and tolerances: values are written by Java from float32, so a
// segment's duration may differ from end − start by rounding; a difference
// up to 1 ms + 1e-6 × |end| is accepted (the real files reach 0.03 s at
// end ≈ 7.3e5 s), and a task's totalTaskLength must equal the sum of its
// durations within 1 ms + 1e-6 × n × total for n segments, its wclockLength
// the end of its last segment within the segment tolerance. Segments must be
// in order: a segment starting before the previous one starts is an error.
// A segment may start before the previous one ended by at most
// GloudSimMaxOverlap seconds (the paper notes that a restarted task may run
// on a host with a different clock; the real batch and mix files contain
// one such segment, 0.85 s early); such overlaps are counted in
// GloudSimTrace.Overlaps. Larger overlaps are errors. Mean-length fields may
// be NaN (no failure interval to average); all other values must be
// finite, durations ≥ 0.
type GloudSimTrace struct {
	// MeanLength is jtMeanLength, GloudSim's mean failure interval over
	// the whole sample (NaN when absent).
	MeanLength float64
	// PriorityMeanLength maps each priority group of the file to its
	// pjcMeanLength (NaN when the group has no failure interval).
	PriorityMeanLength map[int]float64
	// Jobs in file order (grouped by priority, in the file's group order).
	Jobs []GloudSimJob
	// Overlaps lists the lines of segments that start before the previous
	// segment of their task ended, within GloudSimMaxOverlap.
	Overlaps []int
	// Skipped counts blank lines, the only lines skipped.
	Skipped int
}

// GloudSimJob is a Google job with its tasks.
type GloudSimJob struct {
	ID int64 // Google job ID
	// Priority is the Google priority group of the job, 0–11 as in the
	// file; the paper numbers priorities 1–12 (Priority+1), as does
	// GloudSim's ReadJobTrace.
	Priority int
	// MeanLength is jobMeanLength, the mean failure interval of the job's
	// tasks (NaN when absent).
	MeanLength float64
	// Makespan is mkspan: the longest total execution length
	// (TotalLength) among the job's tasks, excluding restart delays.
	Makespan float64
	// Start is the job's start, seconds since the start of the trace.
	Start float64
	// Size is "s", GloudSim's job size: the number of segments over all
	// tasks in the real files. VSize is "vs", which GloudSim does not
	// document (vs ≤ s in the real files). Neither is checked.
	Size, VSize int
	Tasks       []GloudSimTask
	Line        int // line of the jobID line
}

// GloudSimTask is one task of a job (a "batch task" in GloudSim) and its
// execution segments.
type GloudSimTask struct {
	Index int // task index within the job
	// MeanLength is btMeanLength, the mean of FailureIntervals (NaN when
	// the task never failed).
	MeanLength float64
	// Start is sTime, the task's first start, seconds since trace start.
	Start float64
	// TotalLength is totalTaskLength, the sum of the segment durations:
	// execution time including the work lost to failures.
	TotalLength float64
	// WallClock is wclockLength, the end of the last segment: the task's
	// wall-clock length including restart delays.
	WallClock float64
	Segments  []Segment // in time order, at least one
	Line      int       // line of the btMeanLength line
}

// Segment is one uninterrupted execution of a task.
type Segment struct {
	Start, End float64 // seconds from the task's start
	Duration   float64 // as recorded; End − Start up to rounding
	Line       int
}

// FailureIntervals are the uninterrupted work intervals that ended in a
// failure: the durations of all segments but the last, in order. They are
// the samples of the time between failures (MTBF is their mean; their mean
// is also the file's btMeanLength). The last segment ended with the task's
// completion and is a censored observation, not a failure interval.
func (t GloudSimTask) FailureIntervals() []float64 {
	if len(t.Segments) < 2 {
		return nil
	}
	out := make([]float64, len(t.Segments)-1)
	for i := range out {
		out[i] = t.Segments[i].Duration
	}
	return out
}

// ReadGloudSim reads a GloudSim job trace (see the format above). The
// structure is checked (a segment before any task, a task before any job, a
// job before any priority group, a job without tasks or a task without
// segments is an error), as are the segments' order and durations. One
// pass; memory is linear in the number of segments.
func ReadGloudSim(r io.Reader, name string) (GloudSimTrace, error) {
	tr := GloudSimTrace{MeanLength: math.NaN(), PriorityMeanLength: map[int]float64{}}
	ls := newLineScanner(r, name)
	prio, havePrio := 0, false
	var job *GloudSimJob
	var task *GloudSimTask
	// endTask checks the task just completed.
	endTask := func() error {
		if task == nil {
			return nil
		}
		t := task
		task = nil
		if len(t.Segments) == 0 {
			return errorf(name, t.Line, "task has no segment lines")
		}
		sum := 0.0
		for _, s := range t.Segments {
			sum += s.Duration
		}
		n := float64(len(t.Segments))
		if math.Abs(sum-t.TotalLength) > 1e-3+1e-6*n*math.Abs(sum) {
			return errorf(name, t.Line, "totalTaskLength %v differs from the sum of segment durations %v", t.TotalLength, sum)
		}
		last := t.Segments[len(t.Segments)-1].End
		if math.Abs(last-t.WallClock) > segTol(last) {
			return errorf(name, t.Line, "wclockLength %v differs from the end of the last segment %v", t.WallClock, last)
		}
		return nil
	}
	endJob := func() error {
		if err := endTask(); err != nil {
			return err
		}
		if job != nil && len(job.Tasks) == 0 {
			return errorf(name, job.Line, "job %d has no tasks", job.ID)
		}
		job = nil
		return nil
	}
	for ls.scan() {
		t := strings.TrimSpace(ls.text)
		switch {
		case t == "":
			tr.Skipped++
		case strings.HasPrefix(t, "jtMeanLength="):
			kv, err := keyValues(ls, t)
			if err != nil {
				return GloudSimTrace{}, err
			}
			if tr.MeanLength, err = kv.float("jtMeanLength", true); err != nil {
				return GloudSimTrace{}, err
			}
		case strings.HasPrefix(t, "pjcMeanLength="):
			if err := endJob(); err != nil {
				return GloudSimTrace{}, err
			}
			kv, err := keyValues(ls, t)
			if err != nil {
				return GloudSimTrace{}, err
			}
			m, err := kv.float("pjcMeanLength", true)
			if err != nil {
				return GloudSimTrace{}, err
			}
			if prio, err = kv.int("priority"); err != nil {
				return GloudSimTrace{}, err
			}
			if _, dup := tr.PriorityMeanLength[prio]; dup {
				return GloudSimTrace{}, ls.errorf("priority %d appears twice", prio)
			}
			tr.PriorityMeanLength[prio] = m
			havePrio = true
		case strings.HasPrefix(t, "jobID:"):
			if err := endJob(); err != nil {
				return GloudSimTrace{}, err
			}
			if !havePrio {
				return GloudSimTrace{}, ls.errorf("job before any pjcMeanLength/priority line")
			}
			j, err := parseGloudJob(ls, t)
			if err != nil {
				return GloudSimTrace{}, err
			}
			j.Priority = prio
			tr.Jobs = append(tr.Jobs, j)
			job = &tr.Jobs[len(tr.Jobs)-1]
		case strings.HasPrefix(t, "btMeanLength="):
			if err := endTask(); err != nil {
				return GloudSimTrace{}, err
			}
			if job == nil {
				return GloudSimTrace{}, ls.errorf("task before any jobID line")
			}
			tk, err := parseGloudTask(ls, t)
			if err != nil {
				return GloudSimTrace{}, err
			}
			job.Tasks = append(job.Tasks, tk)
			task = &job.Tasks[len(job.Tasks)-1]
		default:
			if task == nil {
				return GloudSimTrace{}, ls.errorf("unexpected line %s", quote(t))
			}
			if err := addSegment(ls, &tr, task, t); err != nil {
				return GloudSimTrace{}, err
			}
		}
	}
	if err := ls.err(); err != nil {
		return GloudSimTrace{}, err
	}
	if err := endJob(); err != nil {
		return GloudSimTrace{}, err
	}
	if len(tr.Jobs) == 0 {
		return GloudSimTrace{}, errorf(name, 0, "no jobs")
	}
	return tr, nil
}

// segTol is the rounding tolerance for a segment ending at end.
func segTol(end float64) float64 { return 1e-3 + 1e-6*math.Abs(end) }

func parseGloudJob(ls *lineScanner, t string) (GloudSimJob, error) {
	idStr, rest, _ := strings.Cut(strings.TrimPrefix(t, "jobID:"), " ")
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil {
		return GloudSimJob{}, ls.errorf("invalid jobID %s", quote(idStr))
	}
	kv, err := keyValues(ls, rest)
	if err != nil {
		return GloudSimJob{}, err
	}
	j := GloudSimJob{ID: id, Line: ls.line}
	if j.MeanLength, err = kv.float("jobMeanLength", true); err != nil {
		return j, err
	}
	if j.Makespan, err = kv.nonNegative("mkspan"); err != nil {
		return j, err
	}
	if j.Start, err = kv.nonNegative("start"); err != nil {
		return j, err
	}
	if j.Size, err = kv.int("s"); err != nil {
		return j, err
	}
	if j.VSize, err = kv.int("vs"); err != nil {
		return j, err
	}
	return j, nil
}

func parseGloudTask(ls *lineScanner, t string) (GloudSimTask, error) {
	kv, err := keyValues(ls, t)
	if err != nil {
		return GloudSimTask{}, err
	}
	tk := GloudSimTask{Index: -1, Line: ls.line}
	if tk.MeanLength, err = kv.float("btMeanLength", true); err != nil {
		return tk, err
	}
	if tk.Start, err = kv.nonNegative("sTime"); err != nil {
		return tk, err
	}
	if tk.TotalLength, err = kv.nonNegative("totalTaskLength"); err != nil {
		return tk, err
	}
	if tk.WallClock, err = kv.nonNegative("wclockLength"); err != nil {
		return tk, err
	}
	return tk, nil
}

// addSegment parses "taskIndex start end duration" and checks it against
// the task's previous segment.
func addSegment(ls *lineScanner, tr *GloudSimTrace, task *GloudSimTask, t string) error {
	f := strings.Fields(t)
	if len(f) != 4 {
		return ls.errorf("segment has %d fields, want 4 (taskIndex start end duration): %s", len(f), quote(t))
	}
	idx, err := strconv.Atoi(f[0])
	if err != nil || idx < 0 {
		return ls.errorf("invalid task index %s", quote(f[0]))
	}
	var v [3]float64
	for i, what := range []string{"start", "end", "duration"} {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return ls.errorf("invalid segment %s %s", what, quote(f[i+1]))
		}
		v[i] = x
	}
	s := Segment{Start: v[0], End: v[1], Duration: v[2], Line: ls.line}
	if task.Index < 0 {
		task.Index = idx
	} else if idx != task.Index {
		return ls.errorf("segment of task %d inside task %d", idx, task.Index)
	}
	if s.End < s.Start {
		return ls.errorf("segment ends at %s before it starts at %s", quote(f[2]), quote(f[1]))
	}
	if math.Abs(s.End-s.Start-s.Duration) > segTol(s.End) {
		return ls.errorf("segment duration %s differs from end − start = %v", quote(f[3]), s.End-s.Start)
	}
	if n := len(task.Segments); n > 0 {
		prev := task.Segments[n-1]
		if s.Start < prev.Start {
			return ls.errorf("segment out of order: starts at %s, before the previous segment (line %d) starts at %v", quote(f[1]), prev.Line, prev.Start)
		}
		if s.Start < prev.End {
			if prev.End-s.Start > GloudSimMaxOverlap {
				return ls.errorf("segment starts at %s, %.3g s before the previous segment (line %d) ends at %v", quote(f[1]), prev.End-s.Start, prev.Line, prev.End)
			}
			tr.Overlaps = append(tr.Overlaps, ls.line)
		}
	}
	task.Segments = append(task.Segments, s)
	return nil
}

// kvLine holds the key=value pairs of one line.
type kvLine struct {
	ls *lineScanner
	m  map[string]string
}

func keyValues(ls *lineScanner, t string) (kvLine, error) {
	m := map[string]string{}
	for _, f := range strings.Fields(t) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return kvLine{}, ls.errorf("expected key=value, got %s", quote(f))
		}
		if _, dup := m[k]; dup {
			return kvLine{}, ls.errorf("duplicate key %s", quote(k))
		}
		m[k] = v
	}
	return kvLine{ls: ls, m: m}, nil
}

// float returns a finite value, or NaN when allowNaN.
func (kv kvLine) float(key string, allowNaN bool) (float64, error) {
	s, ok := kv.m[key]
	if !ok {
		return 0, kv.ls.errorf("missing %s", key)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || (math.IsNaN(x) && !allowNaN) {
		return 0, kv.ls.errorf("invalid %s %s", key, quote(s))
	}
	return x, nil
}

func (kv kvLine) nonNegative(key string) (float64, error) {
	x, err := kv.float(key, false)
	if err == nil && x < 0 {
		return 0, kv.ls.errorf("invalid %s %s: negative", key, quote(kv.m[key]))
	}
	return x, err
}

func (kv kvLine) int(key string) (int, error) {
	s, ok := kv.m[key]
	if !ok {
		return 0, kv.ls.errorf("missing %s", key)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, kv.ls.errorf("invalid %s %s", key, quote(s))
	}
	return n, nil
}

// GloudSimData is the GloudSim job trace of kind "single", "batch" or
// "mix" inside ckpt's data folder, as path elements for datadir.Path.
func GloudSimData(kind string) []string {
	return []string{"google2011", "gloudsim-task-traces", kind + "-jobTrace-dec.dat"}
}

// ReadGloudSimFile reads the GloudSim job trace at path (errors name the
// path and the line).
func ReadGloudSimFile(path string) (GloudSimTrace, error) {
	f, err := usage.Open(path)
	if err != nil {
		return GloudSimTrace{}, err
	}
	defer f.Close()
	return ReadGloudSim(f, path)
}
