package trace

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

func drawSWFJob(t *rapid.T) SWFJob {
	num := func(label string) int64 { return rapid.Int64Range(-1, 1<<40).Draw(t, label) }
	tm := func(label string) float64 { return float64(rapid.Int64Range(-1, 1<<40).Draw(t, label)) / 4 }
	return SWFJob{num("id"), tm("submit"), tm("wait"), tm("run"), num("alloc"), tm("cpu"), tm("mem"),
		num("req"), tm("reqt"), tm("reqm"), num("status"), num("user"), num("group"), num("exe"),
		num("queue"), num("part"), num("prec"), rapid.Float64().Draw(t, "think")}
}

func TestWriteSWFRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs := make([]SWFJob, rapid.IntRange(0, 20).Draw(t, "n"))
		for i := range jobs {
			jobs[i] = drawSWFJob(t)
		}
		params := [][2]string{{"sections", "400"}, {"avgT", rapid.StringMatching(`[0-9a-z.]{1,8}`).Draw(t, "v")}}
		h := GeneratedSWFHeader("ckpt capacity simulate", rapid.Uint64().Draw(t, "seed"), params, len(jobs), 64)
		var a, b bytes.Buffer
		if err := WriteSWF(&a, h, jobs); err != nil {
			t.Fatal(err)
		}
		h2, got, err := ReadSWF(bytes.NewReader(a.Bytes()), "w")
		if err != nil {
			t.Fatal(err)
		}
		// read → write → read: the same jobs and header.
		if len(got) != len(jobs) || (len(jobs) > 0 && !reflect.DeepEqual(got, jobs)) {
			t.Fatalf("jobs changed:\n%+v\n%+v", got, jobs)
		}
		if h2.MaxProcs != 64 || h2.Version != "2.2" || h2.MaxJobs != int64(len(jobs)) {
			t.Fatalf("header %+v", h2)
		}
		// write → read → write: the same bytes.
		if err := WriteSWF(&b, h2, got); err != nil || a.String() != b.String() {
			t.Fatalf("second write differs (%v):\n%s\n%s", err, a.String(), b.String())
		}
	})
}

func TestWriteSWFRealLog(t *testing.T) {
	f, err := os.Open(datadirtest.ForTest(t, "swf", "NASA-iPSC-1993-3.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, jobs, err := ReadSWF(f, "nasa")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteSWF(&a, h, jobs); err != nil {
		t.Fatal(err)
	}
	h2, jobs2, err := ReadSWF(bytes.NewReader(a.Bytes()), "a")
	if err != nil || !reflect.DeepEqual(jobs2, jobs) || h2.MaxProcs != h.MaxProcs || h2.UnixStartTime != h.UnixStartTime || len(h2.Fields) != len(h.Fields) {
		t.Fatalf("NASA log changed by write/read: %v", err)
	}
	if err := WriteSWF(&b, h2, jobs2); err != nil || a.String() != b.String() {
		t.Fatal("second write differs")
	}
}

func TestWriteSWFRefusals(t *testing.T) {
	for _, h := range []SWFHeader{
		{Fields: []SWFHeaderField{{Key: "Two words", Value: "x"}}},
		{Fields: []SWFHeaderField{{Key: "Note", Value: "a\nb"}}},
		{Fields: []SWFHeaderField{{Key: "", Value: "x"}}},
	} {
		if err := WriteSWF(&bytes.Buffer{}, h, nil); err == nil {
			t.Errorf("%+v accepted", h)
		}
	}
	bad := SWFJob{RunTime: math.Inf(1)}
	if err := WriteSWF(&bytes.Buffer{}, SWFHeader{}, []SWFJob{bad}); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("%v", err)
	}
}

func TestWriteGeneratedSWF(t *testing.T) {
	jobs := []GeneratedJob{{Submit: 0, RunTime: 3600.5, Procs: 128, RequestedTime: 7200, Executable: 1},
		{Submit: 0, RunTime: 10, Procs: 4096, RequestedTime: -1, Executable: 2}}
	var b bytes.Buffer
	if err := WriteGeneratedSWF(&b, "ckpt iosim", 42, [][2]string{{"platform", "mira"}}, jobs); err != nil {
		t.Fatal(err)
	}
	h, got, err := ReadSWF(&b, "g")
	if err != nil || len(got) != 2 || h.MaxProcs != 4096 || h.MaxJobs != 2 {
		t.Fatalf("%v %+v", err, h)
	}
	keys := map[string]string{}
	for _, f := range h.Fields {
		keys[f.Key] += f.Value
	}
	if keys["Generator"] != "ckpt iosim" || keys["Seed"] != "42" || keys["Parameter"] != "platform=mira" {
		t.Errorf("header %v", keys)
	}
	if j := got[1]; j.JobNumber != 2 || j.RequestedProcs != 4096 || j.RunTime != 10 || j.Executable != 2 || j.RequestedTime != -1 || j.UserID != -1 {
		t.Errorf("%+v", j)
	}
}

// Whatever ReadSWF accepts, WriteSWF writes back to the same jobs and
// header fields, and writing again gives the same bytes.
func FuzzSWFWrite(f *testing.F) {
	f.Add([]byte("; Version: 2.2\n; MaxProcs: 8\n;   continued\n1 0 1 10 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n"))
	f.Add([]byte("; Note: a\n; free text\n2 0.5 1e3 10.0 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -0\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, jobs, err := ReadSWF(bytes.NewReader(in), "f")
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		if err := WriteSWF(&a, h, jobs); err != nil {
			t.Fatalf("a log ReadSWF accepted is refused: %v", err)
		}
		h2, jobs2, err := ReadSWF(bytes.NewReader(a.Bytes()), "a")
		if err != nil || len(jobs2) != len(jobs) || len(h2.Fields) != len(h.Fields) {
			t.Fatalf("%v\n%s", err, a.String())
		}
		for i := range jobs {
			if fmt.Sprint(jobs2[i]) != fmt.Sprint(jobs[i]) {
				t.Fatalf("job %d: %+v, want %+v", i, jobs2[i], jobs[i])
			}
		}
		for i := range h.Fields {
			if h2.Fields[i].Key != h.Fields[i].Key || h2.Fields[i].Value != strings.TrimSpace(h.Fields[i].Value) {
				t.Fatalf("field %d: %+v, want %+v", i, h2.Fields[i], h.Fields[i])
			}
		}
		if err := WriteSWF(&b, h2, jobs2); err != nil || a.String() != b.String() {
			t.Fatal("write → read → write differs")
		}
	})
}
