package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// swfNASA is the start of NASA-iPSC-1993-3.1-cln.swf (Parallel Workloads
// Archive, cleaned), header and first jobs.
const swfNASA = `; Version: 2.2
; Computer: Intel iPSC/860
; Installation: NASA Ames Research Center
;
; Acknowledge: Bill Nitzberg
; Information: http://www.nas.nasa.gov/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
;
; Conversion: Dror Feitelson (feit@cs.huji.ac.il) 19 Dec 2011
; MaxJobs: 42264
; MaxRecords: 42264
; Preemption: No
; UnixStartTime: 749458803
; TimeZone: -28800
; TimeZoneString: US/Pacific
; StartTime: Fri Oct 01 00:00:03 PDT 1993
; EndTime:   Fri Dec 31 23:03:45 PST 1993
; MaxNodes: 128
; MaxProcs: 128
; Note: There is no information on wait times - the given submit
;       times are actually start times
; Note: group 1 is normal users
;       group 2 is system personnel
; Note: there is no data about batch queues
; MaxQueues: 2
; Queue:  0  interactive    
; Queue:  1  batch          
;
; Note: THIS IS A CLEANED VERSION OF THE LOG!
;       The filter used to produce it was
;         user=3 and proc=1 and app=1 (24025 jobs removed)
;
    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1
    2     1460     -1   3726  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1
    3     5198     -1   1067  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1
   57    25574     -1     10    1     -1    -1   -1     -1    -1 -1   4   1   2 -1 -1 -1 -1
`

// swfTheta is the start of ALCF-Theta-2022_cqsimplus.swf: minimal header,
// submit times are Unix times.
const swfTheta = `; UnixStartTime: 0 
; MaxNodes: 4360
; MaxProcs: 4360
1 1641021254 52645 10849 128 -1 -1 128 10800 -1 0 -1 -1 -1 -1 -1 -1 0
2 1641022430 40859 12696 640 -1 -1 640 12600 -1 0 -1 -1 -1 -1 -1 -1 0
`

// cqsimKIT is the start of KIT-FH2-2016-1_CQSim-simresult.rst.
const cqsimKIT = `1;100;100;14400.0;14400.0;0.0;0.0;0.0;14400.0
2;100;100;14400.0;14400.0;0.0;37.0;37.0;14437.0
3;20;20;3600.0;45.0;0.0;76068.0;76068.0;76113.0
5;1;1;3600.0;50.0;0.0;108300.0;108300.0;108350.0
4;1;1;3600.0;154.0;0.0;108213.0;108213.0;108367.0
`

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSWFHeaderAndJobs(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		var r io.Reader = strings.NewReader(swfNASA)
		if compressed {
			r = bytes.NewReader(gz(t, swfNASA))
		}
		h, jobs, err := ReadSWF(r, "nasa.swf")
		if err != nil {
			t.Fatal(err)
		}
		if h.Version != "2.2" || h.Computer != "Intel iPSC/860" || h.MaxNodes != 128 || h.MaxProcs != 128 ||
			h.UnixStartTime != 749458803 || h.TimeZone != -28800 || h.MaxJobs != 42264 || h.Preemption != "No" ||
			h.StartTime != "Fri Oct 01 00:00:03 PDT 1993" || h.TimeZoneString != "US/Pacific" || h.MaxRuntime != -1 {
			t.Errorf("header %+v", h)
		}
		if h.Information != "http://www.nas.nasa.gov/ http://www.cs.huji.ac.il/labs/parallel/workload/" {
			t.Errorf("continued Information %q", h.Information)
		}
		wantNotes := []string{
			"There is no information on wait times - the given submit times are actually start times",
			"group 1 is normal users group 2 is system personnel",
			"there is no data about batch queues",
			"THIS IS A CLEANED VERSION OF THE LOG! The filter used to produce it was user=3 and proc=1 and app=1 (24025 jobs removed)",
		}
		if !reflect.DeepEqual(h.Notes, wantNotes) || !reflect.DeepEqual(h.Queues, []string{"0  interactive", "1  batch"}) {
			t.Errorf("notes %q queues %q", h.Notes, h.Queues)
		}
		if len(h.Fields) != 23 || h.Fields[0] != (SWFHeaderField{"Version", "2.2", 1}) {
			t.Errorf("%d fields, first %+v", len(h.Fields), h.Fields[0])
		}
		if len(jobs) != 4 {
			t.Fatalf("%d jobs", len(jobs))
		}
		want := SWFJob{JobNumber: 57, SubmitTime: 25574, WaitTime: -1, RunTime: 10, AllocatedProcs: 1,
			AvgCPUTime: -1, UsedMemory: -1, RequestedProcs: -1, RequestedTime: -1, RequestedMemory: -1,
			Status: -1, UserID: 4, GroupID: 1, Executable: 2, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
		if jobs[3] != want {
			t.Errorf("job 4 = %+v", jobs[3])
		}
		if u, ok := h.SubmitUnix(jobs[1]); !ok || u != 749458803+1460 {
			t.Errorf("SubmitUnix = %v, %v", u, ok)
		}
	}
}

func TestSWFStreaming(t *testing.T) {
	r := NewSWFReader(strings.NewReader(swfTheta+"\n\n"), "theta.swf")
	h, err := r.Header()
	if err != nil || h.UnixStartTime != 0 || h.MaxNodes != 4360 || r.Line() != 4 {
		t.Fatalf("header %+v, %v, line %d", h, err, r.Line())
	}
	j, err := r.Next()
	if err != nil || j.JobNumber != 1 || j.SubmitTime != 1641021254 || j.RequestedTime != 10800 || j.Status != 0 {
		t.Fatalf("first job %+v, %v", j, err)
	}
	if u, ok := h.SubmitUnix(j); !ok || u != 1641021254 {
		t.Errorf("SubmitUnix %v %v", u, ok)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("after last job: %v", err)
		}
	}
	if r.Skipped() != 2 {
		t.Errorf("skipped %d blank lines, want 2", r.Skipped())
	}
	// Header-only and empty logs have no jobs and no error.
	for _, in := range []string{"", "; Version: 2.2\n"} {
		h, jobs, err := ReadSWF(strings.NewReader(in), "e")
		if err != nil || len(jobs) != 0 {
			t.Errorf("%q: %v, %v", in, jobs, err)
		}
		if in != "" && h.Version != "2.2" {
			t.Errorf("%q: header %+v", in, h)
		}
	}
	// Integral values written as floats are accepted.
	_, jobs, err := ReadSWF(strings.NewReader("1 0 5 60.5 4.0 -1 -1 4 120 -1 1 1 1 -1 -1 -1 -1 -1\n"), "f")
	if err != nil || jobs[0].AllocatedProcs != 4 || jobs[0].RunTime != 60.5 {
		t.Errorf("%+v, %v", jobs, err)
	}
}

func TestSWFErrors(t *testing.T) {
	job := "1 0 -1 10 1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n"
	cases := []struct {
		in   string
		line int
		frag []string
	}{
		{"; Version: 2.2\n" + job + "1 0 -1 10 1\n", 3, []string{"5 fields", "18"}},
		{job + strings.Replace(job, "10", "abc", 1), 2, []string{`invalid run time "abc"`}},
		{job + strings.Replace(job, " 1 -1", " 1.5 -1", 1), 2, []string{`allocated processors "1.5"`, "not an integer"}},
		{job + strings.Replace(job, "10", "NaN", 1), 2, []string{`invalid run time "NaN"`}},
		{"; MaxProcs: lots\n" + job, 1, []string{`invalid header MaxProcs "lots"`}},
		{"\x1f\x8bnot gzip", 0, []string{"gzip"}},
	}
	for _, c := range cases {
		_, _, err := ReadSWF(strings.NewReader(c.in), "x.swf")
		wantErr(t, "x.swf", err, c.line, c.frag...)
	}
	// A truncated gzip stream fails on the line being read.
	b := gz(t, swfNASA)
	_, _, err := ReadSWF(bytes.NewReader(b[:len(b)-12]), "cut.swf.gz")
	checkErrShape(t, "cut.swf.gz", err)
	if err == nil {
		t.Error("truncated gzip accepted")
	}
	// After an error, Next keeps returning it.
	r := NewSWFReader(strings.NewReader("x\n"+job), "x")
	_, err1 := r.Next()
	_, err2 := r.Next()
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v then %v", err1, err2)
	}
}

func TestSWFRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs := make([]SWFJob, rapid.IntRange(0, 20).Draw(t, "n"))
		num := func(label string) int64 { return rapid.Int64Range(-1, 1<<40).Draw(t, label) }
		tm := func(label string) float64 { return float64(rapid.Int64Range(-1, 1<<40).Draw(t, label)) / 4 }
		var b strings.Builder
		b.WriteString("; Version: 2.2\n; MaxProcs: 64\n")
		for i := range jobs {
			jobs[i] = SWFJob{num("id"), tm("submit"), tm("wait"), tm("run"), num("alloc"), tm("cpu"), tm("mem"),
				num("req"), tm("reqt"), tm("reqm"), num("status"), num("user"), num("group"), num("exe"),
				num("queue"), num("part"), num("prec"), tm("think")}
			j := jobs[i]
			f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
			fmt.Fprintf(&b, "%d %s %s %s %d %s %s %d %s %s %d %d %d %d %d %d %d %s\n", j.JobNumber, f(j.SubmitTime),
				f(j.WaitTime), f(j.RunTime), j.AllocatedProcs, f(j.AvgCPUTime), f(j.UsedMemory), j.RequestedProcs,
				f(j.RequestedTime), f(j.RequestedMemory), j.Status, j.UserID, j.GroupID, j.Executable, j.Queue,
				j.Partition, j.PrecedingJob, f(j.ThinkTime))
		}
		h, got, err := ReadSWF(strings.NewReader(b.String()), "rt")
		if err != nil || h.MaxProcs != 64 || len(got) != len(jobs) {
			t.Fatalf("%v %+v %d", err, h, len(got))
		}
		for i := range jobs {
			if got[i] != jobs[i] {
				t.Fatalf("job %d: %+v, want %+v", i, got[i], jobs[i])
			}
		}
	})
}

func TestCQSim(t *testing.T) {
	jobs, err := ReadCQSim(strings.NewReader("id;reqProc;usedProc;reqTime;runTime;wait;submit;start;end\n"+cqsimKIT), "kit.rst")
	if err != nil || len(jobs) != 5 {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	want := SWFJob{JobNumber: 3, SubmitTime: 76068, WaitTime: -1, RunTime: 45, AllocatedProcs: -1, AvgCPUTime: -1,
		UsedMemory: -1, RequestedProcs: 20, RequestedTime: 3600, RequestedMemory: -1, Status: -1, UserID: -1,
		GroupID: -1, Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	if jobs[2] != want {
		t.Errorf("job 3 = %+v", jobs[2])
	}
	r := NewCQSimReader(strings.NewReader(cqsimKIT), "kit")
	c, err := r.Next()
	if err != nil || c != (CQSimJob{1, 100, 100, 14400, 14400, 0, 0, 0, 14400}) {
		t.Errorf("%+v %v", c, err)
	}
	for _, bad := range []struct {
		in   string
		line int
		frag string
	}{
		{cqsimKIT + "6;1;1;3600.0\n", 6, "4 fields"},
		{"1;x;1;1;1;1;1;1;1\n", 1, `invalid reqProc "x"`},
		{"1.5;1;1;1;1;1;1;1;1\n", 1, `invalid id "1.5": not an integer`},
		{"1;1;1;1;Inf;1;1;1;1\n", 1, `invalid runTime "Inf"`},
	} {
		_, err := ReadCQSim(strings.NewReader(bad.in), "kit")
		wantErr(t, "kit", err, bad.line, bad.frag)
	}
}

func TestSWFRealFiles(t *testing.T) {
	cases := []struct {
		rel      string
		jobs     int
		maxProcs int64
		start    int64
	}{
		{"swf/NASA-iPSC-1993-3.1-cln.swf.gz", 18239, 128, 749458803},
		{"swf/ALCF-Theta-2022_cqsimplus.swf", 23911, 4360, 0},
		{"swf/ALCF-Theta-2023_cqsimplus.swf", 8401, 4360, 0},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			r := NewSWFReader(openReal(t, c.rel), c.rel)
			n := 0
			for {
				j, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if j.RunTime < -1 || j.SubmitTime < 0 {
					t.Fatalf("line %d: %+v", r.Line(), j)
				}
				n++
			}
			h, _ := r.Header()
			if n != c.jobs || h.MaxProcs != c.maxProcs || h.UnixStartTime != c.start {
				t.Errorf("%d jobs, MaxProcs %d, UnixStartTime %d", n, h.MaxProcs, h.UnixStartTime)
			}
		})
	}
	t.Run("KIT", func(t *testing.T) {
		jobs, err := ReadCQSim(openReal(t, "swf/KIT-FH2-2016-1_CQSim-simresult.rst"), "kit")
		if err != nil || len(jobs) != 25326 {
			t.Fatalf("%d jobs, %v", len(jobs), err)
		}
	})
}

func FuzzSWF(f *testing.F) {
	f.Add([]byte(swfNASA))
	f.Add([]byte(swfTheta))
	f.Add(gz(f, swfTheta))
	f.Add([]byte("; Note: a\n;   b\n;\n; MaxNodes: 1 (x)\n1 0 5 60.5 4.0 -1 -1 4 120 -1 1 1 1 -1 -1 -1 -1 -1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewSWFReader(bytes.NewReader(in), "fz")
		for i := 0; ; i++ {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				checkErrShape(t, "fz", err)
				break
			}
			if i > len(in) {
				t.Fatal("more jobs than bytes")
			}
		}
		_, err := r.Header()
		checkErrShape(t, "fz", err)
	})
}

func FuzzCQSim(f *testing.F) {
	f.Add([]byte(cqsimKIT))
	f.Add([]byte("id;reqProc;usedProc;reqTime;runTime;wait;submit;start;end\n1;1;1;1;1;1;1;1;1\n\n"))
	f.Add(gz(f, cqsimKIT))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, err := ReadCQSim(bytes.NewReader(in), "fz")
		checkErrShape(t, "fz", err)
	})
}

// Accessors only the tests need.

// SubmitUnix is the submit time of j as a Unix time: UnixStartTime +
// SubmitTime. It is false when the header has no UnixStartTime or the
// submit time is unknown. (Logs whose submit field already holds Unix
// times, like the ALCF Theta conversions, declare UnixStartTime: 0.)
func (h SWFHeader) SubmitUnix(j SWFJob) (float64, bool) {
	if h.UnixStartTime < 0 || j.SubmitTime < 0 {
		return 0, false
	}
	return float64(h.UnixStartTime) + j.SubmitTime, true
}

// Skipped is the number of blank lines skipped so far.
func (r *SWFReader) Skipped() int { return r.blank }

// Line is the number of the last line read.
func (r *SWFReader) Line() int {
	if r.ls == nil {
		return 0
	}
	return r.ls.line
}
