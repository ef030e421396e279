package capacity

import (
	"bytes"
	"compress/gzip"
	"os"
	"reflect"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/trace"
)

// A real log (KTH SP2, 28476 jobs: completed and failed statuses, 214 users, 219 jobs allocated other than requested) converted
// SWF → Batsim → SWF gives back every job's every field and the header,
// compared with the log itself; a job Batsim cannot run is counted as
// skipped, never silently dropped.
func TestConvertSWFBatsimSWFRealLog(t *testing.T) {
	t.Parallel()
	path := datadirtest.ForTest(t, "swf", "KTH-SP2-1996-2.1-cln.swf.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var orig bytes.Buffer
	if _, err := orig.ReadFrom(z); err != nil {
		t.Fatal(err)
	}
	h0, jobs, err := trace.ReadSWF(bytes.NewReader(orig.Bytes()), "kth.swf")
	if err != nil {
		t.Fatal(err)
	}
	var w, back bytes.Buffer
	n, skipped, err := Convert(bytes.NewReader(orig.Bytes()), &w, ConvertOptions{From: FormatSWF, To: FormatBatsim, Name: "kth.swf"})
	if err != nil {
		t.Fatal(err)
	}
	if n+skipped != len(jobs) {
		t.Fatalf("%d written + %d skipped of %d jobs", n, skipped, len(jobs))
	}
	if _, _, err := Convert(&w, &back, ConvertOptions{From: FormatBatsim, To: FormatSWF, Name: "kth.json"}); err != nil {
		t.Fatal(err)
	}
	h1, got, err := trace.ReadSWF(&back, "back.swf")
	if err != nil {
		t.Fatal(err)
	}
	var kept []trace.SWFJob
	statuses, users := map[int64]bool{}, map[int64]bool{}
	for _, j := range jobs {
		if (j.AllocatedProcs > 0 || j.RequestedProcs > 0) && j.RunTime >= 0 && j.SubmitTime >= 0 {
			kept = append(kept, j)
			statuses[j.Status], users[j.UserID] = true, true
		}
	}
	if len(statuses) < 2 || len(users) < 10 {
		t.Fatalf("the log has %d statuses and %d users: not the fields this test is about", len(statuses), len(users))
	}
	if !reflect.DeepEqual(got, kept) {
		for i := range min(len(got), len(kept)) {
			if got[i] != kept[i] {
				t.Fatalf("job %d: %+v, want %+v", i, got[i], kept[i])
			}
		}
		t.Fatalf("%d jobs back, want %d", len(got), len(kept))
	}
	for i := range h0.Fields {
		h0.Fields[i].Line, h1.Fields[i].Line = 0, 0
	}
	if !reflect.DeepEqual(h0.Fields, h1.Fields) {
		t.Errorf("header: %+v, want %+v", h1.Fields, h0.Fields)
	}
}
