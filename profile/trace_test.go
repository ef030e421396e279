package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/dist"
)

func TestReadTasksDirDRD(t *testing.T) {
	runs, err := ReadTasksDir(drdDir)
	if err != nil {
		t.Skip(err)
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
		n := task.Walltime.(dist.Normal)
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

func TestReadTraceHeaderAndQuirks(t *testing.T) {
	s, err := ReadTrace(strings.NewReader("t,usedKiB\n# c\n0 , 976562.5\n\n2,1953125\r\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Mem != 1 || s[1].Mem != 2 || s[1].T != 2 {
		t.Fatalf("got %+v", s)
	}
}

// TestSegmentSyntheticNoise builds traces of known phases (each ramps up to
// its plateau after 3 samples at the baseline (a process starting, as in
// the SLANT traces), holds it with ±3 % noise and isolated one-sample
// spikes of +40 % (at most one in any 5 samples: the running median's
// reach), then frees
// its memory) and checks that every boundary is found within 3 samples.
func TestSegmentSyntheticNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
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
	bad := []struct{ in, want string }{
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: -3\n", "p:3: task 1: mem -3 GB is negative"},
		{"tasks:\n  - walltime: normal:mu=1\n    mem: 3\n", "p:2: task 1: walltime:"},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: lots\n", "p:3: task 1: mem \"lots\""},
		{"tasks:\n  - walltime: normal:mu=1,sigma=1\n    memory: 3\n", "p: line 3"},
		{"", "p: empty profile"},
		{"name: x\n", "p: profile has no tasks"},
		{"tasks:\n  - mem: 1\n", "p: task 1 has no walltime"},
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

func FuzzParseProfile(f *testing.F) {
	f.Add("tasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 3\n")
	f.Add(`{"tasks":[{"walltime":"exponential:rate=1","mem":0}]}`)
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
