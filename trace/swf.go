package trace

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SWFJob is one job line of a Standard Workload Format (v2.2) log. Fields
// keep the standard's names and units; -1 means unknown. Times are seconds,
// memory is kilobytes per processor. Integer fields written with a zero
// fraction ("128.0", as some converters do) are accepted.
type SWFJob struct {
	JobNumber       int64   // 1: job number, usually counting from 1
	SubmitTime      float64 // 2: submit time, seconds since the log's UnixStartTime
	WaitTime        float64 // 3: seconds from submit to start
	RunTime         float64 // 4: seconds from start to end (wall clock)
	AllocatedProcs  int64   // 5: processors allocated
	AvgCPUTime      float64 // 6: average CPU time per processor, seconds
	UsedMemory      float64 // 7: average memory used per processor, KB
	RequestedProcs  int64   // 8: processors requested
	RequestedTime   float64 // 9: requested (wall clock) time, seconds
	RequestedMemory float64 // 10: requested memory per processor, KB
	Status          int64   // 11: 1 completed, 0 failed, 5 cancelled; 2,3,4 partial executions
	UserID          int64   // 12
	GroupID         int64   // 13
	Executable      int64   // 14: application number
	Queue           int64   // 15: queue number
	Partition       int64   // 16: partition number
	PrecedingJob    int64   // 17: job this one depends on
	ThinkTime       float64 // 18: seconds between the preceding job's end and this submit
}

// SWFHeaderField is one "; Key: value" header line; continuation lines
// (more indented, without a key) are appended to Value after a space.
type SWFHeaderField struct {
	Key   string
	Value string
	Line  int
}

// SWFHeader holds the header comments of an SWF log. Numeric fields are -1
// when absent; every "Key: value" line, including keys not listed here, is
// kept in Fields in file order.
type SWFHeader struct {
	Version        string
	Computer       string
	Installation   string
	Acknowledge    string
	Information    string
	Conversion     string
	Preemption     string // "No", "Yes", "Double", "TS"
	TimeZoneString string
	StartTime      string // human-readable, as written
	EndTime        string
	AllowOveruse   string
	MaxJobs        int64
	MaxRecords     int64
	UnixStartTime  int64 // Unix time of SubmitTime 0; 0 when submit times are Unix times
	TimeZone       int64 // offset of the log's time zone from UTC, seconds (deprecated by v2.2)
	MaxNodes       int64
	MaxProcs       int64
	MaxRuntime     int64 // seconds
	MaxMemory      int64 // KB
	MaxQueues      int64
	MaxPartitions  int64
	Queues         []string // "Queue:" lines
	Partitions     []string // "Partition:" lines
	Notes          []string // "Note:" lines
	Fields         []SWFHeaderField
}

func newSWFHeader() SWFHeader {
	return SWFHeader{MaxJobs: -1, MaxRecords: -1, UnixStartTime: -1, TimeZone: -1,
		MaxNodes: -1, MaxProcs: -1, MaxRuntime: -1, MaxMemory: -1, MaxQueues: -1, MaxPartitions: -1}
}

// SWFReader streams the jobs of an SWF log. Lines starting with ";" are
// header comments (parsed into Header wherever they appear), blank lines are
// skipped and counted, and every other line must hold exactly 18 numeric
// fields separated by blanks. Input compressed with gzip is recognised by
// its magic bytes and decompressed on the fly. Memory is one line.
type SWFReader struct {
	src     io.Reader
	name    string
	ls      *lineScanner
	hdr     SWFHeader
	last    int // index in hdr.Fields of the field continuation lines extend
	pending bool
	blank   int
	err     error
}

// NewSWFReader returns a reader of the SWF log r; name is used in errors.
// Nothing is read until Header or Next is called.
func NewSWFReader(r io.Reader, name string) *SWFReader {
	return &SWFReader{src: r, name: name, hdr: newSWFHeader(), last: -1}
}

// open sets up the line scanner, with gzip when the magic bytes say so.
func (r *SWFReader) open() error {
	if r.ls != nil {
		return nil
	}
	rd, err := maybeGzip(r.src, r.name)
	if err != nil {
		return err
	}
	r.ls = newLineScanner(rd, r.name)
	return nil
}

// maybeGzip wraps src in a gzip reader when it starts with the gzip magic
// bytes 1f 8b.
func maybeGzip(src io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReader(src)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, errorf(name, 0, "read error: %v", err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, errorf(name, 0, "gzip: %v", err)
		}
		return zr, nil
	}
	return br, nil
}

// Header reads the header comments preceding the first job (if not done
// yet) and returns them. Header lines found later in the file are added as
// Next meets them.
func (r *SWFReader) Header() (SWFHeader, error) {
	if r.err != nil && r.err != io.EOF {
		return r.hdr, r.err
	}
	if r.ls == nil || (!r.pending && r.err == nil && r.ls.line == 0) {
		if err := r.advance(); err != nil && err != io.EOF {
			r.err = err
			return r.hdr, err
		}
	}
	return r.hdr, nil
}

// advance reads up to the next job line, leaving it pending in r.ls.text,
// and returns io.EOF at the end of input.
func (r *SWFReader) advance() error {
	if r.pending {
		return nil
	}
	if err := r.open(); err != nil {
		return err
	}
	for r.ls.scan() {
		t := strings.TrimSpace(r.ls.text)
		switch {
		case t == "":
			r.blank++
		case t[0] == ';':
			if err := r.headerLine(r.ls.text); err != nil {
				return err
			}
		default:
			r.pending = true
			return nil
		}
	}
	if err := r.ls.err(); err != nil {
		return err
	}
	return io.EOF
}

// Next returns the next job, or io.EOF after the last one. After an error
// other than io.EOF, Next keeps returning that error.
func (r *SWFReader) Next() (SWFJob, error) {
	if r.err != nil {
		return SWFJob{}, r.err
	}
	if err := r.advance(); err != nil {
		r.err = err
		return SWFJob{}, err
	}
	r.pending = false
	j, err := parseSWFJob(r.ls, r.ls.text)
	if err != nil {
		r.err = err
	}
	return j, err
}

// ReadAll returns the remaining jobs.
func (r *SWFReader) ReadAll() ([]SWFJob, error) {
	var jobs []SWFJob
	for {
		j, err := r.Next()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, j)
	}
}

// ReadSWF reads a whole SWF log (plain or gzip-compressed).
func ReadSWF(r io.Reader, name string) (SWFHeader, []SWFJob, error) {
	sr := NewSWFReader(r, name)
	jobs, err := sr.ReadAll()
	h, _ := sr.Header()
	return h, jobs, err
}

// headerLine parses one ";" line.
func (r *SWFReader) headerLine(line string) error {
	body := strings.TrimPrefix(strings.TrimLeft(line, " \t"), ";")
	t := strings.TrimSpace(body)
	if t == "" {
		r.last = -1
		return nil
	}
	indented := strings.HasPrefix(body, "  ") || strings.HasPrefix(body, "\t")
	key, val, ok := strings.Cut(t, ":")
	if ok {
		ok = key != "" && !strings.ContainsAny(key, " \t") && (val == "" || val[0] == ' ' || val[0] == '\t')
	}
	if indented && r.last >= 0 || !ok {
		// Continuation of the previous field, or free text.
		if r.last >= 0 {
			f := &r.hdr.Fields[r.last]
			f.Value = strings.TrimSpace(f.Value + " " + t)
			r.setField(f.Key, f.Value, true)
		}
		return nil
	}
	val = strings.TrimSpace(val)
	r.hdr.Fields = append(r.hdr.Fields, SWFHeaderField{Key: key, Value: val, Line: r.ls.line})
	r.last = len(r.hdr.Fields) - 1
	return r.setField(key, val, false)
}

// setField stores a known header key; cont is true when a continuation line
// extended an earlier value (lists then update their last element).
func (r *SWFReader) setField(key, val string, cont bool) error {
	h := &r.hdr
	str := map[string]*string{
		"version": &h.Version, "computer": &h.Computer, "installation": &h.Installation,
		"acknowledge": &h.Acknowledge, "information": &h.Information, "conversion": &h.Conversion,
		"preemption": &h.Preemption, "timezonestring": &h.TimeZoneString, "starttime": &h.StartTime,
		"endtime": &h.EndTime, "allowoveruse": &h.AllowOveruse,
	}
	num := map[string]*int64{
		"maxjobs": &h.MaxJobs, "maxrecords": &h.MaxRecords, "unixstarttime": &h.UnixStartTime,
		"timezone": &h.TimeZone, "maxnodes": &h.MaxNodes, "maxprocs": &h.MaxProcs,
		"maxruntime": &h.MaxRuntime, "maxmemory": &h.MaxMemory, "maxqueues": &h.MaxQueues,
		"maxpartitions": &h.MaxPartitions,
	}
	list := map[string]*[]string{"queue": &h.Queues, "partition": &h.Partitions, "note": &h.Notes}
	k := strings.ToLower(key)
	if p, ok := str[k]; ok {
		*p = val
	} else if p, ok := num[k]; ok {
		if cont {
			return nil // the number was parsed from the first line
		}
		tok := firstWord(val)
		n, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			return r.ls.errorf("invalid header %s %s", key, quote(val))
		}
		*p = n
	} else if p, ok := list[k]; ok {
		if cont && len(*p) > 0 {
			(*p)[len(*p)-1] = val
		} else {
			*p = append(*p, val)
		}
	}
	return nil
}

// swfFieldNames names the 18 fields in messages.
var swfFieldNames = [18]string{"job number", "submit time", "wait time", "run time",
	"allocated processors", "average CPU time", "used memory", "requested processors",
	"requested time", "requested memory", "status", "user ID", "group ID", "executable",
	"queue", "partition", "preceding job", "think time"}

// parseSWFJob parses the 18 fields of a job line.
func parseSWFJob(ls *lineScanner, line string) (SWFJob, error) {
	f := strings.Fields(line)
	if len(f) != 18 {
		return SWFJob{}, ls.errorf("%d fields, SWF jobs have 18", len(f))
	}
	var v [18]float64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return SWFJob{}, ls.errorf("invalid %s %s", swfFieldNames[i], quote(s))
		}
		v[i] = x
	}
	var n [18]int64
	for _, i := range []int{0, 4, 7, 10, 11, 12, 13, 14, 15, 16} {
		if v[i] != math.Trunc(v[i]) || math.Abs(v[i]) > 1<<53 {
			return SWFJob{}, ls.errorf("invalid %s %s: not an integer", swfFieldNames[i], quote(f[i]))
		}
		n[i] = int64(v[i])
	}
	return SWFJob{
		JobNumber: n[0], SubmitTime: v[1], WaitTime: v[2], RunTime: v[3],
		AllocatedProcs: n[4], AvgCPUTime: v[5], UsedMemory: v[6], RequestedProcs: n[7],
		RequestedTime: v[8], RequestedMemory: v[9], Status: n[10], UserID: n[11],
		GroupID: n[12], Executable: n[13], Queue: n[14], Partition: n[15],
		PrecedingJob: n[16], ThinkTime: v[17],
	}, nil
}

// CQSimJob is one line of a CQSim simulation result file (".rst"):
//
//	id;reqProc;usedProc;reqTime;runTime;wait;submit;start;end
//
// CQSim replays a real log: ID, ReqProc, ReqTime, RunTime and Submit are
// the log's, while UsedProc, Wait, Start and End come out of the simulated
// schedule and say nothing about the real machine. Times are seconds.
type CQSimJob struct {
	ID       int64
	ReqProc  int64   // real: processors requested
	UsedProc int64   // simulated
	ReqTime  float64 // real: requested walltime
	RunTime  float64 // real: run time
	Wait     float64 // simulated
	Submit   float64 // real: submit time, seconds from the log's start
	Start    float64 // simulated
	End      float64 // simulated
}

// SWF maps the real fields to an SWFJob; simulated and absent fields are -1.
func (c CQSimJob) SWF() SWFJob {
	return SWFJob{
		JobNumber: c.ID, SubmitTime: c.Submit, WaitTime: -1, RunTime: c.RunTime,
		AllocatedProcs: -1, AvgCPUTime: -1, UsedMemory: -1, RequestedProcs: c.ReqProc,
		RequestedTime: c.ReqTime, RequestedMemory: -1, Status: -1, UserID: -1, GroupID: -1,
		Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1,
	}
}

// CQSimReader streams a CQSim result file: 9 fields separated by ";" per
// line. Blank lines and an optional header line starting with "id;" are
// skipped; gzip input is detected.
type CQSimReader struct {
	src  io.Reader
	name string
	ls   *lineScanner
	err  error
}

// NewCQSimReader returns a reader of the CQSim result file r.
func NewCQSimReader(r io.Reader, name string) *CQSimReader {
	return &CQSimReader{src: r, name: name}
}

var cqsimFieldNames = [9]string{"id", "reqProc", "usedProc", "reqTime", "runTime", "wait", "submit", "start", "end"}

// Next returns the next job or io.EOF.
func (r *CQSimReader) Next() (CQSimJob, error) {
	if r.err != nil {
		return CQSimJob{}, r.err
	}
	if r.ls == nil {
		rd, err := maybeGzip(r.src, r.name)
		if err != nil {
			r.err = err
			return CQSimJob{}, err
		}
		r.ls = newLineScanner(rd, r.name)
	}
	for r.ls.scan() {
		t := strings.TrimSpace(r.ls.text)
		if t == "" || strings.HasPrefix(strings.ToLower(t), "id;") {
			continue
		}
		j, err := parseCQSim(r.ls, t)
		if err != nil {
			r.err = err
		}
		return j, err
	}
	r.err = r.ls.err()
	if r.err == nil {
		r.err = io.EOF
	}
	return CQSimJob{}, r.err
}

func parseCQSim(ls *lineScanner, line string) (CQSimJob, error) {
	f := strings.Split(line, ";")
	if len(f) != 9 {
		return CQSimJob{}, ls.errorf("%d fields, CQSim results have 9 (id;reqProc;usedProc;reqTime;runTime;wait;submit;start;end)", len(f))
	}
	var v [9]float64
	for i, s := range f {
		s = strings.TrimSpace(s)
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return CQSimJob{}, ls.errorf("invalid %s %s", cqsimFieldNames[i], quote(s))
		}
		if (i <= 2) && (x != math.Trunc(x) || math.Abs(x) > 1<<53) {
			return CQSimJob{}, ls.errorf("invalid %s %s: not an integer", cqsimFieldNames[i], quote(s))
		}
		v[i] = x
	}
	return CQSimJob{ID: int64(v[0]), ReqProc: int64(v[1]), UsedProc: int64(v[2]), ReqTime: v[3],
		RunTime: v[4], Wait: v[5], Submit: v[6], Start: v[7], End: v[8]}, nil
}

// ReadCQSim reads a whole CQSim result file as SWF jobs (see CQSimJob.SWF),
// in file order (CQSim writes them in order of completion, not of ID).
func ReadCQSim(r io.Reader, name string) ([]SWFJob, error) {
	cr := NewCQSimReader(r, name)
	var jobs []SWFJob
	for {
		j, err := cr.Next()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, j.SWF())
	}
}

// WriteSWF writes an SWF v2.2 log: the header fields of h in order, one
// "; Key: Value" line each (h.Fields; the typed fields of h are not
// consulted, so a header read by ReadSWF is written as it was read, minus
// free-text comment lines), then one line per job, its 18 fields separated
// by single blanks, numbers in their shortest exact form. ReadSWF reads the
// result back to the same header fields and the same jobs, and writing
// them again gives the same bytes. Keys must be non-empty words without
// blanks or colons, values single lines; integer fields must be within
// ±2⁵³ (what the reader accepts) and times finite.
func WriteSWF(w io.Writer, h SWFHeader, jobs []SWFJob) error {
	bw := bufio.NewWriter(w)
	for _, f := range h.Fields {
		if f.Key == "" || strings.ContainsAny(f.Key, " \t:\r\n") || strings.ContainsAny(f.Value, "\r\n") {
			return fmt.Errorf("swf header field %s: %s: want a one-word key and a one-line value", quote(f.Key), quote(f.Value))
		}
		v := strings.TrimSpace(f.Value)
		if v == "" {
			fmt.Fprintf(bw, "; %s:\n", f.Key)
		} else {
			fmt.Fprintf(bw, "; %s: %s\n", f.Key, v)
		}
	}
	ff := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for i, j := range jobs {
		for _, x := range []float64{j.SubmitTime, j.WaitTime, j.RunTime, j.AvgCPUTime, j.UsedMemory, j.RequestedTime, j.RequestedMemory, j.ThinkTime} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("swf job %d (number %d): non-finite time %v", i, j.JobNumber, x)
			}
		}
		for _, n := range []int64{j.JobNumber, j.AllocatedProcs, j.RequestedProcs, j.Status, j.UserID, j.GroupID, j.Executable, j.Queue, j.Partition, j.PrecedingJob} {
			if n > 1<<53 || n < -(1<<53) {
				return fmt.Errorf("swf job %d (number %d): integer field %d beyond 2^53", i, j.JobNumber, n)
			}
		}
		fmt.Fprintf(bw, "%d %s %s %s %d %s %s %d %s %s %d %d %d %d %d %d %d %s\n", j.JobNumber, ff(j.SubmitTime),
			ff(j.WaitTime), ff(j.RunTime), j.AllocatedProcs, ff(j.AvgCPUTime), ff(j.UsedMemory), j.RequestedProcs,
			ff(j.RequestedTime), ff(j.RequestedMemory), j.Status, j.UserID, j.GroupID, j.Executable, j.Queue,
			j.Partition, j.PrecedingJob, ff(j.ThinkTime))
	}
	return bw.Flush()
}

// GeneratedSWFHeader is the header ckpt writes on a workload it generated:
// Version 2.2, Computer "synthetic", Installation "generated by " +
// generator, MaxJobs and MaxRecords = jobs, MaxProcs, then one
// "Generator:", one "Seed:" and one "Parameter: name=value" line per
// parameter, in the order given (ReadSWF keeps them in Fields).
func GeneratedSWFHeader(generator string, seed uint64, params [][2]string, jobs int, maxProcs int) SWFHeader {
	h := newSWFHeader()
	add := func(k, v string) { h.Fields = append(h.Fields, SWFHeaderField{Key: k, Value: v}) }
	add("Version", "2.2")
	add("Computer", "synthetic")
	add("Installation", "generated by "+generator)
	add("MaxJobs", strconv.Itoa(jobs))
	add("MaxRecords", strconv.Itoa(jobs))
	add("MaxProcs", strconv.Itoa(maxProcs))
	add("Generator", generator)
	add("Seed", strconv.FormatUint(seed, 10))
	for _, p := range params {
		add("Parameter", p[0]+"="+p[1])
	}
	h.Version, h.Computer, h.Installation = "2.2", "synthetic", "generated by "+generator
	h.MaxJobs, h.MaxRecords, h.MaxProcs = int64(jobs), int64(jobs), int64(maxProcs)
	return h
}
