package iosim

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/trace"
)

// The SWF log of a trial reads back as the job list GenerateJobs draws for
// that trial (widths, works, walltimes and classes), with the seed in the
// header, and writing the read log again gives the same bytes.
func TestWriteWorkloadSWFRoundTrip(t *testing.T) {
	c := Cielo()
	const span, seed, rep = 10 * Day, 7, 3
	var buf bytes.Buffer
	if err := WriteWorkloadSWF(&buf, &c, span, seed, rep); err != nil {
		t.Fatal(err)
	}
	want, err := GenerateJobs(&c, span, runner.Seed(seed, 0, rep))
	if err != nil {
		t.Fatal(err)
	}
	h, jobs, err := trace.ReadSWF(bytes.NewReader(buf.Bytes()), "trial.swf")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(want) || len(jobs) == 0 {
		t.Fatalf("%d jobs read, %d drawn", len(jobs), len(want))
	}
	for i, j := range jobs {
		cl := c.Classes[want[i].Class]
		if j.RequestedProcs != int64(cl.Nodes) || j.RunTime != want[i].Work || j.RequestedTime != float64(cl.Walltime) || j.Executable != int64(want[i].Class+1) {
			t.Fatalf("job %d: read %+v, drawn %+v", i, j, want[i])
		}
	}
	seedSeen := false
	for _, f := range h.Fields {
		if f.Key == "Seed" && f.Value == strconv.Itoa(seed) {
			seedSeen = true
		}
	}
	if !seedSeen {
		t.Fatalf("no Seed: %d in the header %+v", seed, h.Fields)
	}
	var again bytes.Buffer
	if err := trace.WriteSWF(&again, h, jobs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Fatal("read → write does not give the same bytes")
	}
}
