package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/trace/tracetest"
)

func TestConvertRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	swf := datadirtest.ForTest(t, "swf", "NASA-iPSC-1993-3.1-cln.swf.gz")
	b, s, w := filepath.Join(dir, "n.json"), filepath.Join(dir, "n.swf"), filepath.Join(dir, "n.jobs.json")
	for _, args := range [][]string{{swf, b}, {b, s}, {s, w, "--ckpt", "1m", "--restart", "30"}} {
		if _, errs, code := run(t, "", append([]string{"convert"}, args...)...); code != 0 || !strings.Contains(errs, "18239 jobs") {
			t.Fatalf("convert %v: exit %d, %s", args, code, errs)
		}
	}
	f, _ := os.Open(swf)
	defer f.Close()
	_, orig, err := trace.ReadSWF(f, "nasa")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := os.Open(w)
	defer g.Close()
	jobs, err := capacity.ReadJobs(g, "n.jobs.json")
	if err != nil || len(jobs) != len(orig) {
		t.Fatalf("%v, %d jobs", err, len(jobs))
	}
	for i, j := range orig {
		jb := jobs[i]
		if jb.P != int(j.AllocatedProcs) || jb.Release != j.SubmitTime || jb.Length != j.RunTime || jb.C != 60 || jb.R != 30 {
			t.Fatalf("job %d: %+v from %+v", i, jb, j)
		}
	}
	// stdin to stdout, formats by flag.
	in := `[{"p":2,"c":5,"r":6,"release":1,"length":10}]`
	out, _, code := run(t, in, "convert", "--from", "ckpt", "--to", "batsim", "-", "-")
	var wl map[string]json.RawMessage
	if code != 0 || json.Unmarshal([]byte(out), &wl) != nil || !strings.Contains(out, `"ckpt_r":6`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	back, _, code := run(t, out, "convert", "--from", "batsim", "--to", "ckpt", "-", "-")
	if code != 0 || strings.TrimSpace(back) != "[\n  "+`{"p":2,"c":5,"r":6,"release":1,"length":10}`+"\n]" {
		t.Fatalf("exit %d: %s", code, back)
	}
}

// Batsim ids without a number, or sharing one, get unique SWF job
// numbers, so that the SWF converts back ("x", 1, "w!7" gave 1, 1, 3,
// which convert then refused: "same id 1").
func TestConvertUniqueJobNumbers(t *testing.T) {
	dir := t.TempDir()
	ids, s, back := filepath.Join(dir, "ids.json"), filepath.Join(dir, "ids.swf"), filepath.Join(dir, "ids2.json")
	os.WriteFile(ids, []byte(`{"nb_res": 2, "profiles": {"p": {"type": "delay", "delay": 5}}, "jobs": [
{"id": "x", "subtime": 0, "res": 1, "profile": "p"}, {"id": 1, "subtime": 1, "res": 1, "profile": "p"},
{"id": "w!7", "subtime": 2, "res": 1, "profile": "p"}]}`), 0o644)
	for _, args := range [][]string{{ids, s}, {s, back}} {
		if _, errs, code := run(t, "", append([]string{"convert"}, args...)...); code != 0 {
			t.Fatalf("convert %v: exit %d, %s", args, code, errs)
		}
	}
}

func TestConvertRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n\"jobs\": [\n{\"id\": 1}]}"), 0o644)
	foreign := filepath.Join(dir, "foreign.json") // no ckpt_c: costs needed (exit 1, "job 1: c = 0")
	os.WriteFile(foreign, []byte(`{"profiles": {"p": {"type": "delay", "delay": 5}}, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "p"}]}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"a.swf", "b.txt"}, 2, `--to: cannot tell the format of "b.txt"`},
		{[]string{"-", "b.json"}, 2, "--from: give the format of stdin"},
		{[]string{"--from", "csv", "a", "b.json"}, 2, `--from: unknown format "csv"`},
		{[]string{"a.swf", "b.jobs.json"}, 2, "--ckpt: is required"},
		{[]string{"a.swf", "b.json", "--nb-res", "-1"}, 2, "--nb-res: -1"},
		{[]string{filepath.Join(dir, "none.swf"), "b.json"}, 2, "no such file"},
		{[]string{bad, filepath.Join(dir, "o.swf")}, 2, "bad.json:3: job 1: no subtime"},
		{[]string{foreign, filepath.Join(dir, "o.jobs.json")}, 2, "--ckpt: is required to convert foreign.json to a ckpt job list: job 1 has no ckpt_c"},
	} {
		_, errs, code := run(t, "", append([]string{"convert"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.swf")); err == nil {
		t.Error("a failed conversion left its output")
	}
}

func TestCapacityExportAndScore(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "inst")
	out, errs, code := run(t, "", "capacity", "export", "--p-max", "16", "--sections", "4", "--load", "1", "--out", prefix)
	if code != 0 || strings.Count(out, "wrote ") != 4 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	f, err := os.Open(prefix + ".json")
	if err != nil {
		t.Fatal(err)
	}
	wl, err := trace.ReadBatsim(f, "inst.json")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	in, err := capacity.ImportBatsim(wl)
	if err != nil {
		t.Fatal(err)
	}
	// The exported instance is the one capacity simulate draws.
	e := capacity.Experiment{Params: capacity.Params{Sections: 4, AvgT: 100, PMax: 16, PMinFrac: 0.2, Delta: 0.1, Load: 1, CLo: 5, CHi: 20},
		Strategies: []string{"dp-goodput"}, Workloads: []capacity.Workload{capacity.UniformWorkload(3)}}
	pts, err := e.Points()
	if err != nil {
		t.Fatal(err)
	}
	want, err := capacity.InstanceOf(pts[0], 1, 0)
	if err != nil || len(want.Jobs) != len(in.Jobs) || want.Sections[2] != in.Sections[2] || want.Jobs[3] != in.Jobs[3] {
		t.Fatalf("exported instance differs: %v", err)
	}
	g, _ := os.Open(prefix + ".swf")
	h, sj, err := trace.ReadSWF(g, "inst.swf")
	g.Close()
	if err != nil || len(sj) != len(in.Jobs) || h.MaxProcs != 16 || !strings.Contains(fieldValues(h, "Parameter"), "pmax=16") || fieldValues(h, "Seed") != "1" {
		t.Fatalf("%v %+v", err, h)
	}
	// A schedule where nothing runs scores 0; every job started at 0 on
	// disjoint resources within P_1 and running to the horizon scores by hand.
	csv := "job_id,submission_time,requested_number_of_resources,requested_time,success,starting_time,finish_time,allocated_resources\n"
	jobs := filepath.Join(dir, "out_jobs.csv")
	os.WriteFile(jobs, []byte(csv), 0o644)
	out, _, code = run(t, "", "capacity", "batsim-score", "--workload", prefix+".json", "--schedule", jobs)
	if code != 0 || !strings.Contains(out, "goodput 0.0000, min yield 0.0000") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, errs, code := run(t, "", "capacity", "batsim-score", "--jobs", jobs); code != 2 || !strings.Contains(errs, "--workload") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

func fieldValues(h trace.SWFHeader, key string) string {
	var v []string
	for _, f := range h.Fields {
		if f.Key == key {
			v = append(v, f.Value)
		}
	}
	return strings.Join(v, ",")
}

func TestFailuresCommand(t *testing.T) {
	t.Parallel()
	dir := datadirtest.ForTest(t, "failures")
	out, errs, code := run(t, "", "failures", dir, "--task", "1h", "--nodes", "G1/site1/c1/node1,9", "--json")
	var rep struct {
		Stats struct {
			Failures int     `json:"failures"`
			NodeMTBF float64 `json:"node_mtbf"`
		} `json:"stats"`
		Fits     []struct{ Family string } `json:"fits"`
		Expected float64                   `json:"expected_failures"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if rep.Stats.Failures != 293416 || len(rep.Fits) != 4 || !(rep.Expected > 0) {
		t.Errorf("%+v", rep)
	}
	g := datadirtest.ForTest(t, "google2011", "cloudsimplus_task-events-sample-1.csv")
	out, _, code = run(t, "", "failures", g)
	if code != 0 || !strings.Contains(out, "       9     10         1  0.1000      18.0") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{dir, "--task", "1h"}, "--task: 3600 s given without the task's nodes"},
		{[]string{dir, "--on", "3"}, "--task: required with nodes or on"},
		{[]string{g, "--task", "1h", "--on", "2"}, "--task: task, nodes and on apply to FTA traces only"},
		{[]string{g, "--nodes", "1,2"}, "--nodes: task, nodes and on apply to FTA traces only"}, // it blamed --task
		{[]string{g, "--on", "2"}, "--on: task, nodes and on apply to FTA traces only"},
		{[]string{dir, "--format", "lanl"}, `--format: "lanl"`},
		{[]string{dir, "--task", "1h", "--nodes", "nope"}, `--nodes: node "nope" is not in the trace`},
		{[]string{dir, "--task", "-1h", "--on", "2"}, "--task"},
	} {
		if _, errs, code := run(t, "", append([]string{"failures"}, c.args...)...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
}

// Lost output is an error: exit 1 and say why.
func TestFormatsLostOutput(t *testing.T) {
	g := datadirtest.ForTest(t, "google2011", "cloudsimplus_task-events-sample-1.csv")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"failures", g},
		{"failures", g, "--json"},
		{"convert", "--from", "ckpt", "--to", "swf", "-", "-"},
		{"capacity", "export", "--p-max", "10", "--sections", "2", "--out", filepath.Join(dir, "x")},
	} {
		var errb strings.Builder
		code := execute(context.Background(), args, strings.NewReader(`[{"p":1,"c":1,"r":1}]`), failingWriter{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// A Ctrl-C during a conversion: exit 1, the interrupted line, no output
// (convert read to the end, wrote the output and exited 0).
func TestConvertInterrupted(t *testing.T) {
	var swf strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&swf, "%d %d 0 100 4 -1 -1 4 600 -1 1 1 1 1 1 1 -1 -1\n", i, i*60)
	}
	out := filepath.Join(t.TempDir(), "o.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &tracetest.CancelAt{R: strings.NewReader(swf.String()), K: swf.Len() / 4, Cancel: cancel}
	var errb strings.Builder
	code := execute(ctx, []string{"convert", "--from", "swf", "-", out}, in, io.Discard, &errb)
	if _, err := os.Stat(out); code != 1 || !strings.Contains(errb.String(), "interrupted") || err == nil || in.N > swf.Len()/2 {
		t.Fatalf("exit %d, %q, output %v, read %d of %d bytes", code, errb.String(), err, in.N, swf.Len())
	}
}
