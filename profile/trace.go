package profile

import (
	"bufio"
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
// strictly and memory must be finite and >= 0. Errors are *trace.ParseError
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

// ReadTasksDir reads a folder of per-phase traces: one sub-folder per run
// (its name is the run ID) holding task1.csv, task2.csv, … (read with
// ReadTrace). Runs are returned in the order of their IDs (numerically when
// they are numbers). Every run must have the same phases 1 … n with no gap;
// a missing phase is an error naming the folder.
//
// A folder without sub-folders but with ID.csv files is read as whole-run
// traces instead: each is cut into phases by Segment (default options),
// and every run must yield the same number of phases.
func ReadTasksDir(dir string) ([]Run, error) {
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
		return readWholeRuns(dir, whole)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no run folder (want ID/task1.csv …) and no whole-run trace (ID.csv)", dir)
	}
	sortIDs(ids)
	var runs []Run
	nPhases := 0
	for _, id := range ids {
		run, err := readRunDir(filepath.Join(dir, id))
		if err != nil {
			return nil, err
		}
		run.ID = id
		if nPhases == 0 {
			nPhases = len(run.Phases)
		} else if len(run.Phases) != nPhases {
			return nil, fmt.Errorf("%s: %d phases, but %s has %d", filepath.Join(dir, id), len(run.Phases), filepath.Join(dir, ids[0]), nPhases)
		}
		runs = append(runs, run)
	}
	return runs, nil
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

// Concat joins per-phase traces of one run into a whole-run trace.
func Concat(phases ...[]Sample) []Sample {
	var out []Sample
	for _, p := range phases {
		out = append(out, p...)
	}
	return out
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

// readWholeRuns segments every whole-run trace of dir.
func readWholeRuns(dir string, files []string) ([]Run, error) {
	sortIDs(files)
	var runs []Run
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
		starts, err := Segment(s, SegmentOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		run := Run{ID: strings.TrimSuffix(name, ".csv"), Phases: Phases(s, starts)}
		if len(runs) > 0 && len(run.Phases) != len(runs[0].Phases) {
			return nil, fmt.Errorf("%s: segmented into %d phases, but %s into %d", path, len(run.Phases), filepath.Join(dir, files[0]), len(runs[0].Phases))
		}
		runs = append(runs, run)
	}
	return runs, nil
}
