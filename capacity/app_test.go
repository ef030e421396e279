package capacity

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

func quickSetup() Setup {
	p := LightParams()
	p.Sections = 20
	return Setup{Workloads: []string{"uniform"}, Params: p, Strategies: []string{"dp-goodput", "greedy-yield"}, Seed: 3, Workers: 1,
		ProgressTo: io.Discard}
}

// Validate names the field of every refusal, as a usage error.
func TestCapacityRequestsValidateNameTheField(t *testing.T) {
	field := func(err error) string {
		if ue, ok := err.(*usage.Error); ok {
			return ue.Field
		}
		return "not a usage error: " + err.Error()
	}
	for _, c := range []struct {
		field string
		edit  func(*SweepRequest)
	}{
		{"p-max", func(r *SweepRequest) { r.Params.PMax = 0 }},
		{"delta", func(r *SweepRequest) { r.Params.Delta = 2 }},
		{"avg-t", func(r *SweepRequest) { r.Params.AvgT = 1e308 }},
		{"strategies", func(r *SweepRequest) { r.Strategies = []string{"nope"} }},
		{"finite", func(r *SweepRequest) { r.Release = "lifo" }},
		{"instances", func(r *SweepRequest) { r.Instances = 0 }},
		{"values", func(r *SweepRequest) { r.Values = []float64{0.1, 2}; r.Vary = "delta" }},
		{"workers", func(r *SweepRequest) { r.Workers = -1 }},
	} {
		r := SweepRequest{Setup: quickSetup(), Vary: "avgT", Values: []float64{50}, Instances: 1}
		c.edit(&r)
		if got := field(r.Validate()); got != c.field {
			t.Errorf("%s: got %q", c.field, got)
		}
	}
	for _, c := range []struct {
		want string
		err  error
	}{
		{"state", DecideRequest{Strategy: "dp-goodput"}.Validate()},
		{"strategy", DecideRequest{State: "-", Strategy: "nope"}.Validate()},
		{"out", ExportRequest{Out: "dir/"}.Validate()},
		{"out", ExportRequest{Out: "dir/.x"}.Validate()},
		{"instance", ExportRequest{Out: "dir/x", Instance: -1}.Validate()},
		{"schedule", ScoreRequest{Workload: "w.json"}.Validate()},
		{"ckpt", ConvertRequest{In: "a.swf", Out: "b.jobs.json"}.Validate()},
		{"from", ConvertRequest{In: "-", Out: "b.json"}.Validate()},
	} {
		if got := field(c.err); got != c.want {
			t.Errorf("%s: got %q", c.want, got)
		}
	}
}

// RunSimulate gives the rows RunPoints gives on the same points; RunSweep
// collects what its sink receives.
func TestRunSimulateAndSweepAreRunPoints(t *testing.T) {
	s := quickSetup()
	rep, err := RunSimulate(context.Background(), SimulateRequest{Setup: s})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Experiment()
	if err != nil {
		t.Fatal(err)
	}
	pts, err := e.Points()
	if err != nil {
		t.Fatal(err)
	}
	var res []runner.Result[SweepRow]
	if err := RunPoints(context.Background(), runner.Options{Seed: 3, Workers: 1, Progress: runner.ProgressOff}, pts, 1, runner.Collect(&res)); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(rep.Rows) || len(res) != 2 {
		t.Fatalf("%d rows, want %d", len(rep.Rows), len(res))
	}
	for i := range res {
		if !reflect.DeepEqual(res[i].Value, rep.Rows[i]) {
			t.Fatalf("row %d: %+v vs %+v", i, rep.Rows[i], res[i].Value)
		}
	}
	var sunk []runner.Result[SweepRow]
	sw, err := RunSweep(context.Background(), SweepRequest{Setup: s, Vary: "avgT", Values: []float64{50, 100}, Instances: 2,
		Sink: runner.Collect(&sunk), Collect: true})
	if err != nil || len(sw.Rows) != 8 || len(sunk) != 8 || sw.Rows[7] != sunk[7].Value {
		t.Fatalf("sweep: %d rows, %d sunk, %v", len(sw.Rows), len(sunk), err)
	}
}

// RunExport writes its four files through temporary files and names them.
func TestRunExportWritesFourFiles(t *testing.T) {
	dir := t.TempDir()
	rep, err := RunExport(context.Background(), ExportRequest{Setup: quickSetup(), Out: filepath.Join(dir, "inst")})
	if err != nil || len(rep.Files) != 4 {
		t.Fatalf("%v %v", rep, err)
	}
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "inst.json inst.swf inst_events.jsonl inst_platform.xml" {
		t.Fatalf("files: %s", got)
	}
}

// ParseValues reads the varied parameter's values and names the field of
// a bad one.
func TestParseValues(t *testing.T) {
	if v, err := ParseValues("50,1e2,0.5"); err != nil || !reflect.DeepEqual(v, []float64{50, 100, 0.5}) {
		t.Fatalf("%v %v", v, err)
	}
	for in, want := range map[string]string{"1,x": `values: bad number "x"`, "1,,2": "values: ", "1,1": "values: "} {
		if _, err := ParseValues(in); err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s...", in, err, want)
		}
	}
}

// RunExport writes its files all or none (audit: with inst_platform.xml a
// folder, inst.json was the new instance and inst.swf the old one): a
// target that cannot be replaced is refused before anything is written,
// and a failed write leaves every target as it was, with no temporary.
func TestRunExportAllOrNone(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "inst")
	for _, s := range []string{".json", ".swf", "_events.jsonl"} {
		os.WriteFile(out+s, []byte("old"), 0o644)
	}
	os.Mkdir(out+"_platform.xml", 0o755)
	_, err := RunExport(context.Background(), ExportRequest{Setup: quickSetup(), Out: out})
	// A folder as output is a runtime error (exit 1), as for every other
	// command's outputs (output.CheckPaths).
	if err == nil || usage.Is(err) || !strings.Contains(err.Error(), `--out "`+out+`_platform.xml": is a folder`) {
		t.Fatalf("err %v, want a runtime error naming --out inst_platform.xml", err)
	}
	unchanged := func() {
		t.Helper()
		for _, s := range []string{".json", ".swf", "_events.jsonl"} {
			if b, _ := os.ReadFile(out + s); string(b) != "old" {
				t.Errorf("%s: %.20q, want the old bytes", s, b)
			}
		}
		es, _ := os.ReadDir(dir)
		if len(es) != 4 {
			t.Errorf("%d entries in the folder, want the 4 targets and no temporary", len(es))
		}
	}
	unchanged()
	os.Remove(out + "_platform.xml")
	os.WriteFile(out+"_platform.xml", []byte("old"), 0o644)
	boom := errors.New("boom")
	ok := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	err = writeAll([]namedWriter{{out + ".json", ok}, {out + ".swf", ok}, {out + "_events.jsonl", func(io.Writer) error { return boom }}, {out + "_platform.xml", ok}})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	unchanged()
}

// A report's JSON is its rows as --jsonl writes them: snake_case keys
// after item, point, rep and seed, NaN as a string; rows without their
// results are items 0, 1, ...
func TestReportJSONIsJSONL(t *testing.T) {
	rows := []SweepRow{{Workload: "w", Algorithm: "a", MinYield: 0.5, RelYield: math.NaN()}, {Workload: "w", Algorithm: "b"}}
	b, err := json.Marshal(SweepReport{Rows: rows})
	want := `[{"item":0,"point":0,"rep":0,"seed":0,"workload":"w","vary":"","value":0,"algorithm":"a","jobs":0,"goodput":0,"min_yield":0.5,"rel_goodput":0,"rel_yield":"NaN","checkpoints":0,"recoveries":0,"finished":0},` +
		`{"item":1,"point":1,"rep":0,"seed":0,"workload":"w","vary":"","value":0,"algorithm":"b","jobs":0,"goodput":0,"min_yield":0,"rel_goodput":0,"rel_yield":0,"checkpoints":0,"recoveries":0,"finished":0}]`
	if err != nil || string(b) != want {
		t.Fatalf("%v\n%s\nwant\n%s", err, b, want)
	}
	if b, err := json.Marshal(SimulateReport{}); err != nil || string(b) != "[]" {
		t.Fatalf("empty: %s %v", b, err)
	}
}
