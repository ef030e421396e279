package profile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
)

// KiBPerGB converts the traces' KiB to the package's GB (10⁹ bytes).
const KiBPerGB = 1e9 / 1024

// Sample is one memory measurement: at time T (seconds) the node used Mem GB.
type Sample struct {
	T   float64
	Mem float64
}

// ReadTrace reads a memory trace of "t, usedKiB" lines (t in seconds, the
// used memory in KiB, as vmstat samples it; spaces around the comma are
// allowed, blank lines and lines starting with '#' are skipped, and a first
// line that is not numeric is taken as a header). Timestamps must increase
// strictly and lie within ±MaxSeconds, and memory must be finite, >= 0 and
// at most MaxMem GB. Errors are *trace.ParseError
// naming name and the line. An input without samples is an error.
func ReadTrace(r io.Reader, name string) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []Sample
	line := 0
	fail := func(format string, a ...any) error {
		return &trace.ParseError{Source: name, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Split(s, ",")
		if len(f) != 2 {
			if len(out) == 0 && line == 1 && len(f) > 0 {
				if _, err := strconv.ParseFloat(strings.TrimSpace(f[0]), 64); err != nil {
					continue // header
				}
			}
			return nil, fail("want 2 comma-separated fields \"t, usedKiB\", got %d in %q", len(f), s)
		}
		ts, ms := strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		t, err1 := strconv.ParseFloat(ts, 64)
		m, err2 := strconv.ParseFloat(ms, 64)
		if err1 != nil && line == 1 && len(out) == 0 {
			continue // header such as "t,usedKiB"
		}
		if err1 != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fail("time %q is not a finite number", ts)
		}
		if err2 != nil || math.IsNaN(m) || math.IsInf(m, 0) {
			return nil, fail("memory %q is not a finite number", ms)
		}
		if m < 0 {
			return nil, fail("memory %q is negative", ms)
		}
		if math.Abs(t) > MaxSeconds {
			return nil, fail("time %q is beyond %.0e s; check the units (seconds)", ts, float64(MaxSeconds))
		}
		if m/KiBPerGB > MaxMem {
			return nil, fail("memory %q KiB is beyond %.0e GB; check the units (KiB)", ms, float64(MaxMem))
		}
		if n := len(out); n > 0 && t <= out[n-1].T {
			return nil, fail("timestamp %v does not follow %v (timestamps must increase)", t, out[n-1].T)
		}
		out = append(out, Sample{T: t, Mem: m / KiBPerGB})
	}
	if err := sc.Err(); err != nil {
		return nil, &trace.ParseError{Source: name, Line: line + 1, Msg: err.Error()}
	}
	if len(out) == 0 {
		return nil, &trace.ParseError{Source: name, Msg: "empty trace: no sample"}
	}
	return out, nil
}

// Phase is one task of one run: how long it lasted and its peak memory.
type Phase struct {
	Duration float64 // seconds
	Peak     float64 // GB
}

// PhaseOf summarises the samples of one phase: Duration is the span of the
// timestamps (last − first; a phase of one sample lasts 0) and Peak the
// largest sample.
func PhaseOf(s []Sample) Phase {
	p := Phase{Duration: s[len(s)-1].T - s[0].T}
	for _, x := range s {
		p.Peak = math.Max(p.Peak, x.Mem)
	}
	return p
}

// Run is one execution of the application, phase by phase.
type Run struct {
	ID     string
	Phases []Phase
}

// Walltime is the sum of the phase durations.
func (r Run) Walltime() float64 {
	s := 0.0
	for _, p := range r.Phases {
		s += p.Duration
	}
	return s
}

// ReadOptions tunes ReadRuns.
type ReadOptions struct {
	// Phases, when > 0, is the number of phases every run must have:
	// whole-run traces segmented into another number are dropped (see
	// RunSet.Dropped), and per-phase folders with another number are an
	// error. 0 keeps the most common number of the whole-run traces.
	Phases int
	// Segment tunes the segmentation of whole-run traces.
	Segment SegmentOptions
}

// Dropped is a whole-run trace that ReadRuns left out because it was
// segmented into another number of phases than the runs kept.
type Dropped struct {
	ID     string // the run ID (the file name without .csv)
	Path   string
	Phases int // the number of phases Segment found
}

// RunSet is what ReadRuns found in a folder.
type RunSet struct {
	// Runs are the runs kept, in the order of their IDs; each has Phases
	// phases.
	Runs   []Run
	Phases int
	// Whole is true when the runs were whole-run traces cut by Segment.
	Whole bool
	// Dropped lists the whole-run traces segmented into another number of
	// phases, in the order of their IDs (always empty for per-phase
	// folders).
	Dropped []Dropped
}

// ErrPhaseTie is wrapped by the error of ReadRuns when no number of phases
// is the most common among whole-run traces (the caller must choose one
// with ReadOptions.Phases).
var ErrPhaseTie = errors.New("no number of phases is the most common")

// ReadRuns reads a folder of past runs in either layout:
//
//   - per-phase traces: one sub-folder per run (its name is the run ID)
//     holding task1.csv, task2.csv, … (read with ReadTrace). Every run
//     must have the same phases 1 … n with no gap: a missing phase, or
//     runs with different numbers of phases, is an error naming the
//     folder.
//   - whole-run traces: a folder without sub-folders but with ID.csv
//     files, each cut into phases by Segment. Segmentation is not
//     infallible (on the 88 DRD SLANT runs it finds 7 phases in 87 and 5
//     in one run where tasks 2-4 hold plateaus of the same height), so the
//     runs segmented into the most common number of phases (or
//     o.Phases) are kept and the others are reported in RunSet.Dropped
//     for the caller to warn about. A tie between two counts wraps
//     ErrPhaseTie.
//
// Runs are returned in the order of their IDs (numerically when they are
// numbers). Unreadable or malformed traces are errors naming the file and
// the line.
func ReadRuns(dir string, o ReadOptions) (*RunSet, error) {
	if o.Phases < 0 {
		return nil, fmt.Errorf("number of phases %d, want > 0 (or 0: the most common)", o.Phases)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids, whole []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		} else if strings.HasSuffix(e.Name(), ".csv") {
			whole = append(whole, e.Name())
		}
	}
	if len(ids) == 0 && len(whole) > 0 {
		return readWholeRuns(dir, whole, o)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no run folder (want ID/task1.csv …) and no whole-run trace (ID.csv)", dir)
	}
	sortIDs(ids)
	set := &RunSet{Phases: o.Phases}
	for _, id := range ids {
		run, err := readRunDir(filepath.Join(dir, id))
		if err != nil {
			return nil, err
		}
		run.ID = id
		switch {
		case set.Phases == 0:
			set.Phases = len(run.Phases)
		case len(run.Phases) != set.Phases && o.Phases > 0:
			return nil, fmt.Errorf("%s: %d phases, want %d", filepath.Join(dir, id), len(run.Phases), o.Phases)
		case len(run.Phases) != set.Phases:
			return nil, fmt.Errorf("%s: %d phases, but %s has %d", filepath.Join(dir, id), len(run.Phases), filepath.Join(dir, ids[0]), set.Phases)
		}
		set.Runs = append(set.Runs, run)
	}
	return set, nil
}

// ReadTasksDir is ReadRuns with the default options, strict: whole-run
// traces segmented into different numbers of phases are an error rather
// than dropped.
func ReadTasksDir(dir string) ([]Run, error) {
	set, err := ReadRuns(dir, ReadOptions{})
	if err != nil {
		return nil, err
	}
	if len(set.Dropped) > 0 {
		d := set.Dropped[0]
		return nil, fmt.Errorf("%s: segmented into %d phases, but %d other run(s) into %d", d.Path, d.Phases, len(set.Runs), set.Phases)
	}
	return set.Runs, nil
}

func readRunDir(dir string) (Run, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Run{}, err
	}
	idx := map[int]string{}
	maxK := 0
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasPrefix(n, "task") || !strings.HasSuffix(n, ".csv") {
			continue
		}
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(n, "task"), ".csv"))
		if err != nil || k < 1 {
			continue
		}
		idx[k] = n
		maxK = max(maxK, k)
	}
	if maxK == 0 {
		return Run{}, fmt.Errorf("%s: no phase trace (want task1.csv …)", dir)
	}
	var run Run
	for k := 1; k <= maxK; k++ {
		n, ok := idx[k]
		if !ok {
			return Run{}, fmt.Errorf("%s: phase %d is missing (task%d.csv)", dir, k, k)
		}
		path := filepath.Join(dir, n)
		f, err := os.Open(path)
		if err != nil {
			return Run{}, err
		}
		s, err := ReadTrace(f, path)
		f.Close()
		if err != nil {
			return Run{}, err
		}
		run.Phases = append(run.Phases, PhaseOf(s))
	}
	return run, nil
}

func sortIDs(ids []string) {
	sort.Slice(ids, func(i, j int) bool {
		a, ea := strconv.Atoi(strings.TrimSuffix(ids[i], ".csv"))
		b, eb := strconv.Atoi(strings.TrimSuffix(ids[j], ".csv"))
		if ea == nil && eb == nil {
			return a < b
		}
		return ids[i] < ids[j]
	})
}

// readWholeRuns segments every whole-run trace of dir and keeps the runs
// of o.Phases phases (0: the most common number).
func readWholeRuns(dir string, files []string, o ReadOptions) (*RunSet, error) {
	sortIDs(files)
	var all []Run
	var paths []string
	count := map[int]int{}
	for _, name := range files {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		s, err := ReadTrace(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		starts, err := Segment(s, o.Segment)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		run := Run{ID: strings.TrimSuffix(name, ".csv"), Phases: Phases(s, starts)}
		all = append(all, run)
		paths = append(paths, path)
		count[len(run.Phases)]++
	}
	want := o.Phases
	if want == 0 {
		best, tied := 0, false
		for n, c := range count {
			if c > best {
				want, best, tied = n, c, false
			} else if c == best {
				tied = true
			}
		}
		if tied {
			return nil, fmt.Errorf("%s: %w among the whole-run traces (%s)", dir, ErrPhaseTie, phaseCounts(count))
		}
	} else if count[want] == 0 {
		return nil, fmt.Errorf("%s: no whole-run trace segments into %d phases (%s)", dir, want, phaseCounts(count))
	}
	set := &RunSet{Phases: want, Whole: true}
	for i, r := range all {
		if len(r.Phases) == want {
			set.Runs = append(set.Runs, r)
		} else {
			set.Dropped = append(set.Dropped, Dropped{ID: r.ID, Path: paths[i], Phases: len(r.Phases)})
		}
	}
	return set, nil
}

// phaseCounts describes how many runs were segmented into each number of
// phases, most phases first: "7 phases: 87 runs, 5 phases: 1 run".
func phaseCounts(count map[int]int) string {
	var ns []int
	for n := range count {
		ns = append(ns, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ns)))
	var parts []string
	for _, n := range ns {
		runs := "runs"
		if count[n] == 1 {
			runs = "run"
		}
		parts = append(parts, fmt.Sprintf("%d phases: %d %s", n, count[n], runs))
	}
	return strings.Join(parts, ", ")
}
