package trace

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/rng"
	"github.com/ckpt-hpc/ckpt/usage"
)

// FTA event types of the Failure Trace Archive's event_trace table.
const (
	FTAUnavailable = 0 // the component is down
	FTAAvailable   = 1 // the component is up
)

// FTAEvent is one row of a Failure Trace Archive event_trace table
// (Kondo et al., "The Failure Trace Archive", CCGrid 2010): tab-separated
//
//	event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason
//
// with times in Unix seconds and the interval [Start, Stop) in state Type.
type FTAEvent struct {
	EventID, ComponentID, NodeID, PlatformID int64
	NodeName                                 string
	Type                                     int // FTAUnavailable or FTAAvailable
	Start, Stop                              float64
	EndReason                                string // "NULL" when not recorded
}

// FTAReader streams an event_trace table, plain or gzip (detected from the
// magic bytes). Lines starting with "#" (the column header) and blank
// lines are skipped and counted; every other line must hold 9 fields
// separated by tabs (blanks around them ignored), integer ids, a type 0 or
// 1 and finite times with Start ≤ Stop. Memory: one line.
type FTAReader struct {
	records[FTAEvent]
}

// NewFTAReader returns a reader of the event trace r; name is used in
// errors.
func NewFTAReader(r io.Reader, name string) *FTAReader {
	return &FTAReader{records[FTAEvent]{src: r, name: name, parse: parseFTAEvent}}
}

var ftaFieldNames = [9]string{"event_id", "component_id", "node_id", "platform_id", "node_name", "event_type",
	"event_start_time", "event_stop_time", "event_end_reason"}

func parseFTAEvent(ls *lineScanner, line string) (FTAEvent, error) {
	f := strings.Split(line, "\t")
	if len(f) != 9 {
		return FTAEvent{}, ls.errorf("%d tab-separated fields, FTA event traces have 9 (%s)", len(f), strings.Join(ftaFieldNames[:], " "))
	}
	var ids [4]int64
	for i := range 4 {
		s := strings.TrimSpace(f[i])
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return FTAEvent{}, ls.errorf("invalid %s %s", ftaFieldNames[i], quote(s))
		}
		ids[i] = n
	}
	e := FTAEvent{EventID: ids[0], ComponentID: ids[1], NodeID: ids[2], PlatformID: ids[3],
		NodeName: strings.TrimSpace(f[4]), EndReason: strings.TrimSpace(f[8])}
	switch s := strings.TrimSpace(f[5]); s {
	case "0":
		e.Type = FTAUnavailable
	case "1":
		e.Type = FTAAvailable
	default:
		return e, ls.errorf("invalid event_type %s: want 0 (unavailable) or 1 (available)", quote(s))
	}
	for i, p := range []*float64{&e.Start, &e.Stop} {
		s := strings.TrimSpace(f[6+i])
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return e, ls.errorf("invalid %s %s", ftaFieldNames[6+i], quote(s))
		}
		*p = x
	}
	if e.Stop < e.Start {
		return e, ls.errorf("event_stop_time %s before event_start_time %s", fmtFloat(e.Stop), fmtFloat(e.Start))
	}
	return e, nil
}

// FTANode is the availability record of one node.
type FTANode struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	System   string  `json:"system"`   // the node name up to its last "/" (a Grid'5000 cluster)
	Failures int     `json:"failures"` // available → unavailable transitions
	Up       float64 `json:"up_s"`     // seconds available
	Down     float64 `json:"down_s"`   // seconds unavailable
	// MTBF is Up/Failures (+Inf without failure): the mean available time
	// between failures, counting the censored last period.
	MTBF output.Number `json:"mtbf_s"`
}

// FTASystem aggregates the nodes of one system.
type FTASystem struct {
	Name     string  `json:"name"`
	Nodes    int     `json:"nodes"`
	Failures int     `json:"failures"`
	Up       float64 `json:"up_s"`
	// NodeMTBF is ΣUp/ΣFailures: the MTBF of one node of the system.
	NodeMTBF output.Number `json:"node_mtbf_s"`
	// MTBF is Span/Failures: the mean time between failures of any node
	// of the system, Span running from its first event to its last.
	MTBF output.Number `json:"mtbf_s"`
	Span float64       `json:"span_s"`
}

// FTAOptions tune EstimateFTA.
type FTAOptions struct {
	// Reservoir bounds the number of inter-failure times kept for the fit
	// (uniform reservoir sampling beyond it); 0 means DefaultFTAReservoir.
	Reservoir int
	// Seed drives the reservoir sampling (only used beyond Reservoir).
	Seed uint64
}

// DefaultFTAReservoir is the default number of inter-failure times kept.
const DefaultFTAReservoir = 1 << 19

// FTAStats are the failure statistics of an FTA event trace.
type FTAStats struct {
	Events   int     `json:"events"`
	Failures int     `json:"failures"`
	Up       float64 `json:"up_s"`
	Down     float64 `json:"down_s"`
	// NodeMTBF is ΣUp/ΣFailures over all nodes: one node's MTBF.
	NodeMTBF output.Number `json:"node_mtbf_s"`
	// MTBF is Span/Failures: the platform's mean time between failures.
	MTBF    output.Number `json:"mtbf_s"`
	Span    float64       `json:"span_s"`
	Nodes   []FTANode     `json:"nodes"`   // by node id
	Systems []FTASystem   `json:"systems"` // by name
	// Intervals counts the complete inter-failure times (available time
	// from a repair, or the node's first event, to the next failure);
	// Sampled of them (all when Intervals ≤ Reservoir) are kept in Sample.
	Intervals int `json:"intervals"`
	Sampled   int `json:"sampled"`
	// Sample holds the Sampled inter-failure times (> 0) kept, in reservoir
	// order: the sample a law is fitted to (trace only reads; interval fits).
	Sample []float64 `json:"-"`
}

type ftaNodeState struct {
	FTANode
	first, last float64
	lastType    int
	started     bool
	upRun       float64 // available time since the last failure
}

// FTAEstimator accumulates FTA events one at a time: memory O(nodes +
// Reservoir), whatever the number of events. Events of a node must come in
// time order (starts not decreasing); nodes may interleave.
type FTAEstimator struct {
	opts      FTAOptions
	nodes     map[int64]*ftaNodeState
	sample    []float64
	intervals int
	events    int
	rnd       *rand.Rand
}

// NewFTAEstimator returns an empty estimator.
func NewFTAEstimator(o FTAOptions) *FTAEstimator {
	if o.Reservoir <= 0 {
		o.Reservoir = DefaultFTAReservoir
	}
	return &FTAEstimator{opts: o, nodes: map[int64]*ftaNodeState{}, rnd: rng.New(o.Seed)}
}

// Add counts one event. A failure is an unavailable event following an
// available one of the same node; the available time accumulated since the
// node's previous failure (or its first event) is then one inter-failure
// time. It refuses an event that starts before the previous event of its
// node.
func (e *FTAEstimator) Add(ev FTAEvent) error {
	n := e.nodes[ev.NodeID]
	if n == nil {
		sys := ""
		if i := strings.LastIndexByte(ev.NodeName, '/'); i >= 0 {
			sys = ev.NodeName[:i]
		}
		n = &ftaNodeState{FTANode: FTANode{ID: ev.NodeID, Name: ev.NodeName, System: sys}, first: ev.Start, lastType: -1}
		e.nodes[ev.NodeID] = n
	}
	if n.started && ev.Start < n.last {
		return fmt.Errorf("node %d: event %d starts at %s, before the node's previous event (%s)", ev.NodeID, ev.EventID, fmtFloat(ev.Start), fmtFloat(n.last))
	}
	n.started = true
	n.last = ev.Start
	d := ev.Stop - ev.Start
	if ev.Type == FTAAvailable {
		n.Up += d
		n.upRun += d
	} else {
		n.Down += d
		if n.lastType == FTAAvailable {
			n.Failures++
			e.addInterval(n.upRun)
		}
		n.upRun = 0
	}
	n.lastType = ev.Type
	n.last = math.Max(n.last, ev.Stop)
	e.events++
	return nil
}

// addInterval keeps x in the reservoir (Vitter's algorithm R).
func (e *FTAEstimator) addInterval(x float64) {
	e.intervals++
	if x <= 0 {
		return
	}
	if len(e.sample) < e.opts.Reservoir {
		e.sample = append(e.sample, x)
		return
	}
	if k := e.rnd.IntN(e.intervals); k < e.opts.Reservoir {
		e.sample[k] = x
	}
}

// Stats computes the statistics of the events added so far, with a copy of
// the sample of inter-failure times. O(nodes log nodes + sample).
func (e *FTAEstimator) Stats() FTAStats {
	s := FTAStats{Events: e.events, Intervals: e.intervals, Sampled: len(e.sample)}
	systems := map[string]*FTASystem{}
	first, last := math.Inf(1), math.Inf(-1)
	sysSpan := map[string][2]float64{}
	for _, n := range e.nodes {
		n.MTBF = mtbf(n.Up, n.Failures)
		s.Nodes = append(s.Nodes, n.FTANode)
		s.Failures += n.Failures
		s.Up += n.Up
		s.Down += n.Down
		first, last = math.Min(first, n.first), math.Max(last, n.last)
		sy := systems[n.System]
		if sy == nil {
			sy = &FTASystem{Name: n.System}
			systems[n.System] = sy
			sysSpan[n.System] = [2]float64{n.first, n.last}
		}
		sy.Nodes++
		sy.Failures += n.Failures
		sy.Up += n.Up
		sp := sysSpan[n.System]
		sysSpan[n.System] = [2]float64{math.Min(sp[0], n.first), math.Max(sp[1], n.last)}
	}
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].ID < s.Nodes[j].ID })
	for name, sy := range systems {
		sy.Span = sysSpan[name][1] - sysSpan[name][0]
		sy.NodeMTBF, sy.MTBF = mtbf(sy.Up, sy.Failures), mtbf(sy.Span, sy.Failures)
		s.Systems = append(s.Systems, *sy)
	}
	sort.Slice(s.Systems, func(i, j int) bool { return s.Systems[i].Name < s.Systems[j].Name })
	if len(e.nodes) > 0 {
		s.Span = last - first
	}
	s.NodeMTBF, s.MTBF = mtbf(s.Up, s.Failures), mtbf(s.Span, s.Failures)
	s.Sample = append([]float64(nil), e.sample...)
	return s
}

func mtbf(t float64, failures int) output.Number {
	if failures == 0 {
		return output.Number(math.Inf(1))
	}
	return output.Number(t / float64(failures))
}

// ExpectedFailures is E(Y) for a task of te seconds of available time on
// the named nodes (names or decimal ids): te·Σ 1/MTBF_i, each node failing
// as a Poisson process at its observed rate Failures_i/Up_i and any node's
// failure interrupting the task (Corollary 1 of Di et al.: E(Y) = Te/MTBF
// with the nodes' combined MTBF). A node unknown to the trace is an error.
func (s FTAStats) ExpectedFailures(te float64, nodes []string) (float64, error) {
	if !(te >= 0) || math.IsInf(te, 0) {
		return math.NaN(), fmt.Errorf("task length %v: must be >= 0 and finite", te)
	}
	if len(nodes) == 0 {
		return math.NaN(), fmt.Errorf("no node given")
	}
	rate := 0.0
	for _, name := range nodes {
		n, ok := s.node(name)
		if !ok {
			return math.NaN(), fmt.Errorf("node %q is not in the trace", name)
		}
		if n.Failures > 0 {
			rate += float64(n.Failures) / n.Up
		}
	}
	return te * rate, nil
}

// ExpectedFailuresOn is E(Y) for a task of te seconds on k typical nodes:
// k·te/NodeMTBF (0 when no node failed).
func (s FTAStats) ExpectedFailuresOn(te float64, k int) float64 {
	if s.Failures == 0 {
		return 0
	}
	return float64(k) * te / float64(s.NodeMTBF)
}

func (s FTAStats) node(name string) (FTANode, bool) {
	id, err := strconv.ParseInt(name, 10, 64)
	for _, n := range s.Nodes {
		if n.Name == name || err == nil && n.ID == id {
			return n, true
		}
	}
	return FTANode{}, false
}

// EstimateFTA streams an event_trace table (plain or gzip) into an
// FTAEstimator. Errors name the file and line.
func EstimateFTA(r io.Reader, name string, o FTAOptions) (FTAStats, error) {
	fr := NewFTAReader(r, name)
	est := NewFTAEstimator(o)
	for {
		ev, err := fr.Next()
		if err == io.EOF {
			return est.Stats(), nil
		}
		if err != nil {
			return FTAStats{}, err
		}
		if err := est.Add(ev); err != nil {
			return FTAStats{}, errorf(name, fr.Line(), "%v", err)
		}
	}
}

// FTAEventTrace finds the event trace of an FTA data set in dir: the one
// file named *event_trace.tab or *event_trace.tab.gz.
func FTAEventTrace(dir string) (string, error) {
	var found []string
	for _, pat := range []string{"*event_trace.tab", "*event_trace.tab.gz"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return "", err
		}
		found = append(found, m...)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s: no FTA event trace (*event_trace.tab or .tab.gz)", dir)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s: several FTA event traces (%s): give the file", dir, strings.Join(found, ", "))
}

// ReadFTAFile estimates the statistics of an FTA data set: path is the
// event trace itself or a folder holding one (FTAEventTrace). This is the
// one way ckpt loads FTA data from a path (ckpt interval --fta).
func ReadFTAFile(path string, o FTAOptions) (FTAStats, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if path, err = FTAEventTrace(path); err != nil {
			return FTAStats{}, usage.Wrap(err)
		}
	}
	f, err := usage.Open(path)
	if err != nil {
		return FTAStats{}, err
	}
	defer f.Close()
	return EstimateFTA(f, filepath.Base(path), o)
}
