package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

func readBatsimFile(t *testing.T, file string) BatsimWorkload {
	t.Helper()
	f, err := os.Open(datadirtest.ForTest(t, "batsim", "workloads", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ReadBatsim(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestBatsimReferenceWorkloads(t *testing.T) {
	w := readBatsimFile(t, "test_walltime.json")
	// Counted by hand in the file: 22 delay jobs and 22 compute jobs.
	if w.NbRes != 64 || len(w.Jobs) != 44 || len(w.Profiles) != 2 {
		t.Fatalf("nb_res %d, %d jobs, %d profiles", w.NbRes, len(w.Jobs), len(w.Profiles))
	}
	if j := w.Jobs[20]; j.IDString() != "21" || j.Walltime != -1 || j.Res != 1 {
		t.Errorf("job 21 = %+v", j)
	}
	if d, ok := w.Delay("delay_10s"); !ok || d != 10 {
		t.Errorf("delay_10s = %v %v", d, ok)
	}
	if _, ok := w.Delay("compute_only_10s"); ok {
		t.Error("a ptask profile has no delay")
	}
	sw := w.SWF()
	if sw[0].RunTime != 10 || sw[0].RequestedTime != 1 || sw[21].SubmitTime != 10 || sw[22].RunTime != -1 {
		t.Errorf("SWF %+v %+v %+v", sw[0], sw[21], sw[22])
	}
	v := readBatsimFile(t, "test_various_profile_types.json")
	if v.Jobs[0].IDString() != "delay" || string(v.Jobs[0].ID) != `"delay"` || v.SWF()[1].JobNumber != 2 {
		t.Errorf("string ids: %s, %+v", v.Jobs[0].ID, v.SWF()[1])
	}
	e := readBatsimFile(t, "example_workload_hpc_seed1_jobs250.json")
	if len(e.Jobs) != 250 || e.Extra["command"] == nil {
		t.Errorf("%d jobs, extra %v", len(e.Jobs), sortedKeys(e.Extra))
	}
	// Write then read gives the same workload, and writing again the same bytes.
	for _, w := range []BatsimWorkload{w, v, e} {
		var a, b bytes.Buffer
		if err := WriteBatsim(&a, w); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBatsim(bytes.NewReader(a.Bytes()), "a")
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteBatsim(&b, back); err != nil || a.String() != b.String() {
			t.Fatalf("second write differs: %v", err)
		}
		if !reflect.DeepEqual(back.SWF(), w.SWF()) || len(back.Profiles) != len(w.Profiles) {
			t.Fatal("jobs changed by the round trip")
		}
	}
}

func TestBatsimRefusals(t *testing.T) {
	const prof = `"profiles": {"d": {"type": "delay", "delay": 5}}`
	for _, c := range []struct{ in, want string }{
		{"", "w: empty input"},
		{"[1]", "w:1: want a JSON object"},
		{"{\n\"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"d\"},\n{\"id\": 2, \"subtime\": -1, \"res\": 1, \"profile\": \"d\"}\n], " + prof + "}", "w:4: job 2: subtime -1 must be >= 0"},
		{"{\"nb_res\": 2, \"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"res\": 3, \"profile\": \"d\"}], " + prof + "}", "w:2: job 1: res 3 > nb_res 2"},
		{"{\"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"x\"}], " + prof + "}", `w:2: job 1: undefined profile "x"`},
		{"{\"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"d\"},\n{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"d\"}], " + prof + "}", "w:3: job id \"1\" already used on line 2"},
		{"{\"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 1.5, \"profile\": \"d\"}], " + prof + "}", "must be an integer"},
		{"{\"jobs\": [{\"id\": 1, \"subtime\": 0, \"walltime\": 0, \"res\": 1, \"profile\": \"d\"}], " + prof + "}", "walltime 0 must be > 0"},
		{"{\"jobs\": []\n,\n \"profiles\": {\"d\": 3}}", "w:3: profile \"d\""},
		{"{\"jobs\": [\n{\"id\": 1,,}]}", "w:2: invalid JSON"},
	} {
		_, err := ReadBatsim(strings.NewReader(c.in), "w")
		var pe *ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// swfBatsimJob draws an SWF job whose fields all survive Batsim: known
// width and run time, requested time > 0 or unknown, the rest unknown.
func swfBatsimJob(t *rapid.T, i int) SWFJob {
	rt := float64(rapid.Int64Range(0, 1<<40).Draw(t, "run")) / 8
	wt := float64(rapid.Int64Range(0, 1<<40).Draw(t, "wall")) / 4
	if wt == 0 {
		wt = -1
	}
	return SWFJob{JobNumber: int64(i) + rapid.Int64Range(0, 3).Draw(t, "gap")*1000, SubmitTime: float64(rapid.Int64Range(0, 1<<40).Draw(t, "sub")) / 16,
		WaitTime: -1, RunTime: rt, AllocatedProcs: -1, AvgCPUTime: -1, UsedMemory: -1,
		RequestedProcs: rapid.Int64Range(1, 1<<20).Draw(t, "p"), RequestedTime: wt, RequestedMemory: -1,
		Status: -1, UserID: -1, GroupID: -1, Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
}

func TestSWFBatsimRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 20).Draw(t, "n")
		var jobs []SWFJob
		used := map[int64]bool{}
		for i := range n {
			j := swfBatsimJob(t, i)
			if !used[j.JobNumber] {
				used[j.JobNumber] = true
				jobs = append(jobs, j)
			}
		}
		w, skipped := BatsimFromSWF(jobs, 0)
		if skipped != 0 {
			t.Fatalf("skipped %d", skipped)
		}
		var b bytes.Buffer
		if err := WriteBatsim(&b, w); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBatsim(&b, "rt")
		if err != nil {
			t.Fatal(err)
		}
		got := back.SWF()
		if len(jobs) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, jobs) {
			t.Fatalf("SWF → Batsim → SWF:\n%+v\nwant\n%+v", got, jobs)
		}
		// And Batsim → SWF → Batsim keeps the jobs.
		again, _ := BatsimFromSWF(got, w.NbRes)
		if !reflect.DeepEqual(again.Jobs, back.Jobs) && len(back.Jobs) > 0 {
			t.Fatalf("Batsim → SWF → Batsim changed the jobs")
		}
	})
}

func TestIntervalSet(t *testing.T) {
	s, err := ParseIntervalSet(" 0-2 5  7-9 ")
	if err != nil || s.String() != "0-2 5 7-9" || s.Size() != 7 {
		t.Fatalf("%v %q %d", err, s, s.Size())
	}
	for _, bad := range []string{"2-1", "a", "1 1", "3-4 2", "-1", "1-", "5 0-3"} {
		if _, err := ParseIntervalSet(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		var s IntervalSet
		lo := 0
		for range rapid.IntRange(0, 10).Draw(t, "n") {
			lo += rapid.IntRange(0, 5).Draw(t, "gap")
			hi := lo + rapid.IntRange(0, 5).Draw(t, "len")
			s = append(s, Interval{lo, hi})
			lo = hi + 1
		}
		back, err := ParseIntervalSet(s.String())
		if err != nil || back.String() != s.String() || back.Size() != s.Size() {
			t.Fatalf("%q → %q %v", s, back, err)
		}
	})
}

func TestBatsimEvents(t *testing.T) {
	evs := []BatsimEvent{{0, MachineUnavailable, IntervalSet{{3, 7}}}, {12.5, MachineAvailable, IntervalSet{{3, 4}, {6, 6}}}}
	var b bytes.Buffer
	if err := WriteBatsimEvents(&b, evs); err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":0,"type":"machine_unavailable","resources":"3-7"}` + "\n" +
		`{"timestamp":12.5,"type":"machine_available","resources":"3-4 6"}` + "\n"
	if b.String() != want {
		t.Fatalf("got\n%s", b.String())
	}
	back, err := ReadBatsimEvents(strings.NewReader("\n"+want), "ev")
	if err != nil || !reflect.DeepEqual(back, evs) {
		t.Fatalf("%v %+v", err, back)
	}
	// Batsim 4.2.1's events/test_events_4hosts.txt, and a Batsim 5 generic event.
	ref := `{"type": "machine_unavailable", "resources": "0", "timestamp" : 0}
{"type": "machine_available", "resources": "0", "timestamp" : 10}
{"type": "machine_unavailable", "resources": "0-1 3", "timestamp" : 20}
{"type": "machine_available", "resources": "0 1", "timestamp" : 250}
{"type": "machine_available", "resources": "3", "timestamp" : 300}
{"type": "generic", "timestamp":  310.0, "data": "{\"type\": \"machine_unavailable\", \"resources\": \"0-4 6 8\"}"}
{"type": "generic", "timestamp":  320.0, "data": "hello"}
`
	evs4, err := ReadBatsimEvents(strings.NewReader(ref), "ref")
	if err != nil || len(evs4) != 7 || evs4[3].Resources.Size() != 2 || evs4[2].Resources.String() != "0-1 3" ||
		evs4[5].Type != MachineUnavailable || evs4[5].Resources.String() != "0-4 6 8" || evs4[6].Type != "generic" {
		t.Fatalf("%v %+v", err, evs4)
	}
	for _, c := range []struct{ in, want string }{
		{"{}", "ev:1: event without timestamp"},
		{`{"timestamp": 1}`, "ev:1: event without type"},
		{"\n" + `{"timestamp": -1, "type": "x"}`, "ev:2: timestamp -1"},
		{`{"timestamp": 5, "type": "x"}` + "\n" + `{"timestamp": 4, "type": "x"}`, "ev:2: timestamp 4 before"},
		{`{"timestamp": 5, "type": "machine_available"}`, "ev:1: machine_available event without resources"},
		{`{"timestamp": 5, "type": "machine_available", "resources": "2-1"}`, "ev:1: invalid resource range"},
		{`nope`, "ev:1: invalid event"},
	} {
		if _, err := ReadBatsimEvents(strings.NewReader(c.in), "ev"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// batsimJobsCSV is in the layout of Batsim 4 (columns as its docs list them).
const batsimJobsCSV = `job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
w0!0,w0,j0,0,2,-1,1,COMPLETED_SUCCESSFULLY,0,30,30,0,30,1,0-1,-1,""
w0!1,w0,j1,5,1,-1,0,COMPLETED_KILLED,10,5,15,5,10,2,3,-1,""
`

func TestBatsimJobs(t *testing.T) {
	jobs, err := ReadBatsimJobs(strings.NewReader(batsimJobsCSV), "out_jobs.csv")
	if err != nil || len(jobs) != 2 {
		t.Fatal(err, len(jobs))
	}
	want := BatsimJobResult{JobID: "w0!1", Submission: 5, Res: 1, Walltime: -1, FinalState: "COMPLETED_KILLED",
		Start: 10, Finish: 15, Allocated: IntervalSet{{3, 3}}}
	if !reflect.DeepEqual(jobs[1], want) || !jobs[0].Success {
		t.Errorf("%+v", jobs)
	}
	hdr := strings.SplitN(batsimJobsCSV, "\n", 2)[0] + "\n"
	for _, c := range []struct{ in, want string }{
		{"", "x: empty file"},
		{"job_id,success\n", "x:1: no \"submission_time\" column"},
		{hdr + "a,w,p,0,2,-1,1,C,0,1,1,0,1,1,0,-1,\"\"\n", "x:2: job \"a\": 1 allocated resources"},
		{hdr + "a,w,p,0,x,-1,1,C,0,1,1,0,1,1,0,-1,\"\"\n", "x:2: invalid requested_number_of_resources"},
		{hdr + "a,w,p,0,1,-1,1,C,5,1,1,0,1,1,0,-1,\"\"\n", "x:2: job \"a\" finishes at 1 before"},
		{hdr + "a,w\n", "x:2: wrong number of fields"},
	} {
		if _, err := ReadBatsimJobs(strings.NewReader(c.in), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	s, err := ReadBatsimSchedule(strings.NewReader("nb_jobs,makespan,batsim_version\n2,30,v4\n"), "s")
	if err != nil || s["makespan"] != 30 || s["nb_jobs"] != 2 || len(s) != 2 {
		t.Errorf("%v %v", s, err)
	}
	if _, err := ReadBatsimSchedule(strings.NewReader("a\n1\n2\n"), "s"); err == nil {
		t.Error("two rows accepted")
	}
}

func FuzzBatsim(f *testing.F) {
	f.Add([]byte(`{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "walltime": 5, "res": 2, "profile": "d"}], "profiles": {"d": {"type": "delay", "delay": 3}}}`))
	f.Add([]byte(`{"jobs": [{"id": "a", "subtime": 1e308, "res": 1, "profile": "d", "x": [1]}], "profiles": {"d": {"type": "delay"}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		w, err := ReadBatsim(bytes.NewReader(in), "f")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Source != "f" || strings.ContainsAny(err.Error(), "\n") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, j := range w.Jobs {
			if j.Res < 1 || !(j.Subtime >= 0) || !(j.Walltime > 0 || j.Walltime == -1) || w.Profiles[j.Profile] == nil {
				t.Fatalf("accepted job %+v", j)
			}
		}
		var a, b bytes.Buffer
		if err := WriteBatsim(&a, w); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBatsim(bytes.NewReader(a.Bytes()), "a")
		if err != nil {
			t.Fatalf("written workload refused: %v\n%s", err, a.String())
		}
		if WriteBatsim(&b, back); a.String() != b.String() {
			t.Fatal("write → read → write differs")
		}
	})
}

func FuzzBatsimEvents(f *testing.F) {
	f.Add([]byte(`{"timestamp":0,"type":"machine_unavailable","resources":"3-7"}` + "\n" + `{"timestamp":1,"type":"x"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		evs, err := ReadBatsimEvents(bytes.NewReader(in), "f")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 && !strings.Contains(err.Error(), "read error") {
				t.Fatalf("error %v", err)
			}
			return
		}
		last := 0.0
		for _, e := range evs {
			if e.Timestamp < last || e.Type == "" {
				t.Fatalf("accepted %+v", e)
			}
			last = e.Timestamp
		}
	})
}

func FuzzBatsimJobs(f *testing.F) {
	f.Add([]byte(batsimJobsCSV))
	f.Fuzz(func(t *testing.T, in []byte) {
		jobs, err := ReadBatsimJobs(bytes.NewReader(in), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, j := range jobs {
			if j.Res < 1 || j.Finish < j.Start {
				t.Fatalf("accepted %+v", j)
			}
		}
	})
}

func TestBatsimJobIDs(t *testing.T) {
	j := BatsimJob{ID: json.RawMessage(strconv.Quote("a\"b")), Walltime: -1, Res: 1, Profile: "p"}
	s, err := j.MarshalJSON()
	if err != nil || string(s) != `{"id":"a\"b","subtime":0,"res":1,"profile":"p"}` || j.IDString() != `a"b` {
		t.Errorf("%s %v %q", s, err, j.IDString())
	}
}

// The line of every job is found in one pass over the file (a count from
// the start for each job was quadratic: a 104 MB workload of 312 807 jobs
// did not load in 12 minutes), and stays right over many jobs.
func TestReadBatsimManyJobsLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"nb_res\": 4, \"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1}},\n\"jobs\": [\n")
	const n = 60000
	for i := range n {
		fmt.Fprintf(&b, "  {\"id\": %d, \"subtime\": %d, \"res\": 1, \"profile\": \"p\"},\n", i, i)
	}
	b.WriteString("  {\"id\": 0, \"subtime\": 1, \"res\": 1, \"profile\": \"p\"}\n]}\n")
	_, err := ReadBatsim(strings.NewReader(b.String()), "w.json")
	if want := fmt.Sprintf("w.json:%d: job id \"0\" already used on line 3", n+3); err == nil || err.Error() != want {
		t.Fatalf("%v, want %s", err, want)
	}
}

// SWF job numbers are the ids' numbers ("w0!5" is 5) and unique: an id
// with no number, or whose number is taken, gets the next above the
// largest ("x", 1, "w!7" gave 1, 1, 3, and "w0!5" lost its 5).
func TestBatsimSWFJobNumbers(t *testing.T) {
	in := `{"nb_res": 2, "profiles": {"p": {"type": "delay", "delay": 5}}, "jobs": [
	{"id": "x", "subtime": 0, "res": 1, "profile": "p"},
	{"id": 1, "subtime": 1, "res": 1, "profile": "p"},
	{"id": "w!7", "subtime": 2, "res": 1, "profile": "p"},
	{"id": "w0!5", "subtime": 3, "res": 1, "profile": "p"},
	{"id": "w1!5", "subtime": 4, "res": 1, "profile": "p"},
	{"id": "3", "subtime": 5, "res": 1, "profile": "p"},
	{"id": "w!-2", "subtime": 6, "res": 1, "profile": "p"}]}`
	w, err := ReadBatsim(strings.NewReader(in), "ids.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, j := range w.SWF() {
		got = append(got, j.JobNumber)
	}
	if want := []int64{8, 1, 7, 5, 9, 3, 10}; !reflect.DeepEqual(got, want) {
		t.Fatalf("job numbers %v, want %v", got, want)
	}
}

// BatsimFromSWFContext stops once its context ends (convert of a 313 000-
// job log spent a second here after Ctrl-C); with a live one it is
// BatsimFromSWF.
func TestBatsimFromSWFContextStops(t *testing.T) {
	jobs := make([]SWFJob, 10000)
	for i := range jobs {
		jobs[i] = SWFJob{JobNumber: int64(i + 1), SubmitTime: float64(i), RunTime: 60, AllocatedProcs: 4, RequestedTime: 120}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := BatsimFromSWFContext(ctx, jobs, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
	w, skipped, err := BatsimFromSWFContext(context.Background(), jobs, 0)
	w2, skipped2 := BatsimFromSWF(jobs, 0)
	if err != nil || skipped != skipped2 || len(w.Jobs) != 10000 || !reflect.DeepEqual(w, w2) {
		t.Errorf("live: %d jobs, %v", len(w.Jobs), err)
	}
}
