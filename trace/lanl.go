package trace

import (
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/usage"
)

// LANLFailure is one record of the Los Alamos failure data 1996–2005
// (LA-UR-05-7318; acknowledge Los Alamos National Laboratory when using
// it): an interrupt of one node of one system, with its root cause. The
// CSV has 26 columns (see the file's README): system, machine type, nodes,
// processors total, processors per node, node number (as it existed, and
// from zero), node install, production and decommission dates, FRU type,
// memory, CPU type, memory type, number of interconnects, node purpose,
// problem started, problem fixed, down time, then one column per root-cause
// category (Facilities, Hardware, Human Error, Network, Undetermined,
// Software) of which at most one is filled, and Same Event.
//
// Unknown numbers (empty cells, as for every hardware column of system 17)
// are -1.
type LANLFailure struct {
	System       int    // system number (2–24 in the real file)
	MachineType  string // "cluster", "smp", "numa"; "" unknown
	Nodes        int    // nodes in the system
	ProcsTotal   int    // processors in the system
	ProcsPerNode int    // processors per node
	NodeNum      int    // node number as it existed (from 0 or 1)
	NodeNumZero  int    // node number starting from zero
	// NodeInstall, NodeProduction and NodeDecommission are kept as
	// written. Spreadsheet software turned most "Mar-02" (March 2002)
	// into "2-Mar"; others read "Nov-96", "current", "before tracking".
	NodeInstall      string
	NodeProduction   string
	NodeDecommission string
	FRUType          string // field-replaceable unit: "part" or "node"
	Memory           int    // memory per node, as coded (GB)
	CPUType          int    // code
	MemType          int    // code
	Interconnects    int    // number of interconnects
	Purpose          string // "compute", "graphics.compute", "graphics.fe", …
	// Started and Fixed are the problem's start and repair times, minute
	// resolution. They are local wall-clock times at Los Alamos (US
	// Mountain time, with daylight saving) stored with location UTC:
	// differences across a daylight-saving change are off by an hour.
	Started, Fixed time.Time
	// Downtime is the recorded down time in seconds (the file has
	// minutes). It is the file's value, not Fixed − Started; the two
	// differ for about 2 % of the records, mostly by the hour of a
	// daylight-saving change. -1 when empty.
	Downtime float64
	// Cause is the root-cause category: "Facilities", "Hardware",
	// "Human Error", "Network", "Undetermined" or "Software"; "" when no
	// category is filled. CauseDetail is the text of that cell ("CPU",
	// "Memory Dimm", "OS", "Unresolvable", …).
	Cause, CauseDetail string
	SameEvent          bool // "Same Event" column: related to an earlier event
	Line               int  // line in the CSV file
}

// lanlColumns is the number of columns of the CSV.
const lanlColumns = 26

// lanlCauses are the root-cause columns 19–24.
var lanlCauses = [6]string{"Facilities", "Hardware", "Human Error", "Network", "Undetermined", "Software"}

// LANLReader streams the records of the Los Alamos failure CSV. A first
// line whose first cell is "System" is the header and is skipped; blank
// lines are skipped and counted. Memory is one line.
type LANLReader struct {
	ls      *lineScanner
	name    string
	skipped int
	err     error
}

// NewLANLReader returns a reader of the LANL failure CSV r.
func NewLANLReader(r io.Reader, name string) *LANLReader {
	return &LANLReader{ls: newLineScanner(r, name), name: name}
}

// Next returns the next record, or io.EOF after the last one.
func (r *LANLReader) Next() (LANLFailure, error) {
	if r.err != nil {
		return LANLFailure{}, r.err
	}
	for r.ls.scan() {
		t := strings.TrimSpace(r.ls.text)
		if t == "" {
			r.skipped++
			continue
		}
		if r.ls.line == 1 && strings.EqualFold(firstCSVCell(t), "system") {
			f, err := splitCSV(r.ls, t, ",")
			if err == nil && len(f) != lanlColumns {
				err = r.ls.errorf("header has %d columns, the LANL failure data has %d", len(f), lanlColumns)
			}
			if err != nil {
				r.err = err
				return LANLFailure{}, err
			}
			r.skipped++
			continue
		}
		rec, err := parseLANL(r.ls, t)
		if err != nil {
			r.err = err
		}
		return rec, err
	}
	r.err = r.ls.err()
	if r.err == nil {
		r.err = io.EOF
	}
	return LANLFailure{}, r.err
}

// ReadLANL reads all the records, in file order.
func ReadLANL(r io.Reader, name string) ([]LANLFailure, error) {
	lr := NewLANLReader(r, name)
	var out []LANLFailure
	for {
		rec, err := lr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func firstCSVCell(s string) string {
	c, _, _ := strings.Cut(s, ",")
	return strings.Trim(strings.TrimSpace(c), `"`)
}

// lanlTimeLayouts are the accepted forms of the problem started/fixed
// columns: the file has m/d/yyyy h:mm; its README says mm/dd/yy hh:mm.
var lanlTimeLayouts = []string{"1/2/2006 15:04", "1/2/06 15:04", "1/2/2006 15:04:05", "1/2/06 15:04:05"}

func parseLANLTime(s string) (time.Time, bool) {
	for _, l := range lanlTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseLANL(ls *lineScanner, line string) (LANLFailure, error) {
	f, err := splitCSV(ls, line, ",")
	if err != nil {
		return LANLFailure{}, err
	}
	if len(f) != lanlColumns {
		return LANLFailure{}, ls.errorf("%d columns, the LANL failure data has %d", len(f), lanlColumns)
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	rec := LANLFailure{Line: ls.line, MachineType: f[1], NodeInstall: f[7], NodeProduction: f[8],
		NodeDecommission: f[9], FRUType: f[10], Purpose: f[15]}
	ints := []struct {
		col  int
		name string
		dst  *int
	}{
		{0, "system", &rec.System}, {2, "nodes", &rec.Nodes}, {3, "processors total", &rec.ProcsTotal},
		{4, "processors per node", &rec.ProcsPerNode}, {5, "node number", &rec.NodeNum},
		{6, "node number from zero", &rec.NodeNumZero}, {11, "memory", &rec.Memory},
		{12, "CPU type", &rec.CPUType}, {13, "memory type", &rec.MemType},
		{14, "number of interconnects", &rec.Interconnects},
	}
	for _, c := range ints {
		s := f[c.col]
		if s == "" && c.col != 0 {
			*c.dst = -1
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return LANLFailure{}, ls.errorf("invalid %s %s", c.name, quote(s))
		}
		*c.dst = n
	}
	var ok bool
	if rec.Started, ok = parseLANLTime(f[16]); !ok {
		return LANLFailure{}, ls.errorf("invalid problem-started time %s (want m/d/yyyy h:mm)", quote(f[16]))
	}
	if rec.Fixed, ok = parseLANLTime(f[17]); !ok {
		return LANLFailure{}, ls.errorf("invalid problem-fixed time %s (want m/d/yyyy h:mm)", quote(f[17]))
	}
	if rec.Fixed.Before(rec.Started) {
		return LANLFailure{}, ls.errorf("problem fixed %s before it started %s", quote(f[17]), quote(f[16]))
	}
	rec.Downtime = -1
	if s := f[18]; s != "" {
		m, err := strconv.ParseFloat(s, 64)
		if err != nil || m < 0 || math.IsNaN(m) || math.IsInf(m, 0) {
			return LANLFailure{}, ls.errorf("invalid down time %s", quote(s))
		}
		rec.Downtime = m * 60
	}
	for i, name := range lanlCauses {
		s := f[19+i]
		if s == "" {
			continue
		}
		if rec.Cause != "" {
			return LANLFailure{}, ls.errorf("two root causes: %s %s and %s %s", rec.Cause, quote(rec.CauseDetail), name, quote(s))
		}
		rec.Cause, rec.CauseDetail = name, s
	}
	switch strings.ToLower(f[25]) {
	case "no", "n", "":
	case "yes", "y":
		rec.SameEvent = true
	default:
		return LANLFailure{}, ls.errorf("invalid same-event flag %s (want Yes or No)", quote(f[25]))
	}
	return rec, nil
}

// LANLSystem is the failures of one system, sorted by start time.
type LANLSystem struct {
	System   int
	Failures []LANLFailure // by Started; records with equal starts keep file order
}

// GroupLANLBySystem splits records by system, in increasing system number,
// each system's records sorted by start time (stable). O(n log n).
func GroupLANLBySystem(recs []LANLFailure) []LANLSystem {
	by := map[int][]LANLFailure{}
	for _, r := range recs {
		by[r.System] = append(by[r.System], r)
	}
	out := make([]LANLSystem, 0, len(by))
	for s, fs := range by {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Started.Before(fs[j].Started) })
		out = append(out, LANLSystem{System: s, Failures: fs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].System < out[j].System })
	return out
}

// InterFailureTimes are the times between consecutive failure starts of the
// system, in seconds (len(Failures)−1 values, system-wide: failures of
// different nodes interleave). Failures starting in the same minute give
// zeros, which are kept; in the real file 2,387 of the 23,716 intervals
// are zero, mostly one event (an outage, a scheduled maintenance) recorded
// on several nodes. InterEventTimes merges those.
func (s LANLSystem) InterFailureTimes() []float64 {
	if len(s.Failures) < 2 {
		return nil
	}
	out := make([]float64, len(s.Failures)-1)
	for i := range out {
		out[i] = s.Failures[i+1].Started.Sub(s.Failures[i].Started).Seconds()
	}
	return out
}

// InterEventTimes are the times between consecutive distinct failure start
// times of the system, in seconds: failures starting in the same minute
// count as one event, so every value is > 0 (at least 60 s in the real
// file, whose times have minute resolution).
func (s LANLSystem) InterEventTimes() []float64 {
	var out []float64
	for i := 1; i < len(s.Failures); i++ {
		if d := s.Failures[i].Started.Sub(s.Failures[i-1].Started).Seconds(); d > 0 {
			out = append(out, d)
		}
	}
	return out
}

// MTBF is the system's mean time between failures in seconds: the span
// from the first to the last failure start divided by the number of
// intervals. NaN with fewer than two failures.
func (s LANLSystem) MTBF() float64 {
	n := len(s.Failures)
	if n < 2 {
		return math.NaN()
	}
	return s.Failures[n-1].Started.Sub(s.Failures[0].Started).Seconds() / float64(n-1)
}

// LANLData is the LANL failure log inside ckpt's data folder, as path
// elements for datadir.Path.
var LANLData = []string{"failures", "LA-UR-05-7318-failure-data-1996-2005.csv"}

// ReadLANLFile reads the LANL failure CSV at path: the one way ckpt loads
// it (errors name the path and the line). O(n).
func ReadLANLFile(path string) ([]LANLFailure, error) {
	f, err := usage.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLANL(f, path)
}
