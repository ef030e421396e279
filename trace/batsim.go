package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// BatsimWorkload is a Batsim JSON workload (batsim.readthedocs.io,
// "Workload"): the number of resources, the jobs and the profiles they
// refer to. Profiles are kept verbatim (ckpt only interprets delay
// profiles, whose delay is the job's run time); top-level fields other than
// nb_res, jobs and profiles (command, date, description, ckpt's own
// ckpt_* fields) are kept in Extra and written back.
type BatsimWorkload struct {
	NbRes    int                        // nb_res: number of computing resources, ≥ 1 (0 when absent)
	Jobs     []BatsimJob                // in file order
	Profiles map[string]json.RawMessage // profile name → its JSON object
	Extra    map[string]json.RawMessage
}

// BatsimJob is one job of a Batsim workload. Walltime is counted from the
// job's start (Batsim kills the job when it runs longer); −1 means none.
// Fields other than the five standard ones are kept in Extra.
type BatsimJob struct {
	// ID is the job's identifier as written: a JSON number or string.
	ID       json.RawMessage
	Subtime  float64 // submission time, seconds from the simulation start, ≥ 0
	Walltime float64 // seconds from the job's start; −1 = none
	Res      int     // number of resources requested, ≥ 1
	Profile  string  // name of a profile of the workload
	Extra    map[string]json.RawMessage
}

// IDString is the job's ID without JSON quotes.
func (j BatsimJob) IDString() string {
	var s string
	if json.Unmarshal(j.ID, &s) == nil {
		return s
	}
	return string(j.ID)
}

// batsimJobKeys are the standard job fields.
var batsimJobKeys = map[string]bool{"id": true, "subtime": true, "walltime": true, "res": true, "profile": true}

// MarshalJSON writes id, subtime, walltime (when ≥ 0), res, profile, then
// the extra fields by name. Numbers use the shortest form that reads back
// to the same float64.
func (j BatsimJob) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"id":%s,"subtime":%s`, j.ID, fmtFloat(j.Subtime))
	if j.Walltime >= 0 {
		fmt.Fprintf(&b, `,"walltime":%s`, fmtFloat(j.Walltime))
	}
	p, _ := json.Marshal(j.Profile)
	fmt.Fprintf(&b, `,"res":%d,"profile":%s`, j.Res, p)
	if err := writeExtra(&b, j.Extra, batsimJobKeys); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// writeExtra appends the fields of extra not in std, sorted by name.
func writeExtra(b *bytes.Buffer, extra map[string]json.RawMessage, std map[string]bool) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !std[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		var c bytes.Buffer
		if err := json.Compact(&c, extra[k]); err != nil {
			return fmt.Errorf("field %s: %v", k, err)
		}
		n, _ := json.Marshal(k)
		fmt.Fprintf(b, ",%s:%s", n, c.Bytes())
	}
	return nil
}

// WriteBatsim writes w as indented JSON: nb_res, the extra top-level fields
// by name, jobs one per line, profiles by name, to out in pieces of about
// 1 MiB. ReadBatsim reads it back to an equal workload.
func WriteBatsim(out io.Writer, w BatsimWorkload) error {
	var b bytes.Buffer
	b.WriteString("{")
	sep := "\n  "
	if w.NbRes > 0 {
		fmt.Fprintf(&b, "\n  \"nb_res\": %d", w.NbRes)
		sep = ",\n  "
	}
	std := map[string]bool{"nb_res": true, "jobs": true, "profiles": true}
	keys := sortedKeys(w.Extra)
	for _, k := range keys {
		if std[k] {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, w.Extra[k]); err != nil {
			return fmt.Errorf("batsim field %s: %v", k, err)
		}
		n, _ := json.Marshal(k)
		fmt.Fprintf(&b, "%s%s: %s", sep, n, c.Bytes())
		sep = ",\n  "
	}
	b.WriteString(sep + "\"jobs\": [")
	for i, j := range w.Jobs {
		s, err := j.MarshalJSON()
		if err != nil {
			return fmt.Errorf("batsim job %d: %v", i, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(s)
		if b.Len() >= 1<<20 { // in pieces: a writer that fails (a cancel) stops it early
			if _, err := out.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	b.WriteString("\n  ],\n  \"profiles\": {")
	for i, k := range sortedKeys(w.Profiles) {
		var c bytes.Buffer
		if err := json.Compact(&c, w.Profiles[k]); err != nil {
			return fmt.Errorf("batsim profile %s: %v", k, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		n, _ := json.Marshal(k)
		fmt.Fprintf(&b, "\n    %s: %s", n, c.Bytes())
	}
	b.WriteString("\n  }\n}\n")
	_, err := out.Write(b.Bytes())
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineAt is the 1-based line of byte offset off in data, skipping the
// blanks and commas that precede the value starting there.
func lineAt(data []byte, off int64) int {
	o := int(min(max(off, 0), int64(len(data))))
	for o < len(data) && strings.IndexByte(" \t\r\n,:", data[o]) >= 0 {
		o++
	}
	return 1 + bytes.Count(data[:o], []byte{'\n'})
}

// ReadBatsim reads a Batsim JSON workload. It checks that nb_res, if
// present, is ≥ 1; that every job has an id (number or string, unique), a
// finite subtime ≥ 0, res ≥ 1 (and ≤ nb_res when given), a walltime > 0 or
// −1 or none, and a profile defined in profiles; and that every profile is
// an object with a string "type". Errors name the file and the line of the
// offending job. The whole document is held in memory (a JSON object).
func ReadBatsim(r io.Reader, name string) (BatsimWorkload, error) {
	return ReadBatsimContext(context.Background(), r, name)
}

// ReadBatsimContext is ReadBatsim stopped by ctx: it reads through
// ContextReader and checks ctx every 1024 jobs, returning ctx.Err().
func ReadBatsimContext(ctx context.Context, r io.Reader, name string) (BatsimWorkload, error) {
	data, err := io.ReadAll(ContextReader(ctx, r))
	if ctx.Err() != nil {
		return BatsimWorkload{}, ctx.Err()
	}
	if err != nil {
		return BatsimWorkload{}, errorf(name, 0, "read error: %v", err)
	}
	top, jobLines, err := scanBatsim(ctx, data)
	if ctx.Err() != nil {
		return BatsimWorkload{}, ctx.Err()
	}
	if err != nil {
		return BatsimWorkload{}, jsonError(name, data, err)
	}
	w := BatsimWorkload{Extra: map[string]json.RawMessage{}, Profiles: map[string]json.RawMessage{}}
	if v, ok := top["nb_res"]; ok {
		if err := json.Unmarshal(v, &w.NbRes); err != nil || w.NbRes < 1 {
			return w, errorf(name, lineOf(data, v), "invalid nb_res %s: want an integer >= 1", quote(string(v)))
		}
	}
	if v, ok := top["profiles"]; ok {
		if err := json.Unmarshal(v, &w.Profiles); err != nil {
			return w, errorf(name, lineOf(data, v), "profiles: want an object of profiles")
		}
		for k, p := range w.Profiles {
			var pr struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(p, &pr) != nil || pr.Type == "" {
				return w, errorf(name, lineOf(data, p), "profile %s: want an object with a string type", quote(k))
			}
		}
	}
	for k, v := range top {
		if k != "nb_res" && k != "jobs" && k != "profiles" {
			w.Extra[k] = v
		}
	}
	jobs, ok := top["jobs"]
	if !ok {
		return w, errorf(name, 0, "no jobs array")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(jobs, &raw); err != nil {
		return w, errorf(name, lineOf(data, jobs), "jobs: want an array of jobs")
	}
	seen := map[string]int{}
	for i, jr := range raw {
		if i%1024 == 0 && ctx.Err() != nil {
			return w, ctx.Err()
		}
		line := 0
		if i < len(jobLines) {
			line = jobLines[i]
		}
		j, err := parseBatsimJob(jr, w)
		if err != nil {
			return w, errorf(name, line, "%v", err)
		}
		if l, dup := seen[string(j.ID)]; dup {
			return w, errorf(name, line, "job id %s already used on line %d", quote(string(j.ID)), l)
		}
		seen[string(j.ID)] = line
		w.Jobs = append(w.Jobs, j)
	}
	return w, nil
}

// lineOf finds the line of sub, a value of data, by content (its first
// occurrence: used for top-level fields and profiles, which are unique).
func lineOf(data, sub []byte) int {
	i := bytes.Index(data, sub)
	if len(sub) == 0 || i < 0 {
		return 0
	}
	return lineAt(data, int64(i))
}

// scanBatsim decodes the top-level object of data, and the line of every
// element of its "jobs" array when it is one.
func scanBatsim(ctx context.Context, data []byte) (map[string]json.RawMessage, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, &json.UnmarshalTypeError{Value: "a JSON " + jsonKind(tok), Offset: 0}
	}
	top := map[string]json.RawMessage{}
	var lines []int
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if key == "jobs" {
			lines = jobLines(ctx, data, dec.InputOffset())
		}
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		top[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return top, lines, nil
}

func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// jobLines lists the line of every element of the array starting at off
// (nil when it is not an array or is malformed: the caller reports that).
func jobLines(ctx context.Context, data []byte, off int64) []int {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n:", data[off]) >= 0 {
		off++
	}
	dec := json.NewDecoder(bytes.NewReader(data[off:]))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var lines []int
	from, line := 0, 1 // lineAt from the previous job on: O(bytes), not O(jobs × bytes)
	for dec.More() && (len(lines)%1024 != 0 || ctx.Err() == nil) {
		o := int(off + dec.InputOffset())
		for o < len(data) && strings.IndexByte(" \t\r\n,:", data[o]) >= 0 {
			o++
		}
		line += bytes.Count(data[from:o], []byte{'\n'})
		from = o
		lines = append(lines, line)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return lines
		}
	}
	return lines
}

// jsonError turns a decoding error into a *ParseError with a line.
func jsonError(name string, data []byte, err error) error {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		return errorf(name, lineAt(data, off), "want a JSON object with jobs and profiles, got %s", e.Value)
	default:
		if err == io.EOF {
			return errorf(name, 0, "empty input: want a JSON workload")
		}
		return errorf(name, 0, "%v", err)
	}
	return errorf(name, 1+bytes.Count(data[:min(int(off), len(data))], []byte{'\n'}), "invalid JSON: %v", err)
}

// parseBatsimJob decodes and checks one job.
func parseBatsimJob(raw json.RawMessage, w BatsimWorkload) (BatsimJob, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return BatsimJob{}, fmt.Errorf("job: want a JSON object")
	}
	j := BatsimJob{Walltime: -1}
	id, ok := m["id"]
	if !ok {
		return j, fmt.Errorf("job without id")
	}
	var s string
	var x float64
	if json.Unmarshal(id, &s) != nil && json.Unmarshal(id, &x) != nil {
		return j, fmt.Errorf("job id %s: want a number or a string", quote(string(id)))
	}
	var c bytes.Buffer
	_ = json.Compact(&c, id)
	j.ID = json.RawMessage(c.Bytes())
	num := func(key string, p *float64) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, p); err != nil || math.IsInf(*p, 0) {
			return fmt.Errorf("job %s: invalid %s %s", j.IDString(), key, quote(string(v)))
		}
		return nil
	}
	if _, ok := m["subtime"]; !ok {
		return j, fmt.Errorf("job %s: no subtime", j.IDString())
	}
	if err := num("subtime", &j.Subtime); err != nil {
		return j, err
	}
	if err := num("walltime", &j.Walltime); err != nil {
		return j, err
	}
	var res float64
	if err := num("res", &res); err != nil {
		return j, err
	}
	j.Res = int(res)
	if err := json.Unmarshal(m["profile"], &j.Profile); err != nil {
		return j, fmt.Errorf("job %s: profile must be a string", j.IDString())
	}
	switch {
	case j.Subtime < 0:
		return j, fmt.Errorf("job %s: subtime %s must be >= 0", j.IDString(), fmtFloat(j.Subtime))
	case !(j.Walltime > 0 || j.Walltime == -1):
		return j, fmt.Errorf("job %s: walltime %s must be > 0 (or -1: none)", j.IDString(), fmtFloat(j.Walltime))
	case res != float64(j.Res) || j.Res < 1 || res > 1<<31:
		return j, fmt.Errorf("job %s: res %s must be an integer >= 1", j.IDString(), quote(string(m["res"])))
	case w.NbRes > 0 && j.Res > w.NbRes:
		return j, fmt.Errorf("job %s: res %d > nb_res %d", j.IDString(), j.Res, w.NbRes)
	}
	if _, ok := w.Profiles[j.Profile]; !ok {
		return j, fmt.Errorf("job %s: undefined profile %s", j.IDString(), quote(j.Profile))
	}
	for k, v := range m {
		if !batsimJobKeys[k] {
			if j.Extra == nil {
				j.Extra = map[string]json.RawMessage{}
			}
			j.Extra[k] = v
		}
	}
	return j, nil
}

// Delay is the run time of a delay profile (type "delay" or
// "DelayProfile"): its "delay" field. It is false for other profiles.
func (w BatsimWorkload) Delay(profile string) (float64, bool) {
	var p struct {
		Type  string   `json:"type"`
		Delay *float64 `json:"delay"`
	}
	if json.Unmarshal(w.Profiles[profile], &p) != nil || p.Delay == nil {
		return 0, false
	}
	if p.Type != "delay" && p.Type != "DelayProfile" {
		return 0, false
	}
	return *p.Delay, true
}

// DelayProfile is the JSON of a Batsim delay profile of the given length.
func DelayProfile(delay float64) json.RawMessage {
	return json.RawMessage(`{"type":"delay","delay":` + fmtFloat(delay) + `}`)
}

// BatsimFromSWF converts SWF jobs to a Batsim workload on nbRes resources
// (0: the widest job). Each job becomes a job with id = job number, subtime
// = submit time, res = allocated processors (requested when unknown),
// walltime = requested time (−1 when unknown) and a delay profile of its run
// time, shared by the jobs of equal run time and named after it. The SWF
// fields Batsim has no place for (wait, processors allocated and requested,
// CPU time, memory, status, user, group, executable, queue, partition,
// preceding job, think time) travel in the job's SWFField, which Batsim
// ignores and SWF restores, so that SWF → Batsim → SWF is lossless. Jobs of
// unknown width or run time cannot run in Batsim and are skipped; their
// count is returned.
func BatsimFromSWF(jobs []SWFJob, nbRes int) (BatsimWorkload, int) {
	w, skipped, _ := BatsimFromSWFContext(context.Background(), jobs, nbRes)
	return w, skipped
}

// BatsimFromSWFContext is BatsimFromSWF that stops with ctx's error once
// ctx ends (it checks every 4 096 jobs: 313 000 take about a second).
func BatsimFromSWFContext(ctx context.Context, jobs []SWFJob, nbRes int) (BatsimWorkload, int, error) {
	w := BatsimWorkload{Profiles: map[string]json.RawMessage{}}
	skipped, widest := 0, 0
	for i, j := range jobs {
		if i%4096 == 0 && ctx.Err() != nil {
			return BatsimWorkload{}, 0, ctx.Err()
		}
		p := j.AllocatedProcs
		if p <= 0 {
			p = j.RequestedProcs
		}
		if p <= 0 || j.RunTime < 0 || j.SubmitTime < 0 || p > 1<<31 {
			skipped++
			continue
		}
		wt := j.RequestedTime
		if wt <= 0 {
			wt = -1
		}
		name := "delay_" + fmtFloat(j.RunTime)
		w.Profiles[name] = DelayProfile(j.RunTime)
		w.Jobs = append(w.Jobs, BatsimJob{ID: json.RawMessage(strconv.FormatInt(j.JobNumber, 10)),
			Subtime: j.SubmitTime, Walltime: wt, Res: int(p), Profile: name,
			Extra: map[string]json.RawMessage{SWFField: carrySWF(j)}})
		widest = max(widest, int(p))
	}
	w.NbRes = nbRes
	if nbRes <= 0 {
		w.NbRes = max(widest, 1)
	}
	return w, skipped, nil
}

// SWF converts a Batsim workload to SWF jobs: job number = the id's
// number (an integer id, or the N of a Batsim "workload!N" id), submit
// time = subtime, requested processors = res, requested time = walltime
// (−1 when none), run time = the delay of a delay profile (−1 for other
// profiles); the other fields are −1 (unknown), or those BatsimFromSWF
// carried in the job's SWFField (see restoreSWF). Job numbers are unique:
// a job whose id has no number ≥ 0, or whose number an earlier job has,
// gets the next number above the workload's largest, in file order.
func (w BatsimWorkload) SWF() []SWFJob {
	out := make([]SWFJob, 0, len(w.Jobs))
	nums, top := make([]int64, len(w.Jobs)), int64(0)
	for i, j := range w.Jobs {
		nums[i] = idNumber(j.IDString())
		top = max(top, nums[i])
	}
	used := make(map[int64]bool, len(w.Jobs))
	for i, j := range w.Jobs {
		n := nums[i]
		if n < 0 || used[n] {
			top++
			n = top
		}
		used[n] = true
		rt, ok := w.Delay(j.Profile)
		if !ok {
			rt = -1
		}
		sj := SWFJob{JobNumber: n, SubmitTime: j.Subtime, WaitTime: -1, RunTime: rt,
			AllocatedProcs: -1, AvgCPUTime: -1, UsedMemory: -1, RequestedProcs: int64(j.Res),
			RequestedTime: j.Walltime, RequestedMemory: -1, Status: -1, UserID: -1, GroupID: -1,
			Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
		restoreSWF(&sj, j)
		out = append(out, sj)
	}
	return out
}

// idNumber is the number of a Batsim job id: the id itself, or the part
// after the last "!" ("w0!5" is 5); −1 when that is not an integer ≥ 0
// below 2^53 (the largest SWF integer WriteSWF writes).
func idNumber(id string) int64 {
	if k := strings.LastIndexByte(id, '!'); k >= 0 {
		id = id[k+1:]
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n < 0 || n >= 1<<53 {
		return -1
	}
	return n
}
