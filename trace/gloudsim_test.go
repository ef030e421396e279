package trace

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// Snippets of the GloudSim job traces (google2011/gloudsim-task-traces).
const (
	// gloudSingle: the first two jobs of single-jobTrace-dec.dat.
	gloudSingle = `jtMeanLength=2579.4517
  pjcMeanLength=952.4605  priority=4
    jobID:6451259517 jobMeanLength=100.0  mkspan=652.5  start=2124002.5  s=2  vs=1
      btMeanLength=100.0  sTime=2124002.5  totalTaskLength=652.5  wclockLength=654.0
        0 0.0 100.0 100.0
        0 101.5 654.0 552.5
    jobID:6426252241 jobMeanLength=176.6875  mkspan=389.125  start=1891527.6  s=3  vs=3
      btMeanLength=176.6875  sTime=1891527.5  totalTaskLength=389.125  wclockLength=395.375
        0 0.0 228.25 228.25
        0 229.875 355.0 125.125
        0 359.625 395.375 35.75
`
	// gloudBatch: the first job of batch-jobTrace-dec.dat, cut to two of
	// its tasks, and a job with a task that never failed.
	gloudBatch = `jtMeanLength=4256.493
  pjcMeanLength=2044.767  priority=4
    jobID:6451552682 jobMeanLength=408.05  mkspan=490.25  start=2126907.0  s=10  vs=10
      btMeanLength=419.0  sTime=2126907.0  totalTaskLength=457.5  wclockLength=459.25
        3 0.0 419.0 419.0
        3 420.75 459.25 38.5
      btMeanLength=403.5  sTime=2126907.0  totalTaskLength=464.5  wclockLength=466.0
        2 0.0 403.5 403.5
        2 405.0 466.0 61.0
  pjcMeanLength=NaN  priority=10
  pjcMeanLength=44.966274  priority=9
    jobID:6437041826 jobMeanLength=80.875  mkspan=137.625  start=1987568.5  s=3  vs=3
      btMeanLength=NaN  sTime=1987568.6  totalTaskLength=137.625  wclockLength=137.625
        1 0.0 137.625 137.625
      btMeanLength=80.875  sTime=1987568.6  totalTaskLength=136.5  wclockLength=138.5
        0 0.0 80.875 80.875
        0 82.875 138.5 55.625
`
	// gloudOverlap: the one task of the real batch and mix files whose
	// restart starts before its failed segment ended (job 6251684909).
	gloudOverlap = `jtMeanLength=4256.493
  pjcMeanLength=44.966274  priority=9
    jobID:6251684909 jobMeanLength=215.3434  mkspan=7701.264  start=782.53186  s=26  vs=26
      btMeanLength=154.0  sTime=830.0  totalTaskLength=7376.7812  wclockLength=7375.927
        3 0.0 154.0 154.0
        3 153.14563 7375.927 7222.7812
`
)

func readGloud(t *testing.T, in string) GloudSimTrace {
	t.Helper()
	tr, err := ReadGloudSim(strings.NewReader(in), "g.dat")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestGloudSimModel(t *testing.T) {
	tr := readGloud(t, gloudSingle)
	if tr.MeanLength != 2579.4517 || tr.PriorityMeanLength[4] != 952.4605 || len(tr.Jobs) != 2 || len(tr.Overlaps) != 0 {
		t.Fatalf("%+v", tr)
	}
	j := tr.Jobs[1]
	if j.ID != 6426252241 || j.Priority != 4 || j.MeanLength != 176.6875 || j.Makespan != 389.125 ||
		j.Start != 1891527.6 || j.Size != 3 || j.VSize != 3 || j.Line != 7 || len(j.Tasks) != 1 {
		t.Errorf("job %+v", j)
	}
	task := j.Tasks[0]
	if task.Index != 0 || task.Start != 1891527.5 || task.TotalLength != 389.125 || task.WallClock != 395.375 || task.Line != 8 {
		t.Errorf("task %+v", task)
	}
	want := []Segment{{0, 228.25, 228.25, 9}, {229.875, 355, 125.125, 10}, {359.625, 395.375, 35.75, 11}}
	if !reflect.DeepEqual(task.Segments, want) {
		t.Errorf("segments %+v", task.Segments)
	}
	if task.Failures() != 2 || j.Failures() != 2 {
		t.Errorf("failures %d", task.Failures())
	}
	if fi := task.FailureIntervals(); !reflect.DeepEqual(fi, []float64{228.25, 125.125}) || (fi[0]+fi[1])/2 != task.MeanLength {
		t.Errorf("failure intervals %v, btMeanLength %v", fi, task.MeanLength)
	}
	if rd := task.RestartDelays(); !reflect.DeepEqual(rd, []float64{1.625, 4.625}) {
		t.Errorf("restart delays %v", rd)
	}

	tr = readGloud(t, gloudBatch)
	if len(tr.Jobs) != 2 || tr.Jobs[1].Priority != 9 || len(tr.Jobs[0].Tasks) != 2 || tr.Jobs[0].Tasks[1].Index != 2 {
		t.Fatalf("%+v", tr)
	}
	if !math.IsNaN(tr.PriorityMeanLength[10]) || len(tr.PriorityMeanLength) != 3 {
		t.Errorf("priority means %v", tr.PriorityMeanLength)
	}
	never := tr.Jobs[1].Tasks[0]
	if never.Failures() != 0 || never.FailureIntervals() != nil || never.RestartDelays() != nil || !math.IsNaN(never.MeanLength) {
		t.Errorf("task without failure: %+v", never)
	}
	if tr.Jobs[1].Failures() != 1 || tr.Jobs[0].Failures() != 2 {
		t.Errorf("job failures %d %d", tr.Jobs[0].Failures(), tr.Jobs[1].Failures())
	}
	if (GloudSimTask{}).Failures() != 0 {
		t.Error("empty task has failures")
	}

	tr = readGloud(t, gloudOverlap)
	if !reflect.DeepEqual(tr.Overlaps, []int{6}) {
		t.Errorf("overlaps %v", tr.Overlaps)
	}
	if rd := tr.Jobs[0].Tasks[0].RestartDelays(); len(rd) != 1 || rd[0] > 0 {
		t.Errorf("overlap delay %v", rd)
	}
	// Blank lines are skipped and counted.
	if tr = readGloud(t, "\n"+gloudSingle+"\n"); tr.Skipped != 2 {
		t.Errorf("skipped %d", tr.Skipped)
	}
}

func TestGloudSimErrors(t *testing.T) {
	head := "jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:7 jobMeanLength=1  mkspan=10  start=0  s=2  vs=2\n" +
		"      btMeanLength=1  sTime=0  totalTaskLength=10  wclockLength=11\n"
	cases := []struct {
		in   string
		line int
		frag []string
	}{
		{head + "        0 0.0 5.0 5.0\n        0 6.0 11.0 5.0\n", 0, nil},
		{head + "        0 6.0 11.0 5.0\n        0 0.0 5.0 5.0\n", 6, []string{"out of order", "line 5"}},
		{head + "        0 0.0 5.0 5.0\n        0 3.0 8.0 5.0\n", 6, []string{"2 s before the previous segment (line 5) ends"}},
		{head + "        0 0.0 5.0 5.0\n        0 6.0 11.0 5.5\n", 6, []string{"duration", `"5.5"`}},
		{head + "        0 0.0 5.0 5.0\n        1 6.0 11.0 5.0\n", 6, []string{"task 1 inside task 0"}},
		{head + "        0 0.0 5.0 5.0\n        0 11.0 6.0 5.0\n", 6, []string{"before it starts"}},
		{head + "        0 0.0 5.0 5.0\n        0 6.0 11.0\n", 6, []string{"3 fields"}},
		{head + "        0 0.0 5.0 5.0\n        0 6.0 abc 5.0\n", 6, []string{`invalid segment end "abc"`}},
		{head + "        0 0.0 5.0 5.0\n        0 6.0 11.0 NaN\n", 6, []string{`invalid segment duration "NaN"`}},
		{head + "        0 0.0 5.0 5.0\n        0 6.0 12.0 6.0\n", 4, []string{"totalTaskLength 10", "11"}},
		{head + "        0 0.0 5.0 5.0\n        0 5.0 10.0 5.0\n", 4, []string{"wclockLength 11", "10"}},
		{head, 4, []string{"task has no segment lines"}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:7 jobMeanLength=1  mkspan=10  start=0  s=2  vs=2\n", 3, []string{"job 7 has no tasks"}},
		{"jtMeanLength=1\n    jobID:7 jobMeanLength=1  mkspan=10  start=0  s=2  vs=2\n", 2, []string{"before any pjcMeanLength"}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n      btMeanLength=1  sTime=0  totalTaskLength=10  wclockLength=11\n", 3, []string{"task before any jobID"}},
		{"jtMeanLength=1\n        0 0.0 5.0 5.0\n", 2, []string{"unexpected line"}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:x7 jobMeanLength=1  mkspan=10  start=0  s=2  vs=2\n", 3, []string{`invalid jobID "x7"`}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:7 jobMeanLength=1  start=0  s=2  vs=2\n", 3, []string{"missing mkspan"}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:7 jobMeanLength=1  mkspan=NaN  start=0  s=2  vs=2\n", 3, []string{`invalid mkspan "NaN"`}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:7 jobMeanLength=1  mkspan=1  start=-4  s=2  vs=2\n", 3, []string{`invalid start "-4": negative`}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=-1\n", 2, []string{`invalid priority "-1"`}},
		{"jtMeanLength=1\n  pjcMeanLength=1  priority=0\n  pjcMeanLength=1  priority=0\n", 3, []string{"priority 0 appears twice"}},
		{"jtMeanLength=1\n  pjcMeanLength=1 priority\n", 2, []string{`expected key=value, got "priority"`}},
		{"jtMeanLength=1 jtMeanLength=2\n", 1, []string{"duplicate key"}},
		{"jtMeanLength=1\n", 0, []string{"no jobs"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := ReadGloudSim(strings.NewReader(c.in), "g.dat")
			if c.frag == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErr(t, "g.dat", err, c.line, c.frag...)
		})
	}
}

func TestGloudSimRealFiles(t *testing.T) {
	cases := []struct {
		file                          string
		jobs, tasks, segments, failed int
		overlaps                      int
	}{
		{"single", 982, 982, 2813, 982, 0},
		{"batch", 101, 2078, 10132, 1683, 1},
		{"mix", 1000, 2977, 12774, 2582, 1},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			rel := "google2011/gloudsim-task-traces/" + c.file + "-jobTrace-dec.dat"
			tr, err := ReadGloudSim(openReal(t, rel), rel)
			if err != nil {
				t.Fatal(err)
			}
			tasks, segs, failed, failures := 0, 0, 0, 0
			for _, j := range tr.Jobs {
				nseg := 0
				for _, tk := range j.Tasks {
					tasks++
					segs += len(tk.Segments)
					nseg += len(tk.Segments)
					failures += tk.Failures()
					if tk.Failures() > 0 {
						failed++
					}
					// btMeanLength is the mean of the failure intervals.
					fi := tk.FailureIntervals()
					if len(fi) == 0 != math.IsNaN(tk.MeanLength) {
						t.Fatalf("line %d: btMeanLength %v with %d failures", tk.Line, tk.MeanLength, len(fi))
					}
					if len(fi) > 0 {
						m := 0.0
						for _, x := range fi {
							m += x
						}
						m /= float64(len(fi))
						if math.Abs(m-tk.MeanLength) > 1e-6*m {
							t.Fatalf("line %d: mean failure interval %v, btMeanLength %v", tk.Line, m, tk.MeanLength)
						}
					}
				}
				if nseg != j.Size {
					t.Fatalf("line %d: s=%d, %d segments", j.Line, j.Size, nseg)
				}
			}
			if len(tr.Jobs) != c.jobs || tasks != c.tasks || segs != c.segments || failed != c.failed || len(tr.Overlaps) != c.overlaps {
				t.Errorf("%d jobs, %d tasks, %d segments, %d failed tasks, overlaps %v", len(tr.Jobs), tasks, segs, failed, tr.Overlaps)
			}
			if failures != segs-tasks {
				t.Errorf("%d failures, want segments − tasks = %d", failures, segs-tasks)
			}
			t.Logf("%s: %d jobs, %d tasks, %d segments, %d failures (%d tasks failed), %d priority groups, overlaps at %v",
				c.file, len(tr.Jobs), tasks, segs, failures, failed, len(tr.PriorityMeanLength), tr.Overlaps)
		})
	}
}

func FuzzGloudSim(f *testing.F) {
	for _, s := range []string{gloudSingle, gloudBatch, gloudOverlap} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ReadGloudSim(strings.NewReader(in), "fz")
		if err != nil {
			checkErrShape(t, "fz", err)
			return
		}
		for _, j := range tr.Jobs {
			if len(j.Tasks) == 0 {
				t.Fatal("job without tasks")
			}
			for _, tk := range j.Tasks {
				if len(tk.Segments) == 0 || tk.Failures() != len(tk.Segments)-1 {
					t.Fatal("bad task")
				}
				if tk.Line <= j.Line {
					t.Fatalf("task on line %d before its job on line %d", tk.Line, j.Line)
				}
				for _, sg := range tk.Segments {
					if !(sg.Duration >= 0) || math.IsInf(sg.Duration, 0) || math.IsNaN(sg.Start) || math.IsInf(sg.End, 0) {
						t.Fatalf("segment %+v", sg)
					}
				}
				for i := 1; i < len(tk.Segments); i++ {
					if tk.Segments[i].Start < tk.Segments[i-1].Start ||
						tk.Segments[i].Start < tk.Segments[i-1].End-GloudSimMaxOverlap {
						t.Fatal("segments out of order")
					}
				}
			}
		}
	})
}

// Failures is the total number of failures of the job's tasks.
func (j GloudSimJob) Failures() int {
	n := 0
	for _, t := range j.Tasks {
		n += t.Failures()
	}
	return n
}

// Failures is the number of failures of the task: one per segment after the
// first (each restart follows a failure).
func (t GloudSimTask) Failures() int {
	if len(t.Segments) == 0 {
		return 0
	}
	return len(t.Segments) - 1
}

// RestartDelays are the gaps between the end of a failed segment and the
// start of the next one (negative for a tolerated overlap).
func (t GloudSimTask) RestartDelays() []float64 {
	if len(t.Segments) < 2 {
		return nil
	}
	out := make([]float64, len(t.Segments)-1)
	for i := range out {
		out[i] = t.Segments[i+1].Start - t.Segments[i].End
	}
	return out
}
