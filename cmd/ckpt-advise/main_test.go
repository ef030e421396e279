package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/rng"
)

// bins are ckpt and ckpt-advise, built once for the tests.
var bins struct{ ckpt, lean, dir string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ckpt-advise-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dir, bins.ckpt, bins.lean = dir, filepath.Join(dir, "ckpt"), filepath.Join(dir, "ckpt-advise")
	// Both at once: ckpt as the other packages' tests build it (its
	// packages compiled once for all of them), ckpt-advise static as CI
	// ships it (CGO_ENABLED=0: TestAnswerTime times its start-up).
	builds := []struct {
		pkg, bin string
		env      []string
	}{{"../ckpt", bins.ckpt, nil}, {".", bins.lean, []string{"CGO_ENABLED=0"}}}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		wg.Go(func() {
			cmd := exec.Command("go", "build", "-o", b.bin, b.pkg)
			cmd.Env = append(os.Environ(), b.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a process gave.
type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, bin string, args ...string) result {
	t.Helper()
	r, err := start(bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// start is run for any goroutine: an error says the process did not run.
func start(bin string, args ...string) (result, error) {
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return result{}, fmt.Errorf("%s %q: %v", bin, args, err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, nil
}

// kth is the model ckpt learns from KTH-SP2, learnt once for the tests.
var kth struct {
	once  sync.Once
	model string
	log   advise.Log
	err   error
}

// learnt is the model learnt by ckpt from the shipped KTH-SP2 log, and the
// log.
func learnt(t *testing.T) (string, advise.Log) {
	t.Helper()
	log := datadirtest.ForTest(t, "swf", "KTH-SP2-1996-2.1-cln.swf.gz")
	kth.once.Do(func() {
		kth.model = filepath.Join(bins.dir, "kth.model")
		if r := run(t, bins.ckpt, "advise", "learn", log, "--model", kth.model); r.code != 0 {
			kth.err = fmt.Errorf("ckpt advise learn: %+v", r)
			return
		}
		kth.log, kth.err = advise.ReadSWFFile(log)
	})
	if kth.err != nil {
		t.Fatal(kth.err)
	}
	return kth.model, kth.log
}

// TestSameAnswersAsCkpt: for 80 seeded queries (each costs two process
// starts, ~50 ms of CPU: the suite's time is the bound) drawn from a shipped log's
// jobs (their users, groups, executables, queues, node counts and
// requests, mixed with unknown ones, none and bad values) and malformed
// command lines, ckpt-advise prints the same stdout and stderr and exits
// with the same status as ckpt advise (cobra's "unknown command "x" for
// COMMAND" names each its own). The queries must reach advice, abstention
// and usage errors, or the comparison would prove little.
func TestSameAnswersAsCkpt(t *testing.T) {
	model, l := learnt(t)
	r := rng.New(23)
	pick := func(known string, bad ...string) string {
		switch k := r.IntN(10); {
		case k < 7:
			return known
		case k < 9 || len(bad) == 0:
			return fmt.Sprint(r.IntN(100000)) // unknown
		default:
			return bad[r.IntN(len(bad))]
		}
	}
	var cases [][]string
	for range 80 {
		j := l.Jobs[r.IntN(len(l.Jobs))]
		args := []string{"--model", model, "--user", pick(j.User, "", "a b", "é\"\\")}
		if r.IntN(3) > 0 {
			args = append(args, "--account", pick(j.Group))
		}
		if r.IntN(3) > 0 {
			args = append(args, "--job-name", pick(j.App))
		}
		if r.IntN(2) > 0 {
			args = append(args, "--queue", pick(j.Queue))
		}
		if r.IntN(4) == 0 {
			args = append(args, "--partition", pick(j.Partition, "debug"))
		}
		if r.IntN(3) > 0 {
			args = append(args, "--nodes", pick(fmt.Sprint(j.Nodes), "-3", "x", "1e3", "99999999999999999999"))
		}
		switch k := r.IntN(6); {
		case k < 3:
			args = append(args, "--time", pick(fmt.Sprint(j.Requested), "-1", "90x", "1e400", "NaN", "", "00:61:00"))
		case k == 3:
			args = append(args, "--time", []string{"15h", "90m", "01:30:00", "2-00:00:00", "0"}[r.IntN(5)])
		}
		if r.IntN(3) == 0 {
			args = append(args, "--json")
		}
		cases = append(cases, args)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.model")
	b, _ := os.ReadFile(model)
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	os.WriteFile(filepath.Join(dir, "unreadable.model"), b, 0o000)
	cases = append(cases,
		[]string{}, []string{"--user", "12"}, []string{"--model", model}, []string{"--model", model, "--user", "12", "extra"},
		[]string{"--model", model, "--user", "12", "--no-such-flag"}, []string{"--model", filepath.Join(dir, "none"), "--user", "12"},
		[]string{"--model", dir, "--user", "12"}, []string{"--model", cut, "--user", "12", "--time", "1h"},
		[]string{"--model", filepath.Join(dir, "unreadable.model"), "--user", "12"}, []string{"--model", model, "--user", "12", "--time"},
		[]string{"--model", model, "--user", "12", "--nodes", "4", "--time", "15h"}, []string{"--model", model, "--user=12", "--json=false"})
	// The 184 processes run a few at a time (each mostly starts up and
	// waits on its pipes); the comparisons below read them in order.
	wants, gots := make([]result, len(cases)), make([]result, len(cases))
	errs := make([]error, 2*len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, args := range cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			wants[i], errs[2*i] = start(bins.ckpt, append([]string{"advise"}, args...)...)
			gots[i], errs[2*i+1] = start(bins.lean, args...)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	advised, kept := 0, 0
	for i, args := range cases {
		want, got := wants[i], gots[i]
		got.stderr = strings.ReplaceAll(got.stderr, `for "ckpt-advise"`, `for "ckpt advise"`) // cobra names the command
		if got != want {
			t.Errorf("%q:\nckpt advise: %+v\nckpt-advise: %+v", args, want, got)
		}
		codes[want.code]++
		switch {
		case want.code != 0:
			if n := strings.Count(want.stderr, "\n"); n != 1 || want.stdout != "" {
				t.Errorf("%q: exit %d with %d stderr lines and stdout %q, want one line", args, want.code, n, want.stdout)
			}
		case strings.Contains(want.stdout, "--time-min") || strings.Contains(want.stdout, `"keep_user_request": false`):
			advised++
		default:
			kept++
		}
	}
	t.Logf("%d command lines: exit codes %v, %d advised, %d kept or no advice", len(cases), codes, advised, kept)
	if codes[0] < 50 || codes[2] < 12 || advised < 10 || kept < 25 {
		t.Fatalf("the queries reach too few cases to compare: exit codes %v, %d advised, %d kept", codes, advised, kept)
	}
}

// TestAnswerLinksNothingHeavy: the answer path — ckpt-advise and everything
// it links — has none of the packages whose initialisation made every ckpt
// process cost about 30 ms (plots and fonts, Prometheus, Raft, net/http)
// nor the capabilities and services that bring them (reservation, slurm).
// Before the answer path was split from learning and replaying, advise
// linked reservation and its plots, and this test failed.
func TestAnswerLinksNothingHeavy(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/ckpt-hpc/ckpt/advise") {
		t.Fatalf("go list -deps does not list package advise: %q", deps)
	}
	bad := []string{"gonum.org/v1/plot", "github.com/prometheus/", "github.com/hashicorp/raft", "net/http",
		"github.com/ckpt-hpc/ckpt/reservation", "github.com/ckpt-hpc/ckpt/slurm", "github.com/ckpt-hpc/ckpt/plot",
		"github.com/ckpt-hpc/ckpt/report", "github.com/ckpt-hpc/ckpt/runner", "go.etcd.io/bbolt"}
	for _, d := range deps {
		for _, b := range bad {
			if d == b || strings.HasPrefix(d, b) && (strings.HasSuffix(b, "/") || strings.HasPrefix(d[len(b):], "/")) {
				t.Errorf("ckpt-advise links %s", d)
			}
		}
	}
}

// TestAnswerTime: the median wall time of 20 answers of ckpt-advise,
// process start included, is under 20 ms. Asserted with CKPT_TIMING_TESTS=1
// (CI runs it alone); otherwise the median of 5 is logged, since a shared
// machine's load says nothing about the code, and every answer must
// still succeed.
func TestAnswerTime(t *testing.T) {
	model, _ := learnt(t)
	args := []string{"--model", model, "--user", "12", "--nodes", "4", "--time", "15h", "--json"}
	n := 5
	if os.Getenv("CKPT_TIMING_TESTS") == "1" {
		n = 20
	}
	median := func(bin string, args ...string) time.Duration {
		var d []time.Duration
		for range n {
			start := time.Now()
			if r := run(t, bin, args...); r.code != 0 {
				t.Fatalf("%s: %+v", bin, r)
			}
			d = append(d, time.Since(start))
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	// Up to three attempts: a burst of load elsewhere on a shared machine
	// says nothing about the binary; three medians over 20 ms in a row do.
	var lean []time.Duration
	for range 3 {
		lean = append(lean, median(bins.lean, args...))
		if lean[len(lean)-1] < 20*time.Millisecond {
			break
		}
	}
	full := median(bins.ckpt, append([]string{"advise"}, args...)...)
	t.Logf("median of %d answers, process start included: ckpt-advise %v, ckpt advise %v", n, lean, full)
	if os.Getenv("CKPT_TIMING_TESTS") == "1" && slices.Min(lean) >= 20*time.Millisecond {
		t.Fatalf("ckpt-advise answers in %v (medians of 20, three attempts), want under 20 ms", lean)
	}
}
