package trace

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Interval is a closed range [Lo, Hi] of resource numbers (0-based).
type Interval struct{ Lo, Hi int }

// IntervalSet is Batsim's set of resources, written "0-2 5 7-9": ranges
// separated by blanks, in increasing order.
type IntervalSet []Interval

// String writes the set in Batsim's notation ("" for the empty set).
func (s IntervalSet) String() string {
	parts := make([]string, len(s))
	for i, iv := range s {
		if iv.Lo == iv.Hi {
			parts[i] = strconv.Itoa(iv.Lo)
		} else {
			parts[i] = strconv.Itoa(iv.Lo) + "-" + strconv.Itoa(iv.Hi)
		}
	}
	return strings.Join(parts, " ")
}

// Size is the number of resources in the set.
func (s IntervalSet) Size() int {
	n := 0
	for _, iv := range s {
		n += iv.Hi - iv.Lo + 1
	}
	return n
}

// ParseIntervalSet reads "0-2 5 7-9". Ranges must be non-negative, Lo ≤ Hi,
// increasing and disjoint.
func ParseIntervalSet(s string) (IntervalSet, error) {
	var out IntervalSet
	prev := -1
	for _, f := range strings.Fields(s) {
		lo, hi, rng := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if rng {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || a > 1<<30 || b > 1<<30 {
			return nil, fmt.Errorf("invalid resource range %s", quote(f))
		}
		if a <= prev {
			return nil, fmt.Errorf("resource range %s overlaps or precedes the previous one", quote(f))
		}
		out = append(out, Interval{a, b})
		prev = b
	}
	return out, nil
}

// Batsim external event types for machine availability.
const (
	MachineUnavailable = "machine_unavailable"
	MachineAvailable   = "machine_available"
)

// BatsimEvent is one external event of a Batsim events file: one JSON
// object per line, {"timestamp": t, "type": …, "resources": "0-2"}
// (Batsim 3.1 to 4.x's "External Events" input, passed with --events;
// machine_unavailable and machine_available act on the platform). Batsim 5
// only forwards "generic" events whose "data" string holds such an
// object; the reader unwraps them.
type BatsimEvent struct {
	Timestamp float64
	Type      string
	Resources IntervalSet
}

type batsimEventJSON struct {
	Timestamp *float64 `json:"timestamp"`
	Type      string   `json:"type"`
	Resources *string  `json:"resources,omitempty"`
	Data      *string  `json:"data,omitempty"`
}

// WriteBatsimEvents writes one JSON object per line.
func WriteBatsimEvents(w io.Writer, evs []BatsimEvent) error {
	var b bytes.Buffer
	for _, e := range evs {
		t, _ := json.Marshal(e.Type)
		fmt.Fprintf(&b, `{"timestamp":%s,"type":%s,"resources":"%s"}`+"\n", fmtFloat(e.Timestamp), t, e.Resources)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// BatsimEventReader streams a Batsim events file. Blank lines are skipped;
// every other line must be a JSON object with a finite timestamp ≥ 0 (not
// decreasing), a type, and for machine events a valid resource set.
type BatsimEventReader struct {
	ls    *lineScanner
	last  float64
	err   error
	Blank int // blank lines skipped so far
}

// NewBatsimEventReader returns a reader of r; name is used in errors.
func NewBatsimEventReader(r io.Reader, name string) *BatsimEventReader {
	return &BatsimEventReader{ls: newLineScanner(r, name)}
}

// Next returns the next event or io.EOF.
func (r *BatsimEventReader) Next() (BatsimEvent, error) {
	if r.err != nil {
		return BatsimEvent{}, r.err
	}
	for r.ls.scan() {
		t := strings.TrimSpace(r.ls.text)
		if t == "" {
			r.Blank++
			continue
		}
		e, err := r.parse(t)
		r.err = err
		return e, err
	}
	if r.err = r.ls.err(); r.err == nil {
		r.err = io.EOF
	}
	return BatsimEvent{}, r.err
}

func (r *BatsimEventReader) parse(t string) (BatsimEvent, error) {
	var j batsimEventJSON
	if err := json.Unmarshal([]byte(t), &j); err != nil {
		return BatsimEvent{}, r.ls.errorf("invalid event %s: %v", quote(t), err)
	}
	switch {
	case j.Timestamp == nil:
		return BatsimEvent{}, r.ls.errorf("event without timestamp")
	case j.Type == "":
		return BatsimEvent{}, r.ls.errorf("event without type")
	case !(*j.Timestamp >= 0) || math.IsInf(*j.Timestamp, 0):
		return BatsimEvent{}, r.ls.errorf("timestamp %s must be >= 0 and finite", fmtFloat(*j.Timestamp))
	case *j.Timestamp < r.last:
		return BatsimEvent{}, r.ls.errorf("timestamp %s before the previous event's %s", fmtFloat(*j.Timestamp), fmtFloat(r.last))
	}
	r.last = *j.Timestamp
	if j.Type == "generic" && j.Data != nil {
		var in batsimEventJSON
		if json.Unmarshal([]byte(*j.Data), &in) == nil && (in.Type == MachineAvailable || in.Type == MachineUnavailable) {
			j.Type, j.Resources = in.Type, in.Resources
		}
	}
	e := BatsimEvent{Timestamp: *j.Timestamp, Type: j.Type}
	if j.Type == MachineAvailable || j.Type == MachineUnavailable {
		if j.Resources == nil {
			return e, r.ls.errorf("%s event without resources", j.Type)
		}
		s, err := ParseIntervalSet(*j.Resources)
		if err != nil {
			return e, r.ls.errorf("%v", err)
		}
		e.Resources = s
	}
	return e, nil
}

// ReadBatsimEvents reads a whole events file. Batsim sorts the events of a
// file by time; ckpt requires them in time order.
func ReadBatsimEvents(r io.Reader, name string) ([]BatsimEvent, error) {
	er := NewBatsimEventReader(r, name)
	var out []BatsimEvent
	for {
		e, err := er.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// BatsimJobResult is one row of Batsim's output PREFIX_jobs.csv.
type BatsimJobResult struct {
	JobID      string // job_id ("workload!id" in recent versions)
	Submission float64
	Res        int     // requested_number_of_resources
	Walltime   float64 // requested_time
	Success    bool    // success == 1 (final_state COMPLETED_SUCCESSFULLY)
	FinalState string  // final_state, empty in old versions
	Start      float64 // starting_time
	Finish     float64 // finish_time
	Allocated  IntervalSet
}

// batsimJobCols are the columns ReadBatsimJobs needs.
var batsimJobCols = []string{"job_id", "submission_time", "requested_number_of_resources",
	"requested_time", "success", "starting_time", "finish_time", "allocated_resources"}

// ReadBatsimJobs reads Batsim's PREFIX_jobs.csv: a header line naming the
// columns (any order; extra columns ignored) and one row per job. Jobs never
// started are rows with empty times; they are returned with Start = Finish =
// NaN. Errors name the file and line.
func ReadBatsimJobs(r io.Reader, name string) ([]BatsimJobResult, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0
	hdr, err := cr.Read()
	if err == io.EOF {
		return nil, errorf(name, 0, "empty file: want a header line")
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))] = i
	}
	for _, c := range batsimJobCols {
		if _, ok := col[c]; !ok {
			return nil, errorf(name, 1, "no %s column", quote(c))
		}
	}
	var out []BatsimJobResult
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		j, err := parseBatsimResult(rec, col)
		if err != nil {
			return out, errorf(name, line, "%v", err)
		}
		out = append(out, j)
	}
}

func csvError(name string, err error) error {
	if pe, ok := err.(*csv.ParseError); ok {
		return errorf(name, pe.Line, "%v", pe.Err)
	}
	return errorf(name, 0, "read error: %v", err)
}

func parseBatsimResult(rec []string, col map[string]int) (BatsimJobResult, error) {
	get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
	num := func(c string, allowEmpty bool) (float64, error) {
		s := get(c)
		if s == "" && allowEmpty {
			return math.NaN(), nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("invalid %s %s", c, quote(s))
		}
		return x, nil
	}
	j := BatsimJobResult{JobID: get("job_id"), Success: get("success") == "1"}
	if fs, ok := col["final_state"]; ok {
		j.FinalState = strings.TrimSpace(rec[fs])
	}
	var err error
	if j.Submission, err = num("submission_time", false); err != nil {
		return j, err
	}
	res, err := num("requested_number_of_resources", false)
	if err != nil || res < 1 || res != math.Trunc(res) || res > 1<<31 {
		return j, fmt.Errorf("invalid requested_number_of_resources %s", quote(get("requested_number_of_resources")))
	}
	j.Res = int(res)
	if j.Walltime, err = num("requested_time", true); err != nil {
		return j, err
	}
	if j.Start, err = num("starting_time", true); err != nil {
		return j, err
	}
	if j.Finish, err = num("finish_time", true); err != nil {
		return j, err
	}
	if j.Finish < j.Start {
		return j, fmt.Errorf("job %s finishes at %s before it starts at %s", quote(j.JobID), fmtFloat(j.Finish), fmtFloat(j.Start))
	}
	if j.Allocated, err = ParseIntervalSet(get("allocated_resources")); err != nil {
		return j, err
	}
	if !math.IsNaN(j.Start) && j.Allocated.Size() != j.Res {
		return j, fmt.Errorf("job %s: %d allocated resources %s, %d requested", quote(j.JobID), j.Allocated.Size(), quote(j.Allocated.String()), j.Res)
	}
	return j, nil
}
