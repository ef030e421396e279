package profile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

func TestReadTasksDirDRD(t *testing.T) {
	runs, err := ReadTasksDir(drdTasks(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 88 {
		t.Fatalf("%d runs, want 88", len(runs))
	}
	a, err := FitApp("drd", runs, "normal")
	if err != nil {
		t.Fatal(err)
	}
	// Table 2 of the paper (μ, σ) in seconds; the traces' spans agree within
	// 1.5 % on μ and 3 % on σ (the paper fitted minute-rounded durations).
	mu := []float64{255, 871, 588, 459, 3050, 804, 1130}
	sd := []float64{96.7, 322, 76.8, 48.1, 263, 393, 568}
	for i, task := range a.Tasks {
		n := task.Walltime.(distribution.Normal)
		if math.Abs(n.Mu-mu[i])/mu[i] > 0.015 || math.Abs(n.Sigma-sd[i])/sd[i] > 0.03 {
			t.Errorf("task %d: fitted %v, Table 2 has (%v, %v)", i+1, n, mu[i], sd[i])
		}
	}
	// Task 5's peak is 47.99 GiB = 51.5 GB: the "51 GB" of Section 4.3.2.
	if p := a.Tasks[4].Mem; math.Abs(p-51.5) > 0.1 {
		t.Errorf("task 5 peak %v GB, want 51.5", p)
	}
}

func writeRun(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadTasksDirErrors(t *testing.T) {
	ok := "0, 1000\n2, 2000\n"
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"missing phase", map[string]string{"1/task1.csv": ok, "1/task3.csv": ok}, "phase 2 is missing"},
		{"backwards", map[string]string{"1/task1.csv": "0, 1\n4, 2\n2, 3\n"}, "task1.csv:3: timestamp 2 does not follow 4"},
		{"empty", map[string]string{"1/task1.csv": ""}, "task1.csv: empty trace"},
		{"truncated line", map[string]string{"1/task1.csv": "0, 1\n2,"}, "task1.csv:2: memory \"\" is not a finite number"},
		{"negative", map[string]string{"1/task1.csv": "0, 1\n2, -5\n"}, "task1.csv:2: memory \"-5\" is negative"},
		{"uneven runs", map[string]string{"1/task1.csv": ok, "1/task2.csv": ok, "2/task1.csv": ok}, "1 phases, but"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeRun(t, dir, c.files)
		_, err := ReadTasksDir(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line containing %q", c.name, err, c.want)
		}
	}
}

func TestReadTasksDirWholeRuns(t *testing.T) {
	// Two whole-run traces of 3 phases (plateaus 4, 20 and 8 GB, each
	// starting from the 1.7 GB baseline) segment into 3 phases each.
	dir := t.TempDir()
	for id, lens := range map[string][]int{"1": {30, 50, 40}, "2": {35, 45, 60}} {
		var b strings.Builder
		tt := 0
		for k, n := range lens {
			p := []float64{4, 20, 8}[k]
			for j := range n {
				level := 1.7 + (p-1.7)*math.Max(0, math.Min(1, float64(j-2)/5))
				fmt.Fprintf(&b, "%d, %.0f\n", tt, level*KiBPerGB)
				tt += 2
			}
		}
		writeRun(t, dir, map[string]string{id + ".csv": b.String()})
	}
	runs, err := ReadTasksDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || len(runs[0].Phases) != 3 || runs[1].Phases[1].Duration != 90 || math.Abs(runs[0].Phases[1].Peak-20) > 1e-3 {
		t.Fatalf("got %+v", runs)
	}
}

// wholeRun renders a whole-run trace of plateaus (GB), each lens[k] samples
// long and starting from the 1.7 GB baseline, as "t, usedKiB" lines.
func wholeRun(peaks []float64, lens []int) string {
	var b strings.Builder
	tt := 0
	for k, n := range lens {
		for j := range n {
			level := 1.7 + (peaks[k]-1.7)*math.Max(0, math.Min(1, float64(j-2)/5))
			fmt.Fprintf(&b, "%d, %.0f\n", tt, level*KiBPerGB)
			tt += 2
		}
	}
	return b.String()
}

// TestReadRunsKeepsModalPhaseCount: whole-run traces that segment into
// another number of phases than most are dropped and reported, not a
// failure of the whole folder (defect: one odd run failed all 88 DRD runs).
func TestReadRunsKeepsModalPhaseCount(t *testing.T) {
	dir := t.TempDir()
	three := []float64{4, 20, 8}
	writeRun(t, dir, map[string]string{
		"1.csv":  wholeRun(three, []int{30, 50, 40}),
		"2.csv":  wholeRun(three, []int{35, 45, 60}),
		"10.csv": wholeRun(three, []int{32, 40, 50}),
		"7.csv":  wholeRun([]float64{4, 20}, []int{30, 50}),
	})
	set, err := ReadRuns(dir, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !set.Whole || set.Phases != 3 || len(set.Runs) != 3 || set.Runs[0].ID != "1" || set.Runs[2].ID != "10" {
		t.Fatalf("kept %+v", set)
	}
	if len(set.Dropped) != 1 || set.Dropped[0].ID != "7" || set.Dropped[0].Phases != 2 || set.Dropped[0].Path != filepath.Join(dir, "7.csv") {
		t.Fatalf("dropped %+v", set.Dropped)
	}
	// An explicit count keeps the others.
	set, err = ReadRuns(dir, ReadOptions{Phases: 2})
	if err != nil || len(set.Runs) != 1 || set.Runs[0].ID != "7" || len(set.Dropped) != 3 {
		t.Fatalf("--phases 2: %+v, %v", set, err)
	}
	if _, err := ReadRuns(dir, ReadOptions{Phases: 5}); err == nil || !strings.Contains(err.Error(), "no whole-run trace segments into 5 phases (3 phases: 3 runs, 2 phases: 1 run)") {
		t.Errorf("--phases 5: %v", err)
	}
	// ReadTasksDir stays strict.
	if _, err := ReadTasksDir(dir); err == nil || !strings.Contains(err.Error(), "7.csv: segmented into 2 phases, but 3 other run(s) into 3") {
		t.Errorf("ReadTasksDir: %v", err)
	}
	// A tie has no most common count.
	os.Remove(filepath.Join(dir, "1.csv"))
	os.Remove(filepath.Join(dir, "2.csv"))
	if _, err := ReadRuns(dir, ReadOptions{}); !errors.Is(err, ErrPhaseTie) || strings.Contains(err.Error(), "\n") {
		t.Errorf("tie: %v", err)
	}
	// Per-phase folders: a count that does not match is an error.
	pp := t.TempDir()
	writeRun(t, pp, map[string]string{"1/task1.csv": "0, 1\n2, 2\n", "1/task2.csv": "4, 1\n6, 2\n"})
	if _, err := ReadRuns(pp, ReadOptions{Phases: 3}); err == nil || !strings.Contains(err.Error(), "2 phases, want 3") {
		t.Errorf("per-phase --phases 3: %v", err)
	}
}

// TestReadRunsDRDWholeRuns writes the concatenated phase traces of the 88
// DRD runs as whole-run traces, as a user without the published split
// would have them: 87 segment into the 7 phases (run 81, whose tasks 2, 3
// and 4 hold plateaus of about 10 GB, into 5) and are kept.
func TestReadRunsDRDWholeRuns(t *testing.T) {
	drdDir := drdTasks(t)
	ids, err := os.ReadDir(drdDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, id := range ids {
		var b []byte
		for k := 1; k <= 7; k++ {
			x, err := os.ReadFile(filepath.Join(drdDir, id.Name(), fmt.Sprintf("task%d.csv", k)))
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, x...)
		}
		if err := os.WriteFile(filepath.Join(dir, id.Name()+".csv"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := ReadRuns(dir, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Phases != 7 || len(set.Runs) != 87 || len(set.Dropped) != 1 || set.Dropped[0].ID != "81" || set.Dropped[0].Phases != 5 {
		t.Fatalf("kept %d runs of %d phases, dropped %+v", len(set.Runs), set.Phases, set.Dropped)
	}
	if _, err := FitApp("drd", set.Runs, "normal"); err != nil {
		t.Fatal(err)
	}
}

func TestFitAppNeedsTwoRuns(t *testing.T) {
	one := []Run{{ID: "20", Phases: []Phase{{Duration: 100, Peak: 3}, {Duration: 50, Peak: 9}}}}
	for _, runs := range [][]Run{nil, one} {
		_, err := FitApp("x", runs, "normal")
		if err == nil || !strings.Contains(err.Error(), "at least 2 runs") {
			t.Errorf("%d run(s): %v, want an error", len(runs), err)
		}
	}
	if _, err := FitApp("x", one, "normal"); !strings.Contains(err.Error(), "got 1 (run 20)") {
		t.Errorf("error does not name the run: %v", err)
	}
	two := append(one, Run{ID: "21", Phases: []Phase{{Duration: 120, Peak: 3.2}, {Duration: 50, Peak: 8}}})
	a, err := FitApp("x", two, "normal")
	if err != nil {
		t.Fatal(err)
	}
	// Phase 2 lasted 50 s in both runs: a Normal of σ = 1 s around it.
	if n := a.Tasks[1].Walltime.(distribution.Normal); n.Mu != 50 || n.Sigma != 1 || a.Tasks[1].Mem != 9 {
		t.Errorf("task 2: %v, %v GB", n, a.Tasks[1].Mem)
	}
	if _, err := FitApp("x", two, "auto"); err == nil {
		t.Error("FitApp accepted family auto")
	}
}

func TestReadTraceHeaderAndQuirks(t *testing.T) {
	s, err := ReadTrace(strings.NewReader("t,usedKiB\n# c\n0 , 976562.5\n\n2,1953125\r\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Mem != 1 || s[1].Mem != 2 || s[1].T != 2 {
		t.Fatalf("got %+v", s)
	}
}

// TestReadTraceBounds: a timestamp or a memory beyond the planner's bounds
// is refused naming the file and line (they reached the planner and failed
// there, naming neither).
func TestReadTraceBounds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0, 1\n1e308, 2\n", "x:2: time \"1e308\" is beyond 1e+10 s"},
		{"-2e10, 1\n0, 2\n", "x:1: time \"-2e10\" is beyond 1e+10 s"},
		{"0, 1e308\n2, 2\n", "x:1: memory \"1e308\" KiB is beyond 1e+09 GB"},
	} {
		if _, err := ReadTrace(strings.NewReader(c.in), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := ReadTrace(strings.NewReader("0, 1\n1e10, 976562500000000\n"), "x"); err != nil {
		t.Errorf("at the bounds: %v", err)
	}
}

// TestSegmentSyntheticNoise builds traces of known phases (each ramps up to
// its plateau after 3 samples at the baseline (a process starting, as in
// the SLANT traces), holds it with ±3 % noise and isolated one-sample
// spikes of +40 % (at most one in any 5 samples: the running median's
// reach), then frees
// its memory) and checks that every boundary is found within 3 samples.
func TestSegmentSyntheticNoise(t *testing.T) {
	r := rng.Stream(5, 5)
	for trial := range 200 {
		k := 2 + r.IntN(6)
		var s []Sample
		var truth []int
		prev := -1.0
		tt := 0.0
		lastSpike := -10
		for range k {
			p := 3 + 40*r.Float64()
			for prev > 0 && math.Abs(p-prev) < 0.3*math.Max(p, prev) {
				p = 3 + 40*r.Float64()
			}
			prev = p
			truth = append(truth, len(s))
			n := 20 + r.IntN(200)
			for j := range n {
				level := 1.7 + (p-1.7)*math.Max(0, math.Min(1, float64(j-2)/8))
				level *= 1 + 0.03*(2*r.Float64()-1)
				if r.Float64() < 0.01 && len(s)-lastSpike >= 5 {
					level *= 1.4 // an isolated one-sample spike
					lastSpike = len(s)
				}
				s = append(s, Sample{T: tt, Mem: level})
				tt += 2
			}
		}
		got, err := Segment(s, SegmentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		okk := len(got) == len(truth)
		for i := 0; okk && i < len(got); i++ {
			okk = abs(got[i]-truth[i]) <= 3
		}
		if !okk {
			t.Fatalf("trial %d: got %v, want %v", trial, got, truth)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestParseProfile(t *testing.T) {
	y := "name: demo\ncheckpoint: {latency: 4, bandwidth: 0.2}\ntasks:\n  - walltime: normal:mu=10m,sigma=1m\n    mem: 3.5\n  - name: dl\n    walltime: lognormal:mean=1h,sd=10m\n    mem: 50\n"
	p, err := Parse(strings.NewReader(y), "demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.App.Tasks) != 2 || p.App.Tasks[1].Mem != 50 || p.Checkpoint.Bandwidth != 0.2 || p.App.Tasks[0].Walltime.Mean() != 600 {
		t.Fatalf("got %+v", p)
	}
	j := `{"tasks": [{"walltime": "normal:mu=100,sigma=10", "mem": 1}]}`
	if _, err := Parse(strings.NewReader(j), "p.json"); err != nil {
		t.Fatal(err)
	}
	// Durations in the grammar of units.ParseSeconds, bandwidths with a unit.
	y = "checkpoint:\n  latency: 00:00:05\n  bandwidth: 200MB/s\n  restart: 1m\ntasks:\n  - walltime: normal:mu=10m,sigma=1m\n    mem: 3\n"
	if p, err = Parse(strings.NewReader(y), "d.yaml"); err != nil {
		t.Fatal(err)
	}
	if p.Checkpoint.Latency != 5 || p.Checkpoint.Bandwidth != 0.2 || p.Restart == nil || *p.Restart != 60 {
		t.Fatalf("checkpoint %+v, restart %v; want 5 s, 0.2 GB/s, 60 s", p.Checkpoint, p.Restart)
	}
	j = `{"checkpoint": {"latency": "10m", "bandwidth": 1, "restart": 30}, "tasks": [{"walltime": "normal:mu=100,sigma=10", "mem": 1}]}`
	if p, err = Parse(strings.NewReader(j), "p.json"); err != nil || p.Checkpoint.Latency != 600 || *p.Restart != 30 {
		t.Fatalf("JSON durations: %+v, %v", p, err)
	}
	bad := []struct{ in, want string }{
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: -3\n", "p:3: task 1: mem -3 GB is negative"},
		// Durations and bandwidths refused with the line.
		{"checkpoint:\n  latency: 5 parsecs\n  bandwidth: 1\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:2: checkpoint: latency "5 parsecs"`},
		{"checkpoint:\n  bandwidth: fast\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:2: checkpoint: bandwidth "fast"`},
		// A plain number is GB/s: 40e9 (bytes/s without a unit) is beyond
		// 1 PB/s and refused (it was read as 4e10 GB/s).
		{"checkpoint:\n  bandwidth: 40e9\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:2: checkpoint: bandwidth "40e9": a plain number is GB/s, and 40e9 GB/s is beyond 1 PB/s`},
		{"checkpoint:\n  bandwidth: 1\n  restart: [1]\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:3: checkpoint: restart want a duration"},
		{"checkpoint:\n  bandwidth: 1\n  restart: 1e301y\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:3: checkpoint: restart "1e301y"`},
		// JSON type errors name the key and the kind expected, never a Go type.
		{`{"tasks": "x"}`, "p:1: want tasks: a list of {name, walltime, mem}, got a string"},
		{`{"name": [1], "tasks": []}`, "p:1: want name: a string, got a list"},
		{`{"checkpoint": 3, "tasks": []}`, "p:1: want checkpoint: a mapping of latency, bandwidth, restart, got a number"},
		{`{"tasks": [{"walltime": {"mu": 1}, "mem": 1}]}`, "p:1: task 1: walltime must be a spec string such as normal:mu=255,sigma=96.7, got a mapping"},
		{`{"tasks": [{"walltime": "normal:mu=1,sigma=1", "mem": [1]}]}`, "p:1: task 1: mem must be a number of GB, got a list"},
		{"tasks:\n  - walltime: normal:mu=1\n    mem: 3\n", "p:2: task 1: walltime:"},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: lots\n", "p:3: task 1: mem \"lots\""},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    memory: 3\n", `p:3: unknown key "memory" (task keys are name, walltime, mem)`},
		{"name: x\nmachine: y\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:2: unknown key "machine" (top-level keys are name, checkpoint, tasks)`},
		{"checkpoint: {latency: 1, bw: 2}\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", `p:1: unknown key "bw" (checkpoint keys are latency, bandwidth, restart)`},
		{`{"tasks": [{"walltime": "normal:mu=1,sigma=1", "mem": 3, "x": 1}]}`, `p:1: unknown key "x"`},
		{"checkpoint: {latency: -1, bandwidth: 2}\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:1: checkpoint: latency -1 s, want"},
		{"checkpoint:\n  latency: 1\n  bandwidth: 0\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:3: checkpoint: bandwidth 0 GB/s, want"},
		{"checkpoint:\n  latency: 1\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:2: checkpoint has no bandwidth"},
		{"", "p: empty profile"},
		{"name: x\n", "p: profile has no tasks"},
		{"tasks: []\n", "p:1: profile has no tasks"},
		{"tasks:\n  walltime: normal:mu=1,sigma=1\n", "p:2: want tasks: a list of {name, walltime, mem}, got a mapping"},
		{"- a\n", "p:1: want a profile: a mapping of name, checkpoint, tasks, got a list"},
		{"tasks:\n  - mem: 1\n", "p:2: task 1 has no walltime"},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n", "p:2: task 1 has no mem"},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: .nan\n", "p:3: task 1: mem .nan GB is negative or not finite"},
		{"tasks:\n  - walltime: normal:mu=-100,sigma=10\n    mem: 3\n", "p:2: task 1: walltime normal:mu=-100,sigma=10 has mean -100 s"},
		{"tasks:\n  - walltime: discrete:100@0.5,200@1.5\n    mem: 3\n", "p:2: task 1: walltime: discrete: probabilities must sum to 1"},
		{"tasks:\n  - walltime: discrete:100@-0.5,200@1.5\n    mem: 3\n", "p:2: task 1: walltime: discrete: probability"},
		{`{"tasks": [{"walltime": "normal:mu=1,sigma=1", "mem": 3}`, "p:1: did not find expected"},
		// Values reached through a YAML merge key are reported at their own line.
		{"<<: {checkpoint: {latency: -1, bandwidth: 1}}\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:1: checkpoint: latency -1 s, want"},
		{"<<: {checkpoint: {latency: 1}}\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n", "p:1: checkpoint has no bandwidth"},
	}
	for _, b := range bad {
		_, err := Parse(strings.NewReader(b.in), "p")
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line containing %q", b.in, err, b.want)
		}
	}
}

func TestBuiltins(t *testing.T) {
	for _, n := range Builtins {
		a, ok := Builtin(n)
		if !ok || a.Validate() != nil {
			t.Fatalf("builtin %s", n)
		}
	}
	m, _ := Builtin("macruise")
	if got := m.MeanWalltime(); got != (50+66+181)*60 {
		t.Fatalf("MaCRUISE mean %v", got)
	}
	if _, ok := Builtin("nope"); ok {
		t.Fatal("unknown builtin accepted")
	}
}

func FuzzReadTrace(f *testing.F) {
	f.Add("0, 1722532\n2, 1778720\n")
	f.Add("t,usedKiB\n0,1\n")
	f.Add("0,1\n0,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadTrace(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for i := 1; i < len(s); i++ {
			if !(s[i].T > s[i-1].T) || s[i].Mem < 0 {
				t.Fatalf("accepted bad samples %v", s)
			}
		}
		if _, err := Segment(s, SegmentOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// A JSON profile with a surrogate-pair escape (Python's json.dump of an
// emoji) parses as encoding/json reads it; the YAML parser refused it.
func TestParseJSONSurrogatePair(t *testing.T) {
	p, err := Parse(strings.NewReader(`{"name":"app \ud83d\ude00","tasks":[{"name":"t\ud83d","walltime":"exponential:rate=1","mem":1}]}`), "f.json")
	if err != nil || p.App.Name != "app \U0001F600" || p.App.Tasks[0].Name != "t\uFFFD" {
		t.Fatalf("%+v, %v", p, err)
	}
}

func FuzzParseProfile(f *testing.F) {
	f.Add("tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n")
	f.Add(`{"tasks":[{"walltime":"exponential:rate=1","mem":0}]}`)
	f.Add(`{"name":"\ud83d\ude00","tasks":[{"name":"a\ud83d","walltime":"exponential:rate=1","mem":0}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Parse(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		if err := p.App.Validate(); err != nil {
			t.Fatalf("accepted invalid profile: %v", err)
		}
	})
}
