package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// built is the ckpt binary TestMain builds in the background while the
// in-process tests run; ckptBin waits for it.
var built struct {
	path string
	done chan struct{}
	err  error
}

// ckptBin is the path of the ckpt binary built for the tests, once built.
func ckptBin(t testing.TB) string {
	t.Helper()
	<-built.done
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// TestMain builds the ckpt binary once for the package's tests (in the
// background: the first test that runs it waits) and closes
// the shared Chromium at the end. Slow tests that neither set the
// environment nor change folder, and assert no wall time (or only a
// bound of seconds on what takes a fraction of one, such as a raft
// election), call t.Parallel; four of them run at once unless -parallel
// says otherwise, since the replica groups' tests mostly wait on their
// processes' fsyncs and timers while the others compute.
func TestMain(m *testing.M) {
	if handOver != nil {
		fmt.Println("cmd/ckpt's tests run on the default build; .ci/run checks the lite one (go build -tags lite)")
		os.Exit(0)
	}
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	dir, err := os.MkdirTemp("", "ckpt-cli")
	if err != nil {
		panic(err)
	}
	built.path, built.done = filepath.Join(dir, "ckpt"), make(chan struct{})
	go func() {
		defer close(built.done)
		if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	}()
	code := m.Run()
	<-built.done
	closeBrowser()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes ckpt in-process (so that coverage counts the commands) and
// returns stdout, stderr and the exit code main would return.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

type planOut struct {
	ExpectedCost   float64 `json:"expected_cost"`
	OmniscientCost float64 `json:"omniscient_cost"`
	LowerBound     float64 `json:"lower_bound"`
	Reservations   []struct {
		Length     float64 `json:"length_s"`
		Milestone  float64 `json:"milestone_s"`
		Checkpoint bool    `json:"checkpoint"`
	} `json:"reservations"`
	Baselines map[string]float64 `json:"baselines"`
	Law       lawSource          `json:"law"`
}

func decodePlan(t *testing.T, s string) planOut {
	t.Helper()
	var p planOut
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
	return p
}

func TestReserveDefaultNeuroscienceExample(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "", "reserve")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"lognormal", "expected cost", "sbatch --time", "omniscient", "no-ckpt-per", "neuro-last5-plus50", "certified"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, errOut, code := run(t, "", "reserve", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, js)
	if len(p.Reservations) == 0 || p.ExpectedCost < p.OmniscientCost || p.LowerBound > p.ExpectedCost {
		t.Fatalf("implausible plan: %+v", p)
	}
	for _, name := range []string{"all-ckpt", "no-ckpt", "all-ckpt-per", "no-ckpt-per", "max-walltime", "neuro-last5-plus50", "max-of-last5-x1.5"} {
		v, ok := p.Baselines[name]
		if !ok || v < p.ExpectedCost*(1-1e-9) {
			t.Errorf("baseline %s = %v (present %v), plan %v", name, v, ok, p.ExpectedCost)
		}
	}
	// Reservation lengths follow Eq. (4) from the milestones.
	saved, restart := 0.0, 0.0
	for i, r := range p.Reservations {
		want := restart + r.Milestone - saved
		if r.Checkpoint {
			want += 600
			saved, restart = r.Milestone, 600
		}
		if math.Abs(r.Length-want) > 1e-6 {
			t.Errorf("reservation %d length %v, want %v", i+1, r.Length, want)
		}
	}
}

// The introduction's example on its three-point law: S3 costs 41.54.
func TestReserveEvaluateIntroductionExample(t *testing.T) {
	js, errOut, code := run(t, "", "reserve", "--dist", "discrete:20@0.66,40@0.26,80@0.08", "--ckpt", "7", "--restart", "7",
		"--evaluate", "20:ckpt,40,80", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, js)
	if math.Abs(p.ExpectedCost-41.54) > 1e-9 {
		t.Fatalf("expected cost %v, want 41.54", p.ExpectedCost)
	}
	if p.Baselines["dyn-prog-count"] > 41.54 {
		t.Fatalf("optimum %v above S3", p.Baselines["dyn-prog-count"])
	}
}

func TestReserveHistoryFormats(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "runs.txt")
	os.WriteFile(plain, []byte("# past runs\n3600\n5400\n4000\n7200\n3900\n"), 0o644)
	out, errOut, code := run(t, "", "reserve", "--history", plain, "--fit", "empirical", "--ckpt", "60", "--restart", "60", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, out)
	if last := p.Reservations[len(p.Reservations)-1].Milestone; last != 7200 {
		t.Errorf("empirical plan ends at %v, want the longest run 7200", last)
	}
	sacct := "JobID|JobName|State|ElapsedRaw\n101|sim|COMPLETED|3600\n101.batch|batch|COMPLETED|3600\n102|sim|TIMEOUT|7200\n103|sim|COMPLETED|4000\n104|sim|COMPLETED|5000\n"
	out, errOut, code = run(t, sacct, "reserve", "--history", "-", "--fit", "empirical", "--json")
	if code != 0 {
		t.Fatalf("sacct: exit %d: %s", code, errOut)
	}
	p = decodePlan(t, out)
	if last := p.Reservations[len(p.Reservations)-1].Milestone; last != 7200 {
		t.Errorf("sacct plan ends at %v, want 7200 (the TIMEOUT run is censored there: Kaplan-Meier keeps its mass at 7200)", last)
	}
	if p.Law.Sacct == nil || p.Law.Sacct.Complete != 3 || p.Law.Sacct.Censored != 1 || !strings.HasPrefix(p.Law.Spec, "Kaplan-Meier estimate of 4 runs, 1 censored") {
		t.Errorf("law %+v", p.Law)
	}
}

func TestReserveRealWalltimes(t *testing.T) {
	for _, rel := range [][]string{{"walltimes", "slant-drd-88.log"}, {"slant", "makespans-312.csv"}} {
		f := datadirtest.ForTest(t, rel...)
		for _, fit := range []string{"empirical", "auto"} {
			out, errOut, code := run(t, "", "reserve", "--history", f, "--fit", fit, "--json")
			if code != 0 {
				t.Fatalf("%s --fit %s: exit %d: %s", f, fit, code, errOut)
			}
			p := decodePlan(t, out)
			if p.ExpectedCost < p.OmniscientCost || len(p.Reservations) == 0 {
				t.Errorf("%s --fit %s: implausible %+v", f, fit, p)
			}
		}
	}
}

func TestBadInputExitsWithUsageError(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	text := filepath.Join(dir, "text.txt")
	os.WriteFile(text, []byte("12\nabc\n"), 0o644)
	single := filepath.Join(dir, "single.txt")
	os.WriteFile(single, []byte("3600\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"reserve", "--ckpt", "-5"}, "-5"},
		{[]string{"reserve", "--ckpt", "NaN"}, "NaN"},
		{[]string{"reserve", "--restart", "abc"}, "abc"},
		{[]string{"reserve", "--alpha", "0"}, "alpha"},
		{[]string{"reserve", "--beta", "-1"}, "beta"},
		{[]string{"reserve", "--gamma", "NaN"}, "gamma"},
		{[]string{"reserve", "--dist", "weibull:k=-1,lambda=1h"}, "-1"},
		{[]string{"reserve", "--dist", "frechet:a=1"}, "frechet"},
		{[]string{"reserve", "--epsilon", "0"}, "epsilon"},
		{[]string{"reserve", "--epsilon", "-0.5"}, "-0.5"},
		{[]string{"reserve", "--n", "0"}, "--n"},
		{[]string{"reserve", "--n", "-3"}, "-3"},
		{[]string{"reserve", "--strategy", "magic"}, "magic"},
		{[]string{"reserve", "--history", empty}, "empty.txt"},
		{[]string{"reserve", "--history", text}, "abc"},
		{[]string{"reserve", "--history", single}, "single.txt"},
		{[]string{"reserve", "--history", filepath.Join(dir, "missing.txt")}, "missing.txt"},
		{[]string{"reserve", "--history", single, "--fit", "cauchy"}, "cauchy"},
		{[]string{"reserve", "--evaluate", "5h,2h"}, "milestone"},
		{[]string{"reserve", "--evaluate", "1h", "--dist", "uniform:a=0,b=2h"}, "cover"},
		{[]string{"reserve", "--bogus"}, "bogus"},
		{[]string{"frobnicate"}, "frobnicate"},
		{[]string{"repro", "nothing"}, "nothing"},
	}
	for _, tc := range cases {
		out, errOut, code := run(t, "", tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q should be one line naming %q", tc.args, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("%v: printed a plan despite the error: %q", tc.args, out)
		}
	}
}

func TestReproFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"repro", "reservation", "--seed", "3", "--out", dir}, "--seed"},
		{[]string{"repro", "coop", "--workers", "-1", "--out", dir}, "-1"},
		{[]string{"repro", "coop", "--seed", "x", "--out", dir}, "x"},
	} {
		out, errOut, code := run(t, "", tc.args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestReproInterrupted is Ctrl-C during a long reproduction (the full coop
// one runs for many minutes): the command stops with exit 1, progress went
// to stderr only, and every CSV file written so far holds whole lines. The
// target is a second; an iosim trial checks its context only every so
// often (0.2-0.8 s on a loaded machine), hence the 3 s bound.
func TestReproInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"repro", "coop", "--out", dir, "--workers", "2"}, strings.NewReader(""), &out, &errb)
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(slow * 3 * time.Second):
		t.Fatal("repro coop still running 3 s after the interruption")
	}
	if code != 1 || !strings.Contains(errb.String(), "canceled") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "reproducing") || strings.Contains(out.String(), "reproducing") {
		t.Errorf("progress belongs on stderr: stdout %q, stderr %q", out.String(), errb.String())
	}
	// Finished CSVs, and an interrupted one's rows kept as NAME.csv.partial.
	csvs, _ := filepath.Glob(filepath.Join(dir, "coop", "*.csv*"))
	for _, f := range csvs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a partial line: %q", filepath.Base(f), b[max(0, len(b)-80):])
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", "item,point,rep,seed,v\n0,0,0,1,a\n1,1,0,2,b\n")
	empty := write("empty.csv", "")
	cut := write("cut.csv", "item,point,rep,seed,v\n0,0,0,1,a\n1,1,0")
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"merge", "--out", out, "--expect", "2", empty}, 1, "empty.csv"},
		{[]string{"merge", "--out", out, empty, empty}, 1, "empty.csv"},
		{[]string{"merge", "--out", out, "--expect", "2", cut}, 1, "cut.csv:3: truncated"},
		{[]string{"merge", "--out", out, good}, 2, "good.csv"},
		{[]string{"merge", "--out", out, "--expect", "3", good}, 1, "item 2 is missing from " + good},
		{[]string{"merge", "--out", filepath.Join(dir, "out.txt"), good}, 2, "--out"},
		{[]string{"merge", "--out", out, "--expect", "2", filepath.Join(dir, "in.dat")}, 2, `input "` + filepath.Join(dir, "in.dat") + `": unknown format`},
		{[]string{"merge", "--out", out, "--expect", "-1", good}, 2, "-1"},
	} {
		stdout, errOut, code := run(t, "", tc.args...)
		if code != tc.code || stdout != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line naming %q", tc.args[3:], code, errOut, tc.code, tc.want)
		}
		if strings.Contains(errOut, "output format") {
			t.Errorf("%v: %q calls an input an output", tc.args[3:], errOut)
		}
	}
	if _, errOut, code := run(t, "", "merge", "--out", out, "--expect", "2", good); code != 0 {
		t.Fatalf("good input: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "item,point,rep,seed,v\n0,0,0,1,a\n1,1,0,2,b\n" {
		t.Errorf("merged %q", b)
	}
}

// The tests that run the quick reproductions take minutes on 2 cores, and
// CI's script (.ci/run) runs every quick reproduction once already, with
// the static binary. So they run only when asked:
//
//   - CKPT_REPRO_OUT=DIR names the output of `ckpt repro all --quick --out
//     DIR`: the tests check that folder instead of reproducing again (what
//     .ci/run does);
//   - CKPT_REPRO_TESTS=1 makes them run the reproductions themselves.
//
// Otherwise they skip, naming both variables.
const (
	reproOutEnv   = "CKPT_REPRO_OUT"
	reproTestsEnv = "CKPT_REPRO_TESTS"
)

// quickRepro returns the folder holding the quick outputs of reproduction
// name ("all": the folder of `ckpt repro all --quick`, with report.html):
// inside $CKPT_REPRO_OUT, or reproduced here with CKPT_REPRO_TESTS=1.
func quickRepro(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv(reproOutEnv); dir != "" {
		if name != "all" {
			dir = filepath.Join(dir, name)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("$%s: %v (want the output of ckpt repro all --quick)", reproOutEnv, err)
		}
		return dir
	}
	if os.Getenv(reproTestsEnv) != "1" {
		t.Skipf("runs ckpt repro %s --quick (minutes): set %s=1, or %s to the output of ckpt repro all --quick", name, reproTestsEnv, reproOutEnv)
	}
	if name == "all" { // cloud and profiles need their data; the rest run without
		datadirtest.ForTest(t, "google2011", "gloudsim-task-traces")
		datadirtest.ForTest(t, "slant", "drd-tasks")
	}
	out := t.TempDir()
	if _, stderr, code := run(t, "", "repro", name, "--quick", "--out", out); code != 0 {
		t.Fatalf("repro %s --quick: exit %d: %s", name, code, stderr)
	}
	if name != "all" {
		out = filepath.Join(out, name)
	}
	return out
}
