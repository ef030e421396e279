package trace

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// swfAnyJob draws an SWF job Batsim can run (a width, a run time ≥ 0, a
// submit time ≥ 0) with every other field free: allocated and requested
// processors that differ, status, user, group, memory, −1 or 0 requested
// time, and so on.
func swfAnyJob(t *rapid.T, n int64) SWFJob {
	f := func(name string) float64 {
		return float64(rapid.Int64Range(-1, 1<<40).Draw(t, name)) / float64(rapid.SampledFrom([]int64{1, 3, 8}).Draw(t, name+"/d"))
	}
	i := func(name string) int64 { return rapid.Int64Range(-1, 1<<40).Draw(t, name) }
	j := SWFJob{JobNumber: n, SubmitTime: float64(rapid.Int64Range(0, 1<<40).Draw(t, "sub")) / 16, WaitTime: f("wait"),
		RunTime: float64(rapid.Int64Range(0, 1<<40).Draw(t, "run")) / 8, AllocatedProcs: rapid.Int64Range(-1, 1<<20).Draw(t, "alloc"),
		AvgCPUTime: f("cpu"), UsedMemory: f("mem"), RequestedProcs: rapid.Int64Range(-1, 1<<20).Draw(t, "req"),
		RequestedTime: f("reqtime"), RequestedMemory: f("reqmem"), Status: rapid.Int64Range(-1, 5).Draw(t, "status"),
		UserID: i("user"), GroupID: i("group"), Executable: i("exe"), Queue: i("queue"), Partition: i("part"),
		PrecedingJob: i("prec"), ThinkTime: f("think")}
	if j.AllocatedProcs <= 0 && j.RequestedProcs <= 0 {
		j.RequestedProcs = 1 + rapid.Int64Range(0, 100).Draw(t, "width")
	}
	return j
}

// SWF → Batsim → SWF gives back every field of every job and the header
// (the processor count no longer moves from allocated to requested, and
// status and user are no longer dropped), through the files' bytes.
func TestSWFBatsimSWFLossless(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var jobs []SWFJob
		for i := range rapid.IntRange(1, 12).Draw(t, "n") {
			jobs = append(jobs, swfAnyJob(t, int64(i+1)))
		}
		hdr := SWFHeader{Fields: []SWFHeaderField{{Key: "Version", Value: "2.2"}, {Key: "UnixStartTime", Value: "1641021254"},
			{Key: "Note", Value: rapid.StringMatching(`[a-z ]{0,20}`).Draw(t, "note")}}}
		var in bytes.Buffer
		if err := WriteSWF(&in, hdr, jobs); err != nil {
			t.Fatal(err)
		}
		h0, read, err := ReadSWF(bytes.NewReader(in.Bytes()), "in.swf")
		if err != nil {
			t.Fatal(err)
		}
		w, skipped := BatsimFromSWF(read, 0)
		if skipped != 0 {
			t.Fatalf("skipped %d", skipped)
		}
		w.CarrySWFHeader(h0)
		var b bytes.Buffer
		if err := WriteBatsim(&b, w); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBatsim(&b, "w.json")
		if err != nil {
			t.Fatal(err)
		}
		h1, ok := back.CarriedSWFHeader()
		if !ok {
			t.Fatal("header lost")
		}
		var out bytes.Buffer
		if err := WriteSWF(&out, h1, back.SWF()); err != nil {
			t.Fatal(err)
		}
		if out.String() != in.String() {
			t.Fatalf("SWF → Batsim → SWF changed the log:\n%s\nwant\n%s", out.String(), in.String())
		}
		// Batsim still reads the job where the SWF says it ran.
		for k, bj := range back.Jobs {
			want := jobs[k].AllocatedProcs
			if want <= 0 {
				want = jobs[k].RequestedProcs
			}
			if int64(bj.Res) != want || bj.Subtime != jobs[k].SubmitTime {
				t.Fatalf("job %d: res %d subtime %v, want %d %v", k, bj.Res, bj.Subtime, want, jobs[k].SubmitTime)
			}
		}
	})
}

// A job edited in Batsim after the conversion keeps the edit: a new res or
// walltime is not overwritten by the carried SWF fields.
func TestSWFCarryYieldsToEdits(t *testing.T) {
	j := SWFJob{JobNumber: 7, SubmitTime: 10, WaitTime: 3, RunTime: 100, AllocatedProcs: 64, AvgCPUTime: -1, UsedMemory: -1,
		RequestedProcs: 48, RequestedTime: 200, RequestedMemory: -1, Status: 1, UserID: 12, GroupID: 3, Executable: -1,
		Queue: 1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	w, _ := BatsimFromSWF([]SWFJob{j}, 0)
	if got := w.SWF()[0]; !reflect.DeepEqual(got, j) {
		t.Fatalf("unedited: %+v, want %+v", got, j)
	}
	w.Jobs[0].Res, w.Jobs[0].Walltime = 32, 500
	got := w.SWF()[0]
	if got.RequestedProcs != 32 || got.AllocatedProcs != -1 || got.RequestedTime != 500 || got.Status != 1 || got.UserID != 12 {
		t.Fatalf("edited: %+v", got)
	}
	s, _ := json.Marshal(w.Jobs[0])
	if !strings.Contains(string(s), `"swf":{"wait":3,"allocated_procs":64`) {
		t.Errorf("the carried fields are not in the job: %s", s)
	}
}

// Whatever a workload's swf field and header hold, reading them back never
// panics, and a carried width that is not res never replaces it.
func FuzzBatsimSWFCarry(f *testing.F) {
	f.Add([]byte(`{"wait":3,"allocated_procs":64,"requested_procs":48,"status":1,"user":12}`), 64, []byte(`[["Version","2.2"]]`))
	f.Add([]byte(`"garbage"`), 1, []byte(`{}`))
	f.Add([]byte(`{"allocated_procs":-1,"requested_procs":1e30}`), 2, []byte(`[[1,2]]`))
	f.Fuzz(func(t *testing.T, carry []byte, res int, hdr []byte) {
		w := BatsimWorkload{Jobs: []BatsimJob{{ID: json.RawMessage("1"), Res: res, Walltime: -1, Profile: "p",
			Extra: map[string]json.RawMessage{SWFField: carry}}}, Extra: map[string]json.RawMessage{SWFHeaderKey: hdr}}
		j := w.SWF()[0]
		width := j.AllocatedProcs
		if width <= 0 {
			width = j.RequestedProcs
		}
		if width != int64(res) {
			t.Fatalf("res %d lost: %+v", res, j)
		}
		w.CarriedSWFHeader()
	})
}
