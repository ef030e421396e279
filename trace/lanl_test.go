package trace

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// lanlSample holds lines of LA-UR-05-7318-failure-data-1996-2005.csv: the
// header, records of system 2 (one with a quoted root cause, one across the
// end of daylight saving time), system 17 (no hardware columns) and system
// 7 (no root cause).
const lanlSample = `System,machine type,nodes,procstot,procsinnode,nodenum,nodenumz,node install,node prod,node decom,fru type,mem,cputype,memtype,num intercon,purpose,Prob Started,Prob Fixed,Down Time,Facilities,Hardware,Human Error,Network,Undetermined,Software,Same Event
2,cluster,49,6152,80,0,0,5-Apr,5-Jun,current,part,80,1,1,0,graphics.fe,6/21/2005 10:54,6/21/2005 11:00,6,,Graphics Accel Hdwr,,,,,No
2,cluster,49,6152,80,0,0,5-Apr,5-Jun,current,part,80,1,1,0,graphics.fe,9/6/2005 9:13,9/6/2005 9:19,6,,,,,,Other Software,No
2,cluster,49,6152,128,1,1,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,4/19/2001 3:27,4/19/2001 3:48,21,,,,,,"MPI, PVM, Array services",No
2,cluster,49,6152,128,3,3,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,10/31/2004 0:16,10/31/2004 2:35,199,,Fan Assembly,,,,,No
17,,,,,,,,,,,,,,,,1/8/1997 8:40,1/8/1997 8:50,10,,Other,,,,,No
17,,,,,,,,,,,,,,,,3/17/1997 8:25,3/17/1997 9:05,40,,,,,Unresolvable,,No
7,smp,1,8,8,0,0,before tracking,before tracking,Dec-99,part,16,3,3,0,compute,5/19/1995 21:55,5/19/1995 22:58,63,,,,,,,No
`

func TestLANLRecords(t *testing.T) {
	recs, err := ReadLANL(strings.NewReader(lanlSample), "lanl.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 7 {
		t.Fatalf("%d records", len(recs))
	}
	want := LANLFailure{System: 2, MachineType: "cluster", Nodes: 49, ProcsTotal: 6152, ProcsPerNode: 128,
		NodeNum: 1, NodeNumZero: 1, NodeInstall: "Nov-96", NodeProduction: "Jan-97", NodeDecommission: "5-Nov",
		FRUType: "part", Memory: 32, CPUType: 1, MemType: 1, Interconnects: 12, Purpose: "compute",
		Started: time.Date(2001, 4, 19, 3, 27, 0, 0, time.UTC), Fixed: time.Date(2001, 4, 19, 3, 48, 0, 0, time.UTC),
		Downtime: 21 * 60, Cause: "Software", CauseDetail: "MPI, PVM, Array services", Line: 4}
	if !reflect.DeepEqual(recs[2], want) {
		t.Errorf("record 3:\n got %+v\nwant %+v", recs[2], want)
	}
	if r := recs[0]; r.Cause != "Hardware" || r.CauseDetail != "Graphics Accel Hdwr" || r.Purpose != "graphics.fe" {
		t.Errorf("record 1 %+v", r)
	}
	// Across the end of daylight saving time the recorded down time is one
	// hour more than the wall-clock difference.
	if r := recs[3]; r.Downtime != 199*60 || r.Fixed.Sub(r.Started) != 139*time.Minute {
		t.Errorf("DST record %+v", r)
	}
	if r := recs[4]; r.System != 17 || r.Nodes != -1 || r.MachineType != "" || r.Memory != -1 || r.Cause != "Hardware" {
		t.Errorf("system 17 record %+v", r)
	}
	if r := recs[6]; r.Cause != "" || r.CauseDetail != "" || r.Started.Year() != 1995 {
		t.Errorf("no-cause record %+v", r)
	}
	// Streaming, without a header, with blank lines and 2-digit years.
	lr := NewLANLReader(strings.NewReader("\n2,cluster,49,6152,80,0,0,5-Apr,5-Jun,current,part,80,1,1,0,compute,6/21/05 10:54,6/21/05 11:00,,,,,,,,Yes\n\n"), "s")
	r, err := lr.Next()
	if err != nil || r.Started != time.Date(2005, 6, 21, 10, 54, 0, 0, time.UTC) || r.Downtime != -1 || !r.SameEvent || r.Line != 2 {
		t.Errorf("%+v %v", r, err)
	}
	if _, err := lr.Next(); err != io.EOF || lr.Skipped() != 2 {
		t.Errorf("end: %v, skipped %d", err, lr.Skipped())
	}
}

func TestLANLErrors(t *testing.T) {
	rec := "2,cluster,49,6152,80,0,0,5-Apr,5-Jun,current,part,80,1,1,0,compute,6/21/2005 10:54,6/21/2005 11:00,6,,CPU,,,,,No"
	cases := []struct {
		in   string
		line int
		frag []string
	}{
		{rec + "\n" + strings.Replace(rec, "6/21/2005 10:54", "2005-06-21 10:54", 1), 2, []string{`problem-started time "2005-06-21 10:54"`}},
		{strings.Replace(rec, "6/21/2005 11:00", "6/21/2005 9:00", 1), 1, []string{"fixed", "before it started"}},
		{strings.Replace(rec, ",6,,CPU", ",6,CPU", 1), 1, []string{"25 columns", "26"}},
		{strings.Replace(rec, ",6,,CPU,,", ",6,,CPU,Human Error,", 1), 1, []string{"two root causes", "Hardware", "Human Error"}},
		{strings.Replace(rec, "2,cluster,49", "x,cluster,49", 1), 1, []string{`invalid system "x"`}},
		{strings.Replace(rec, "2,cluster,49", ",cluster,49", 1), 1, []string{`invalid system ""`}},
		{strings.Replace(rec, "cluster,49", "cluster,-49", 1), 1, []string{`invalid nodes "-49"`}},
		{strings.Replace(rec, ",6,,CPU", ",six,,CPU", 1), 1, []string{`invalid down time "six"`}},
		{strings.Replace(rec, ",No", ",Maybe", 1), 1, []string{`same-event flag "Maybe"`}},
		{"System,nodes\n" + rec, 1, []string{"header has 2 columns"}},
		{strings.Replace(rec, "CPU", `"CPU`, 1), 1, []string{"unterminated quote"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := ReadLANL(strings.NewReader(c.in), "l.csv")
			wantErr(t, "l.csv", err, c.line, c.frag...)
		})
	}
}

func TestLANLGroups(t *testing.T) {
	recs, err := ReadLANL(strings.NewReader(lanlSample), "lanl.csv")
	if err != nil {
		t.Fatal(err)
	}
	sys := GroupLANLBySystem(recs)
	if len(sys) != 3 || sys[0].System != 2 || sys[1].System != 7 || sys[2].System != 17 {
		t.Fatalf("systems %+v", sys)
	}
	s2 := sys[0]
	var lines []int
	for _, f := range s2.Failures {
		lines = append(lines, f.Line)
	}
	if !reflect.DeepEqual(lines, []int{4, 5, 2, 3}) {
		t.Errorf("system 2 order by start: lines %v", lines)
	}
	ift := s2.InterFailureTimes()
	want := []float64{
		time.Date(2004, 10, 31, 0, 16, 0, 0, time.UTC).Sub(time.Date(2001, 4, 19, 3, 27, 0, 0, time.UTC)).Seconds(),
		time.Date(2005, 6, 21, 10, 54, 0, 0, time.UTC).Sub(time.Date(2004, 10, 31, 0, 16, 0, 0, time.UTC)).Seconds(),
		time.Date(2005, 9, 6, 9, 13, 0, 0, time.UTC).Sub(time.Date(2005, 6, 21, 10, 54, 0, 0, time.UTC)).Seconds(),
	}
	if !reflect.DeepEqual(ift, want) || !reflect.DeepEqual(s2.InterEventTimes(), want) {
		t.Errorf("inter-failure times %v, want %v", ift, want)
	}
	same := LANLSystem{Failures: []LANLFailure{recs[0], recs[0], recs[1]}}
	if iet := same.InterEventTimes(); len(iet) != 1 || len(same.InterFailureTimes()) != 2 {
		t.Errorf("simultaneous failures: %v", iet)
	}
	if m := s2.MTBF(); math.Abs(m-(want[0]+want[1]+want[2])/3) > 1e-6 {
		t.Errorf("MTBF %v", m)
	}
	if s := sys[1]; s.InterFailureTimes() != nil || !math.IsNaN(s.MTBF()) {
		t.Errorf("single failure: %v %v", s.InterFailureTimes(), s.MTBF())
	}
}

func TestLANLRealFile(t *testing.T) {
	const rel = "failures/LA-UR-05-7318-failure-data-1996-2005.csv"
	recs, err := ReadLANL(openReal(t, rel), rel)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 23739 {
		t.Errorf("%d records, want 23739", len(recs))
	}
	sys := GroupLANLBySystem(recs)
	counts := map[int]int{}
	noCause, zeros, intervals := 0, 0, 0
	for _, s := range sys {
		ift, iet := s.InterFailureTimes(), s.InterEventTimes()
		intervals += len(ift)
		nz := 0
		for _, x := range ift {
			if x > 0 {
				nz++
			}
		}
		if len(iet) != nz {
			t.Errorf("system %d: %d inter-event times, %d non-zero inter-failure times", s.System, len(iet), nz)
		}
		counts[s.System] = len(s.Failures)
		if !sort.SliceIsSorted(s.Failures, func(i, j int) bool { return s.Failures[i].Started.Before(s.Failures[j].Started) }) {
			t.Errorf("system %d not sorted", s.System)
		}
		for _, x := range s.InterFailureTimes() {
			if x < 0 {
				t.Fatalf("system %d: negative inter-failure time", s.System)
			}
			if x == 0 {
				zeros++
			}
		}
	}
	for _, r := range recs {
		if r.Cause == "" {
			noCause++
		}
	}
	if len(sys) != 23 || counts[2] != 7104 || counts[18] != 3997 || counts[17] != 126 || noCause != 453 {
		t.Errorf("%d systems, counts %v, %d without cause", len(sys), counts, noCause)
	}
	if intervals != 23739-23 || zeros != 2387 {
		t.Errorf("%d intervals, %d zero", intervals, zeros)
	}
	t.Logf("%d records, %d systems, %d without root cause, %d of %d inter-failure times zero; system 2 MTBF %.1f h",
		len(recs), len(sys), noCause, zeros, intervals, sys[0].MTBF()/3600)
}

func FuzzLANL(f *testing.F) {
	f.Add(lanlSample)
	f.Add("2,cluster,49,6152,80,0,0,5-Apr,5-Jun,current,part,80,1,1,0,compute,6/21/05 10:54,6/21/05 11:00,,,,,,,,Yes\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadLANL(strings.NewReader(in), "fz")
		if err != nil {
			checkErrShape(t, "fz", err)
			return
		}
		for i, r := range recs {
			if r.Line < 1 || i > 0 && r.Line <= recs[i-1].Line {
				t.Fatalf("record %d on line %d after line %d", i, r.Line, recs[max(i-1, 0)].Line)
			}
			if r.Fixed.Before(r.Started) || !(r.Downtime == -1 || r.Downtime >= 0) || math.IsInf(r.Downtime, 0) {
				t.Fatalf("line %d: started %v fixed %v downtime %v", r.Line, r.Started, r.Fixed, r.Downtime)
			}
			if r.System < 0 || r.Cause == "" && r.CauseDetail != "" {
				t.Fatalf("line %d: system %d cause %q %q", r.Line, r.System, r.Cause, r.CauseDetail)
			}
		}
		for _, s := range GroupLANLBySystem(recs) {
			if m := s.MTBF(); len(s.Failures) >= 2 && !(m >= 0) {
				t.Fatalf("system %d: MTBF %v", s.System, m)
			}
			for _, x := range s.InterEventTimes() {
				if !(x > 0) {
					t.Fatalf("inter-event time %v, want > 0", x)
				}
			}
			for _, x := range s.InterFailureTimes() {
				if x < 0 || math.IsNaN(x) {
					t.Fatalf("bad inter-failure time %v", x)
				}
			}
		}
	})
}

// Skipped is the number of header and blank lines skipped so far.
func (r *LANLReader) Skipped() int { return r.skipped }
