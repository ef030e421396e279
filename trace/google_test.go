package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// gloudSimToEvents writes the task events that GloudSim's segments come
// from: per task a SUBMIT, then per segment a SCHEDULE at its start and, at
// its end, an interruption (evict, fail, kill, lost in turn) for all but
// the last segment and a FINISH for the last. Times are rounded to the
// microsecond; a segment overlapping the previous one (GloudSimMaxOverlap)
// is scheduled when the previous one ends.
func gloudSimToEvents(tr GloudSimTrace) []GoogleTaskEvent {
	var evs []GoogleTaskEvent
	fails := []int{GoogleEvict, GoogleFail, GoogleKill, GoogleLost}
	k := 0
	us := func(s float64) int64 { return int64(math.Round(s * 1e6)) }
	for _, j := range tr.Jobs {
		for ti, t := range j.Tasks {
			ev := func(tm int64, typ int) GoogleTaskEvent {
				return GoogleTaskEvent{Time: tm, JobID: j.ID, TaskIndex: int64(ti), Type: typ, Priority: j.Priority, User: "u"}
			}
			evs = append(evs, ev(us(t.Start), GoogleSubmit))
			prevEnd := int64(0)
			for i, s := range t.Segments {
				start := max(us(t.Start+s.Start), prevEnd)
				evs = append(evs, ev(start, GoogleSchedule))
				end, typ := us(t.Start+s.Start+s.Duration), GoogleFinish
				if i < len(t.Segments)-1 {
					typ = fails[k%4]
					k++
				}
				evs = append(evs, ev(end, typ))
				prevEnd = end
			}
		}
	}
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].Time < evs[b].Time })
	return evs
}

func TestGoogleTaskEventsMatchGloudSim(t *testing.T) {
	for _, file := range []string{"single-jobTrace-dec.dat", "batch-jobTrace-dec.dat", "mix-jobTrace-dec.dat"} {
		tr, err := ReadGloudSimFile(datadirtest.ForTest(t, "google2011", "gloudsim-task-traces", file))
		if err != nil {
			t.Fatal(err)
		}
		// GloudSim's reading: failures = segments − 1 per task.
		type acc struct {
			tasks, failures int
			sum             float64
		}
		want := map[int]*acc{}
		for _, j := range tr.Jobs {
			a := want[j.Priority]
			if a == nil {
				a = &acc{}
				want[j.Priority] = a
			}
			for _, tk := range j.Tasks {
				a.tasks++
				a.failures += tk.Failures()
				for _, d := range tk.FailureIntervals() {
					a.sum += d
				}
			}
		}
		var b bytes.Buffer
		if err := WriteGoogleTaskEvents(&b, gloudSimToEvents(tr)); err != nil {
			t.Fatal(err)
		}
		got, err := EstimateGoogle(&b, file)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d priorities, want %d", file, len(got), len(want))
		}
		for _, g := range got {
			w := want[g.Priority]
			if g.Tasks != w.tasks || g.Failures != w.failures || g.MNOF != float64(w.failures)/float64(w.tasks) {
				t.Errorf("%s priority %d: %d tasks, %d failures, MNOF %v; GloudSim %d, %d", file, g.Priority, g.Tasks, g.Failures, g.MNOF, w.tasks, w.failures)
			}
			// MTBF: the same intervals, up to µs rounding and the float32
			// durations of the GloudSim files.
			if w.failures > 0 && math.Abs(float64(g.MTBF)/(w.sum/float64(w.failures))-1) > 1e-4 {
				t.Errorf("%s priority %d: MTBF %v, GloudSim %v", file, g.Priority, g.MTBF, w.sum/float64(w.failures))
			}
			ends := 0
			for _, n := range g.Ends {
				ends += n
			}
			if ends != w.tasks+w.failures {
				t.Errorf("%s priority %d: %d segment ends, want %d", file, g.Priority, ends, w.tasks+w.failures)
			}
		}
	}
}

func TestGoogleSample(t *testing.T) {
	f, err := os.Open(datadirtest.ForTest(t, "google2011", "cloudsimplus_task-events-sample-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := EstimateGoogle(f, "sample")
	if err != nil {
		t.Fatal(err)
	}
	// Read by hand: 10 tasks of priority 9 scheduled; job 2 task 0 runs
	// 12–30 s, is evicted and rescheduled (one failure of 18 s); job 2 task 2
	// fails at 21 s and is not rescheduled (censored); 9 tasks finish.
	want := GooglePriorityStats{Priority: 9, FailureCount: FailureCount{Tasks: 10, Failures: 1, Interrupted: 18}, MNOF: 0.1, MTBF: 18,
		Ends: map[string]int{"evict": 1, "fail": 1, "finish": 9}}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("%+v", got)
	}
}

func TestGoogleRefusals(t *testing.T) {
	row := func(s string) string { return s + "\n" }
	for _, c := range []struct{ in, want string }{
		{row("1,,2,3"), "g:1: 4 fields"},
		{row("x,,1,0,,1,u,3,9,,,,"), "g:1: invalid timestamp \"x\""},
		{row("5,,1,0,,9,u,3,9,,,,"), "g:1: invalid event type \"9\""},
		{row("5,,1,0,,1,u,3,12,,,,"), "g:1: invalid priority 12"},
		{row("5,,1,0,,1,u,3,9,,,,") + row("4,,1,0,,4,u,3,9,,,,"), "g:2: job 1 task 0: event at 4 µs before"},
		{row("5,,1,0,,1,u,3,9,,,,") + row("6,,1,0,,1,u,3,9,,,,"), "g:2: job 1 task 0: scheduled at 6 µs while running"},
	} {
		_, err := EstimateGoogle(strings.NewReader(c.in), "g")
		var pe *ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func TestGoogleByHand(t *testing.T) {
	// Task (1,0): runs 0–10 s, evicted, runs 20–50 s, finishes: 1 failure of 10 s.
	// Task (1,1): runs 0–5 s, killed, never rescheduled: censored, 0 failures.
	// Task (2,0), priority 0: runs 0–4 s, fails, 6–7 s, lost, 8–9 s finish: 2 failures, MTBF 2.5 s.
	in := `0,,1,0,,0,u,,4,,,,
0,,1,0,,1,u,,4,,,,
0,,1,1,,1,u,,4,,,,
0,,2,0,,1,u,,0,,,,
4000000,,2,0,,3,u,,0,,,,
5000000,,1,1,,5,u,,4,,,,
6000000,,2,0,,1,u,,0,,,,
7000000,,2,0,,6,u,,0,,,,
8000000,,2,0,,1,u,,0,,,,
9000000,,2,0,,4,u,,0,,,,
10000000,,1,0,,2,u,,4,,,,
20000000,,1,0,,1,u,,4,,,,
50000000,,1,0,,4,u,,4,,,,
9223372036854775807,,1,1,,1,u,,4,,,,
`
	got, err := EstimateGoogle(strings.NewReader(in), "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Tasks != 1 || got[0].Failures != 2 || got[0].MNOF != 2 || got[0].MTBF != 2.5 ||
		got[1].Tasks != 2 || got[1].Failures != 1 || got[1].MNOF != 0.5 || got[1].MTBF != 10 ||
		got[1].Ends["kill"] != 1 || got[1].Ends["evict"] != 1 || got[1].Ends["finish"] != 1 {
		t.Errorf("%+v", got)
	}
}

func FuzzGoogleTaskEvents(f *testing.F) {
	f.Add([]byte("0,,1,0,,1,u,,4,,,,\n10,,1,0,,2,u,,4,,,,\n20,,1,0,,1,u,,4,,,,\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := EstimateGoogle(bytes.NewReader(in), "f")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Source != "f" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, g := range got {
			if g.Tasks < 1 || g.Failures < 0 || g.MNOF != float64(g.Failures)/float64(g.Tasks) || g.Failures > 0 && !(g.MTBF >= 0) {
				t.Fatalf("%+v", g)
			}
		}
	})
}

// WriteGoogleTaskEvents writes events as task_events rows (the columns
// not in GoogleTaskEvent left empty).
func WriteGoogleTaskEvents(w io.Writer, evs []GoogleTaskEvent) error {
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		if strings.ContainsAny(e.Machine+e.User, ",\n\r") {
			return fmt.Errorf("task event of job %d: machine or user contains a comma or newline", e.JobID)
		}
		fmt.Fprintf(bw, "%d,,%d,%d,%s,%d,%s,,%d,,,,\n", e.Time, e.JobID, e.TaskIndex, e.Machine, e.Type, e.User, e.Priority)
	}
	return bw.Flush()
}
