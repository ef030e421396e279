package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const capState = `{"p_min":2,"p_max":10,"delta":2,"p":8,"length":100,
 "jobs":[{"p":3,"c":10,"r":10,"status":"running","yield":0.5},
         {"p":4,"c":12,"r":12,"status":"idle","yield":0.1},
         {"p":2,"c":5,"r":5,"status":"checkpointed","yield":0.2},
         {"p":5,"c":8,"r":8,"status":"idle","yield":0}]}`

func TestCapacityDecideJSON(t *testing.T) {
	for _, algo := range []string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-goodput-best-cnf", "dp-goodput-slow-best-cnf", "dp-yield", "dp-bic:15", "target-yield:0.3"} {
		out, errOut, code := run(t, capState, "capacity", "decide", "--state", "-", "--strategy", algo, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", algo, code, errOut)
		}
		var res struct {
			Gain float64 `json:"gain"`
			Keep int     `json:"keep"`
			Jobs []struct {
				P       int     `json:"p"`
				End     string  `json:"end"`
				Work    float64 `json:"work"`
				Actions []struct {
					Kind       string
					Start, End float64
				} `json:"actions"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		// Independent re-check of the printed schedule: work adds up,
		// unsaved processors at the end within max(P − δ, P_min) = 6, and the
		// running job 0 is never left without a checkpoint.
		sum, unsaved := 0.0, 0
		for _, j := range res.Jobs {
			w := 0.0
			for _, a := range j.Actions {
				if a.Kind == "run" {
					w += a.End - a.Start
				}
			}
			if diff := w - j.Work; diff > 1e-9 || diff < -1e-9 {
				t.Fatalf("%s: job work %v vs actions %v", algo, j.Work, w)
			}
			sum += float64(j.P) * w
			if j.End == "running" {
				unsaved += j.P
			}
		}
		if res.Keep != 6 || unsaved > 6 || sum-res.Gain > 1e-6 || res.Gain-sum > 1e-6 {
			t.Fatalf("%s: keep %d unsaved %d gain %v sum %v", algo, res.Keep, unsaved, res.Gain, sum)
		}
		if len(res.Jobs[0].Actions) == 0 || res.Jobs[0].Actions[0].Start != 0 {
			t.Fatalf("%s: running job 0 dropped", algo)
		}
	}
	out, _, code := run(t, capState, "capacity", "decide", "--state", "-", "--strategy", "dp-goodput")
	if code != 0 || !strings.Contains(out, "useful work") {
		t.Fatalf("text output: %d %q", code, out)
	}
}

func TestCapacityBadInput(t *testing.T) {
	dir := t.TempDir()
	swf := filepath.Join(dir, "bad.swf")
	os.WriteFile(swf, []byte("; header\n1 0 0 10 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n2 0 0 10 x 1\n"), 0o644)
	cases := []struct {
		stdin string
		args  []string
		want  string
	}{
		{strings.Replace(capState, `"delta":2`, `"delta":-1`, 1), []string{"decide", "--state", "-"}, "delta"},
		{strings.Replace(capState, `"p_min":2`, `"p_min":11`, 1), []string{"decide", "--state", "-"}, "p_min"},
		{strings.Replace(capState, `{"p":5,`, `{"p":50,`, 1), []string{"decide", "--state", "-"}, "wider than p_max"},
		{strings.Replace(capState, `"length":100`, `"length":0`, 1), []string{"decide", "--state", "-"}, "length"},
		{strings.Replace(capState, `"status":"idle"`, `"status":"sleeping"`, 1), []string{"decide", "--state", "-"}, "sleeping"},
		{`{"p_min":2}`, []string{"decide", "--state", "-"}, "missing field"},
		{capState, []string{"decide", "--state", "-", "--strategy", "nope"}, "unknown algorithm"},
		{"", []string{"simulate", "--delta", "-0.1"}, "--delta"},
		{"", []string{"simulate", "--p-min", "1.5"}, "--p-min"},
		{"", []string{"simulate", "--avg-t", "0"}, "--avg-t"},
		{"", []string{"simulate", "--workload", swf, "--sections", "3"}, "bad.swf:3"},
		{"", []string{"sweep", "--vary", "nope", "--values", "1"}, "unknown parameter"},
		{"", []string{"simulate", "--finite", "lifo"}, "--finite"},
		{"", []string{"simulate", "--finite", "fifo", "--sections", "3"}, "no run times"},
		// Silent wrong answers and unclear messages of issue 11.
		{strings.Replace(capState, `"length":100`, `"length":1e308`, 1), []string{"decide", "--state", "-"}, "length = 1e+308: at most 1e+12"},
		{"", []string{"decide", "--state", "-"}, "stdin: empty input"},
		{capState + " trailing", []string{"decide", "--state", "-"}, "unexpected data after the JSON state"},
		{strings.Replace(capState, `"p_min":2`, `"p_min":"two"`, 1), []string{"decide", "--state", "-"}, `field "p_min": want an integer, got a JSON string`},
		{capState, []string{"decide", "--state", "-", "--strategy", "target-yield:2"}, "target-yield"},
		{"", []string{"simulate", "--delta", "2"}, "--delta: 2 must be a fraction"},
		{"", []string{"simulate", "--delta", "NaN"}, "--delta: NaN must be"},
		{"", []string{"simulate", "--strategies", "target-yield:2"}, "--strategies: algorithm \"target-yield\": bad parameter"},
		{"", []string{"simulate", "--strategies", "dp-goodput,dp-goodput"}, "listed twice"},
		{"", []string{"simulate", "--avg-t", "1e308"}, "--avg-t: 1e+308 must be"},
		{"", []string{"simulate", "--avg-t", "soon"}, "--avg-t"},
		{"", []string{"simulate", "--workers", "-1"}, "--workers"},
		{"", []string{"sweep", "--vary", "delta", "--values", "0.1,2"}, "delta = 2: must be a fraction"},
		{"", []string{"sweep", "--vary", "pmax", "--values", "100.5"}, "pmax = 100.5: must be an integer"},
		{"", []string{"sweep", "--values", "50,50"}, "listed twice"},
		{"", []string{"sweep", "--json", "--csv", "-"}, "stdout"},
		{"", []string{"sweep", "--csv", ""}, "give --csv, --jsonl or --json"},
		{strings.Replace(capState, `"yield":0.5`, `"yield":0.9,"work":0`, 1), []string{"decide", "--state", "-"}, `stdin: job 0: field "yield" given with "work"`},
		{strings.Replace(capState, `,"yield":0.5`, ``, 1), []string{"decide", "--state", "-"}, `stdin: job 0: missing field "yield"`},
		{strings.Replace(capState, `"p":8,`, `"p":8,"p":9,`, 1), []string{"decide", "--state", "-"}, `stdin: field "p" given twice`},
	}
	for _, c := range cases {
		_, errOut, code := run(t, c.stdin, append([]string{"capacity"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 ||
			strings.Contains(errOut, "-9223372036854775808") || strings.Contains(errOut, "Go struct") {
			t.Errorf("%v: exit %d, stderr %q (want exit 2 and %q on one line)", c.args, code, errOut, c.want)
		}
	}
}

func TestCapacitySimulateAndSweep(t *testing.T) {
	out, errOut, code := run(t, "", "capacity", "simulate", "--p-max", "30", "--sections", "20", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var rows []struct {
		Algorithm  string  `json:"algorithm"`
		RelGoodput float64 `json:"rel_goodput"`
		RelYield   float64 `json:"rel_yield"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 5 {
		t.Fatalf("%v %d", err, len(rows))
	}
	for _, r := range rows {
		if r.RelGoodput <= 0 || r.RelGoodput > 1 || r.RelYield < 0 || r.RelYield > 1 {
			t.Errorf("%+v", r)
		}
	}
	// Finite jobs from a small SWF log with run times.
	swf := filepath.Join(t.TempDir(), "ok.swf")
	var b strings.Builder
	b.WriteString("; tiny log\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "%d 0 0 %d %d -1 -1 %d -1 -1 1 1 1 1 1 1 -1 -1\n", i, 200*(1+i%7), 1+i%6, 1+i%6)
	}
	os.WriteFile(swf, []byte(b.String()), 0o644)
	out, errOut, code = run(t, "", "capacity", "simulate", "--p-max", "30", "--sections", "30", "--finite", "fifo", "--workload", swf, "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var frows []struct{ Finished, Jobs int }
	if err := json.Unmarshal([]byte(out), &frows); err != nil || len(frows) != 5 || frows[0].Finished == 0 {
		t.Fatalf("finite: %v %+v", err, frows)
	}
	args := []string{"capacity", "sweep", "--p-max", "30", "--sections", "10", "--vary", "load", "--values", "1,2", "--instances", "2", "--strategies", "dp-goodput,greedy-yield"}
	s1, _, c1 := run(t, "", append(args, "--workers", "1")...)
	s2, _, c2 := run(t, "", append(args, "--workers", "2")...)
	if c1 != 0 || c2 != 0 || s1 != s2 || strings.Count(s1, "\n") != 9 {
		t.Fatalf("sweep not deterministic or wrong size:\n%s\n%s", s1, s2)
	}
}

// The duration grammar: --avg-t 01:40 (Slurm's MM:SS) is 100 time units,
// the same instance and output as --avg-t 100.
func TestCapacityDurationGrammar(t *testing.T) {
	args := []string{"capacity", "simulate", "--p-max", "30", "--sections", "10", "--strategies", "dp-goodput"}
	a, _, ca := run(t, "", append(args, "--avg-t", "100")...)
	b, errB, cb := run(t, "", append(args, "--avg-t", "01:40")...)
	if ca != 0 || cb != 0 || a != b {
		t.Fatalf("--avg-t 01:40 differs from --avg-t 100 (%d %d %s):\n%s\n%s", ca, cb, errB, a, b)
	}
}

// sweep --json prints the rows of the CSV as one JSON array.
func TestCapacitySweepJSON(t *testing.T) {
	args := []string{"capacity", "sweep", "--p-max", "30", "--sections", "10", "--vary", "load", "--values", "1,2", "--instances", "2", "--strategies", "dp-goodput"}
	csvOut, _, c1 := run(t, "", args...)
	jsonOut, errOut, c2 := run(t, "", append(args, "--json")...)
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit %d %d: %s", c1, c2, errOut)
	}
	var rows []struct {
		Value      float64 `json:"value"`
		Algorithm  string  `json:"algorithm"`
		RelGoodput float64 `json:"rel_goodput"`
	}
	recs, cerr := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err := json.Unmarshal([]byte(jsonOut), &rows); err != nil || cerr != nil || len(rows) != 4 || len(recs) != 5 {
		t.Fatalf("%v %v %v: %d JSON rows, %d CSV records", err, cerr, jsonOut, len(rows), len(recs))
	}
	for i, r := range rows {
		if r.Algorithm != "dp-goodput" || r.Value != float64(1+i/2) || r.RelGoodput <= 0 || r.RelGoodput > 1 {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// The objects of --json are those of --jsonl, key for key (audit: Go
	// field names, "MinYield", against min_yield, without item and seed).
	jsonlOut, _, c3 := run(t, "", append(args, "--csv", "", "--jsonl", "-")...)
	var fromJSON, fromJSONL []map[string]any
	json.Unmarshal([]byte(jsonOut), &fromJSON)
	for line := range strings.SplitSeq(strings.TrimSpace(jsonlOut), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		fromJSONL = append(fromJSONL, m)
	}
	if c3 != 0 || len(fromJSON) != 4 || !reflect.DeepEqual(fromJSON, fromJSONL) || fromJSON[0]["min_yield"] == nil || fromJSON[0]["seed"] == nil {
		t.Fatalf("--json rows %v differ from --jsonl rows %v", fromJSON, fromJSONL)
	}
}

// A zero relative goodput over a negative bound (checkpoints longer than
// the sections) is 0, not -0, in every format.
func TestCapacityNoNegativeZero(t *testing.T) {
	args := []string{"capacity", "simulate", "--p-max", "10", "--avg-t", "10", "--c-min", "20", "--c-max", "20", "--sections", "2", "--strategies", "greedy-goodput"}
	text, _, c1 := run(t, "", args...)
	js, errOut, c2 := run(t, "", append(args, "--json")...)
	if c1 != 0 || c2 != 0 || !strings.Contains(js, `"rel_goodput": 0,`) || strings.Contains(js, "-0") || strings.Contains(text, "-0") {
		t.Fatalf("exit %d %d %s:\n%s\n%s", c1, c2, errOut, text, js)
	}
}

// Ctrl-C: a sweep cancelled mid-run returns within a second with exit 1
// and leaves only complete CSV lines (the header and the finished rows).
func TestCapacitySweepCtrlC(t *testing.T) {
	args := []string{"capacity", "sweep", "--p-max", "100", "--vary", "sections", "--values", "5,6,1000000",
		"--instances", "1", "--strategies", "dp-goodput", "--workers", "2"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- execute(ctx, args, strings.NewReader(""), &out, &errb) }()
	// The two short items take milliseconds and the long one (a million
	// sections) minutes; the rows are written when the sweep stops, so
	// cancel after a pause long enough for the short ones on a loaded
	// machine.
	time.Sleep(2 * time.Second)
	cancel()
	// The bound is generous (a loaded machine delays the goroutines), yet
	// far below the long item's minutes, so a sweep deaf to the
	// cancellation still fails here.
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(errb.String(), "canceled") {
			t.Fatalf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(10 * slow * time.Second):
		t.Fatal("sweep still running 10 s after the cancellation")
	}
	s := out.String()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil || len(recs) != 3 || !strings.HasSuffix(s, "\n") {
		t.Fatalf("want the header and 2 complete rows, got %d (%v):\n%s", len(recs), err, s)
	}
	for _, r := range recs {
		if len(r) != len(recs[0]) {
			t.Fatalf("incomplete row %q", r)
		}
	}
}

// capFullDisk fails every write, as stdout on a full disk.
type capFullDisk struct{}

func (capFullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A report that cannot be written exits 1 with the write error.
func TestCapacityWriteErrorExits1(t *testing.T) {
	for _, args := range [][]string{
		{"capacity", "decide", "--state", "-"},
		{"capacity", "decide", "--state", "-", "--json"},
		{"capacity", "simulate", "--p-max", "30", "--sections", "5", "--strategies", "greedy-yield"},
		{"capacity", "sweep", "--p-max", "30", "--sections", "5", "--values", "50", "--instances", "1", "--strategies", "greedy-yield"},
	} {
		var errb bytes.Buffer
		code := execute(context.Background(), args, strings.NewReader(capState), capFullDisk{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// The range of --p-max is checked up front, with its limits (audit: 1 and
// 65536 passed validation and failed at runtime with exit 1).
func TestCapacityPMaxLimits(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--p-max", "1"}, "--p-max: 1 must be in [3, 65536] so that P_min = round(0.2·pmax) >= 1 processor"},
		{[]string{"simulate", "--p-max", "65536"}, "--p-max: 65536 must be in [3, 8065] for dp-goodput"},
		{[]string{"simulate", "--p-max", "30000", "--sections", "1", "--strategies", "dp-goodput", "--load", "0.01"}, "--p-max: 30000 must be in [3, 8065] for dp-goodput"},
		{[]string{"sweep", "--vary", "pmax", "--values", "100,9000", "--strategies", "dp-bic:15"}, "--values: pmax = 9000: must be in [3, 8065] for dp-bic:15"},
	} {
		_, errOut, code := run(t, "", append([]string{"capacity"}, c.args...)...)
		if code != 2 || !strings.HasPrefix(errOut, "ckpt: "+c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// export prints only the names of the files it writes: --json is refused
// rather than ignored (audit: plain "wrote ..." lines on stdout, exit 0).
func TestCapacityExportRefusesJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "inst")
	stdout, errOut, code := run(t, "", "capacity", "export", "--json", "--p-max", "16", "--sections", "4", "--load", "1", "--out", out)
	if code != 2 || stdout != "" || !strings.Contains(errOut, "--json") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 naming --json", code, stdout, errOut)
	}
	if _, err := os.Stat(out + ".json"); err == nil {
		t.Fatal("inst.json written")
	}
}
