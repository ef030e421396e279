package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/reservation"
)

// lawSource is the "law" object of the plan's JSON (main_test.go's
// planOut decodes it).
type lawSource = reservation.LawSource

// shellWords splits a command line into words the way a shell does for the
// simple lines of a help text: blanks separate words, and single or double
// quotes group (and are removed).
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced %c in %q", quote, line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// helpExample is one example line of a help text, reduced to the ckpt
// invocation: its arguments, and the program that feeds it on a pipe.
type helpExample struct {
	line  string
	args  []string
	stdin string // the command before "|", if any
}

// helpExamples parses the Example field of a command: every line that runs
// ckpt, with what precedes "| ckpt" kept as the stdin producer and what
// follows a redirection or "&&" dropped (it handles ckpt's output).
func helpExamples(example string) ([]helpExample, error) {
	var out []helpExample
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ex := helpExample{line: line}
		cmdPart := line
		if before, after, ok := strings.Cut(line, " | "); ok {
			ex.stdin, cmdPart = strings.TrimSpace(before), after
		}
		words, err := shellWords(cmdPart)
		if err != nil {
			return nil, err
		}
		if len(words) == 0 || words[0] != "ckpt" {
			return nil, fmt.Errorf("example %q does not run ckpt", line)
		}
		for i, w := range words {
			if w == "&&" || w == ">" || w == ">>" || w == "2>" || w == "|" {
				words = words[:i]
				break
			}
		}
		ex.args = words[1:]
		out = append(out, ex)
	}
	return out, nil
}

func findCommand(t *testing.T, root *cobra.Command, path ...string) *cobra.Command {
	t.Helper()
	c, _, err := root.Find(path)
	if err != nil || c == root {
		t.Fatalf("no command %v: %v", path, err)
	}
	return c
}

// exampleFixtures writes the files the help examples name (runs.txt,
// app.yaml, runs/, the job scripts) into dir, and returns the stdin text of
// each producer the examples pipe into ckpt.
func exampleFixtures(t *testing.T, dir string) map[string]string {
	t.Helper()
	var runs strings.Builder
	for i := range 40 {
		// Walltimes around 2 h with a spread, in seconds.
		fmt.Fprintf(&runs, "%d\n", 5400+(i*7919)%5000)
	}
	files := map[string]string{
		"runs.txt":   runs.String(),
		"segment.sh": "#!/bin/bash\nsrun ./simulate\n",
		"job.sh":     "#!/bin/bash\nsrun ./simulate\n",
		"app.yaml": `name: two-phase
tasks:
  - name: preprocessing
    walltime: normal:mu=600,sigma=60
    mem: 2
  - name: solve
    walltime: lognormal:mean=2h,sd=30m
    mem: 16
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// runs/: per-run phase traces, ID/taskK.csv; a few of the DRD runs
	// (without the shared data, the examples that need them skip).
	if src, err := datadir.Path("", "slant", "drd-tasks"); err == nil {
		ids, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:min(4, len(ids))] {
			tasks, _ := os.ReadDir(filepath.Join(src, id.Name()))
			os.MkdirAll(filepath.Join(dir, "runs", id.Name()), 0o755)
			for _, f := range tasks {
				b, err := os.ReadFile(filepath.Join(src, id.Name(), f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, "runs", id.Name(), f.Name()), b, 0o644)
			}
		}
	}
	// knl-phase-times.csv: SLANT's seven phase walltimes on another machine.
	knl := "# phase walltimes of three runs on the target machine\n1m05s,17m,6m10s,1h02m,2h40m,9m,1m40s\n1m10s,16m30s,6m30s,1h,2h41m,8m40s,1m50s\n1m,17m20s,6m,1h03m,2h39m,9m10s,1m45s\n"
	if err := os.WriteFile(filepath.Join(dir, "knl-phase-times.csv"), []byte(knl), 0o644); err != nil {
		t.Fatal(err)
	}
	sacct := "JobID|State|ElapsedRaw\n1234|COMPLETED|7200\n1234.batch|COMPLETED|7200\n1235|COMPLETED|6100\n1236|TIMEOUT|9000\n1237|COMPLETED|8050\n1238|COMPLETED|6900\n"
	return map[string]string{"sacct": sacct}
}

// Every example of `ckpt reserve --help` (and of its subcommands) must run:
// the --evaluate example once failed because its last milestone, 80h, did
// not cover the truncated LogNormal (up to 38d13h). Each line is run in
// process through the root command, with the files it names written to a
// scratch folder.
func TestReserveHelpExamplesRun(t *testing.T) {
	// The examples are checked as plans, not against the limits of a Slurm
	// this machine may run (a 24 GB node refuses the --mem of a profile's
	// plan): no sinfo on PATH, so --sbatch checks no cluster.
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	stdins := exampleFixtures(t, dir)
	root := newRoot()
	reserve := findCommand(t, root, "reserve")
	var all []helpExample
	for _, c := range append([]*cobra.Command{reserve}, reserve.Commands()...) {
		exs, err := helpExamples(c.Example)
		if err != nil {
			t.Fatalf("%s: %v", c.CommandPath(), err)
		}
		if c == reserve && len(exs) < 6 {
			t.Fatalf("only %d examples parsed from:\n%s", len(exs), c.Example)
		}
		all = append(all, exs...)
	}
	for i, ex := range all {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			if strings.Contains(ex.line, "$SLURM_ARRAY_TASK_ID") || strings.HasPrefix(ex.line, "ckpt merge") {
				t.Skip("needs a Slurm job array")
			}
			if strings.Contains(ex.line, "--tasks runs/") || strings.Contains(ex.line, "--task-dir runs/") {
				datadirtest.ForTest(t, "slant", "drd-tasks") // skips naming the missing folder
			}
			args := append([]string(nil), ex.args...)
			for j, a := range args {
				if _, err := os.Stat(filepath.Join(dir, a)); err == nil && a != "-" {
					args[j] = filepath.Join(dir, a)
				}
				if a == "--csv" && j+1 < len(args) && args[j+1] != "-" {
					args[j+1] = filepath.Join(dir, args[j+1])
				}
			}
			stdin := ""
			if ex.stdin != "" {
				producer := strings.Fields(ex.stdin)[0]
				var ok bool
				if stdin, ok = stdins[producer]; !ok {
					t.Fatalf("example %q: no fixture for the output of %q", ex.line, producer)
				}
			}
			root := newRoot()
			var out, errb bytes.Buffer
			root.SetArgs(args)
			root.SetIn(strings.NewReader(stdin))
			root.SetOut(&out)
			root.SetErr(&errb)
			if err := root.Execute(); err != nil {
				t.Fatalf("example %q failed: %v\n%s", ex.line, err, errb.String())
			}
			if out.Len() == 0 && !strings.Contains(ex.line, "--csv") {
				t.Errorf("example %q printed nothing", ex.line)
			}
		})
	}
}

func TestShellWordsAndHelpExamples(t *testing.T) {
	exs, err := helpExamples(`  ckpt reserve --evaluate "20h:ckpt,40h" --dist 'a b'
  # comment
  sacct -j 1 --parsable2 | ckpt reserve --history - --json
  ckpt reserve --sbatch s.sh > submit.sh && bash submit.sh`)
	if err != nil {
		t.Fatal(err)
	}
	want := []helpExample{
		{args: []string{"reserve", "--evaluate", "20h:ckpt,40h", "--dist", "a b"}},
		{args: []string{"reserve", "--history", "-", "--json"}, stdin: "sacct -j 1 --parsable2"},
		{args: []string{"reserve", "--sbatch", "s.sh"}},
	}
	if len(exs) != len(want) {
		t.Fatalf("%d examples, want %d", len(exs), len(want))
	}
	for i := range want {
		if fmt.Sprint(exs[i].args) != fmt.Sprint(want[i].args) || exs[i].stdin != want[i].stdin {
			t.Errorf("example %d: %q | %q, want %q | %q", i, exs[i].stdin, exs[i].args, want[i].stdin, want[i].args)
		}
	}
	if _, err := shellWords(`ckpt "open`); err == nil {
		t.Error("unbalanced quote accepted")
	}
}

type guaranteeOut struct {
	N       int      `json:"n"`
	Epsilon *float64 `json:"epsilon"`
	Capped  bool     `json:"n_capped"`
}

// The reported ε is the guarantee the grid achieves. For uniform[0, 20h]
// with C = R = 1h, Algorithm 1 has c0(ε) = 3·20h / min(ε·10h/3, 1h), so
// ⌈c0(ε)/ε⌉ ≤ n ⇔ 18/ε² ≤ n for ε ≤ 0.3 (and 60/ε ≤ n above): n points
// achieve ε' = √(18/n) whenever that is ≤ 0.3. The old report, c0(ε)/n,
// said 0.03 for the default ε = 1 on the 2000-point floor, which Algorithm
// 1 would reach only with 20 000 points.
func TestReserveReportsTheAchievedGuarantee(t *testing.T) {
	base := []string{"reserve", "--dist", "uniform:a=0,b=20h", "--ckpt", "1h", "--restart", "1h", "--json", "--no-baselines"}
	points := func(eps float64) float64 { // ⌈c0(ε)/ε⌉, from the paper's formula
		c0 := 3 * 72000 / math.Min(eps*36000/3, 3600)
		return math.Ceil(c0 / eps)
	}
	for _, tc := range []struct {
		args   []string
		n      int
		capped bool
		maxEps float64 // the requested ε, when one is
	}{
		{nil, 2000, false, 1},
		{[]string{"--epsilon", "0.2"}, 2000, false, 0.2},
		{[]string{"--epsilon", "0.08"}, 2813, false, 0.08}, // ⌈18/0.08²⌉
		{[]string{"--epsilon", "0.05", "--max-n", "500"}, 500, true, math.Inf(1)},
		{[]string{"--n", "300"}, 300, false, math.Inf(1)},
		{[]string{"--n", "3000"}, 3000, false, math.Inf(1)}, // with --n, --epsilon is refused (TestReserveRefusesIgnoredFlags)
	} {
		out, errOut, code := run(t, "", append(append([]string{}, base...), tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		var g guaranteeOut
		if err := json.Unmarshal([]byte(out), &g); err != nil || g.Epsilon == nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		eps := *g.Epsilon
		if g.N != tc.n || g.Capped != tc.capped {
			t.Errorf("%v: n = %d capped = %v, want %d %v", tc.args, g.N, g.Capped, tc.n, tc.capped)
		}
		if want := math.Sqrt(18 / float64(tc.n)); math.Abs(eps-want) > 1e-9*want {
			t.Errorf("%v: epsilon %v, want sqrt(18/%d) = %v", tc.args, eps, tc.n, want)
		}
		if points(eps) > float64(g.N) || points(eps*(1-1e-9)) <= float64(g.N) {
			t.Errorf("%v: epsilon %v is not the smallest that %d points achieve", tc.args, eps, g.N)
		}
		if !g.Capped && eps > tc.maxEps {
			t.Errorf("%v: epsilon %v above the requested %v", tc.args, eps, tc.maxEps)
		}
	}
	// The text says the same.
	out, _, _ := run(t, "", "reserve", "--dist", "uniform:a=0,b=20h", "--ckpt", "1h", "--restart", "1h", "--no-baselines", "--n", "300")
	if !strings.Contains(out, "on 300 grid points (guaranteed within a factor 1+0.245 of the optimum)") {
		t.Errorf("strategy line:\n%s", out)
	}
	// Beyond ε = 3 Theorem 3's proof gives (1+ε/3)², more than 1+ε.
	out, _, _ = run(t, "", "reserve", "--dist", "uniform:a=0,b=20h", "--ckpt", "1h", "--restart", "1h", "--no-baselines", "--n", "1")
	if !strings.Contains(out, "guaranteed within a factor 441 = (1+60/3)^2 of the optimum") {
		t.Errorf("strategy line for n = 1:\n%s", out)
	}
}

// Only the DP classes have a guarantee; the periodic strategies are
// heuristics, and a plan given to --evaluate has none either.
func TestReserveStrategyLineWording(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		want       string
		guaranteed bool
	}{
		{[]string{"--strategy", "dyn-prog-count"}, "of the optimum", true},
		{[]string{"--strategy", "all-ckpt"}, "of the best strategy that checkpoints every reservation", true},
		{[]string{"--strategy", "no-ckpt"}, "of the best strategy without checkpoints", true},
		{[]string{"--strategy", "all-ckpt-per"}, "a heuristic, with no guarantee", false},
		{[]string{"--strategy", "no-ckpt-per"}, "a heuristic, with no guarantee", false},
		{[]string{"--evaluate", "10h:ckpt,20h"}, "the plan given to --evaluate", false},
		{[]string{"--dist", "discrete:1h@0.5,3h@0.5"}, "optimal for this discrete law", false},
	} {
		args := append([]string{"reserve", "--dist", "uniform:a=1h,b=20h", "--ckpt", "6m", "--restart", "6m", "--no-baselines", "--max-tau", "50"}, tc.args...)
		out, errOut, code := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "strategy:") {
				line = l
			}
		}
		if !strings.Contains(line, tc.want) || strings.Contains(line, "guaranteed") != tc.guaranteed {
			t.Errorf("%v: %q", tc.args, line)
		}
		// The JSON reports an epsilon only with a guarantee.
		js, _, _ := run(t, "", append(args, "--json")...)
		var g guaranteeOut
		if err := json.Unmarshal([]byte(js), &g); err != nil || (g.Epsilon != nil) != (tc.guaranteed) {
			t.Errorf("%v --json: epsilon %v (%v)", tc.args, g.Epsilon, err)
		}
	}
}

// A law reaching beyond 10¹⁰ s is refused in one line naming it; the
// formatters once printed "-384307168202282325d-8h" for it.
func TestReserveRefusesHugeLaws(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.txt")
	os.WriteFile(huge, []byte("3600\n1e300\n4000\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"reserve", "--dist", "exponential:rate=1e-300"}, []string{"rate=1e-300", "1.61e+301", "1e+10 s"}},
		{[]string{"reserve", "--dist", "exponential:rate=1e-300", "--evaluate", "1h"}, []string{"rate=1e-300", "1e+10 s"}},
		{[]string{"reserve", "--dist", "exponential:rate=1e-300", "--json"}, []string{"rate=1e-300"}},
		{[]string{"reserve", "sweep", "--dist", "exponential:rate=1e-300"}, []string{"rate=1e-300"}},
		{[]string{"reserve", "--dist", "pareto:xm=1h,alpha=0.8"}, []string{"alpha=0.8", "2.02e+12", "--tail-mass"}},
		{[]string{"reserve", "--dist", "uniform:a=0,b=1e11"}, []string{"b=1e+11"}},
		{[]string{"reserve", "--history", huge}, []string{"huge.txt", "1e+300"}},
		{[]string{"reserve", "--tail-mass", "1e-300"}, []string{"Q(1 - 1e-300)"}},
		{[]string{"reserve", "--ckpt", "1e300"}, []string{"--ckpt 1e300", "1e+10 s"}},
		{[]string{"reserve", "--restart", "400y"}, []string{"--restart 400y", "1e+10 s"}},
	} {
		out, errOut, code := run(t, "", tc.args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errOut, w)
			}
		}
	}
}

// More bad input: each is one line naming the bad value, exit 2, no plan.
func TestReserveMoreBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reserve", "--alpha", "1e308"}, "1e+308"},
		{[]string{"reserve", "--beta", "1e308", "--evaluate", "1h,40d"}, "1e+308"},
		{[]string{"reserve", "--n", "2147483647"}, "2147483647"},
		{[]string{"reserve", "--max-n", "0"}, "--max-n"},
		{[]string{"reserve", "--max-n", "1000000000"}, "1000000000"},
		{[]string{"reserve", "--dist", "discrete:0@1"}, "discrete:0@1"},
		{[]string{"reserve", "--tail-mass", "1"}, "tail-mass"},
		{[]string{"reserve", "--epsilon", "NaN"}, "NaN"},
		{[]string{"reserve", "--epsilon", "Inf"}, "Inf"},
		{[]string{"reserve", "--dist", "lognormal"}, "lognormal"},
	} {
		out, errOut, code := run(t, "", tc.args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want one line naming %q)", tc.args, code, out, errOut, tc.want)
		}
	}
}

// A fitted law that fails the KS check (the bimodal SLANT makespans) is
// flagged on stderr and in the JSON; a good fit is not.
func TestReserveWarnsOnAPoorFit(t *testing.T) {
	bimodal := datadirtest.ForTest(t, "slant", "makespans-312.csv")
	good := datadirtest.ForTest(t, "walltimes", "slant-drd-88.log")
	out, errOut, code := run(t, "", "reserve", "--history", bimodal, "--no-baselines", "--max-n", "2000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 1.63/√312 = 0.0923; the BIC choice, a truncated normal, has KS 0.294.
	for _, w := range []string{"warning:", "truncnormal", "Kolmogorov-Smirnov", "0.294", "0.0923", "--fit empirical"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %q", w, errOut)
		}
	}
	if strings.Contains(out, "warning") {
		t.Errorf("warning on stdout:\n%s", out)
	}
	js, _, _ := run(t, "", "reserve", "--history", bimodal, "--fit", "gamma", "--no-baselines", "--json", "--max-n", "2000")
	var p struct {
		Law struct {
			KS         float64 `json:"ks"`
			KSCritical float64 `json:"ks_critical"`
		} `json:"law"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "gamma") {
		t.Errorf("JSON warnings %q (%v)", p.Warnings, err)
	}
	if crit := 1.63 / math.Sqrt(312); math.Abs(p.Law.KSCritical-crit) > 1e-12 || !(p.Law.KS > crit) {
		t.Errorf("JSON ks %v, ks_critical %v (want > %v)", p.Law.KS, p.Law.KSCritical, crit)
	}
	for _, args := range [][]string{{"--history", good}, {"--history", bimodal, "--fit", "empirical"}} {
		_, errOut, code := run(t, "", append(append([]string{"reserve"}, args...), "--no-baselines", "--max-n", "2000")...)
		if code != 0 || strings.Contains(errOut, "warning") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// A heavy tail of infinite mean is planned on its truncation, and when the
// capped grid is too coarse for it a practitioners' baseline beats the DP:
// both are said, with the cheaper strategy and its cost.
func TestReserveWarnsWhenABaselineIsCheaper(t *testing.T) {
	js, errOut, code := run(t, "", "reserve", "--dist", "pareto:xm=60,alpha=0.9", "--max-n", "3000", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, js)
	best, bestCost := "", math.Inf(1)
	for name, c := range p.Baselines {
		if name != "dyn-prog-count" && c < bestCost {
			best, bestCost = name, c
		}
	}
	if !(bestCost < p.ExpectedCost) {
		t.Fatalf("no baseline beats the plan here any more (%v vs %v): pick another case", bestCost, p.ExpectedCost)
	}
	for _, w := range []string{"infinite mean", "truncated to", best, fmt.Sprintf("%.6g", bestCost), "not the cheapest"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %q", w, errOut)
		}
	}
	if !strings.Contains(js, `"warnings"`) {
		t.Error("JSON has no warnings")
	}
	// No such warning when the plan is the cheapest.
	_, errOut, code = run(t, "", "reserve", "--dist", "uniform:a=1h,b=20h", "--ckpt", "6m", "--restart", "6m", "--max-tau", "50")
	if code != 0 || errOut != "" {
		t.Errorf("uniform: exit %d, stderr %q", code, errOut)
	}
}

func TestReserveHelpText(t *testing.T) {
	out, _, code := run(t, "", "reserve", "--help")
	if code != 0 {
		t.Fatal("--help failed")
	}
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--dist string") || strings.Contains(l, "--fit string") {
			seen++
		}
		if strings.Contains(l, "--dist string") && strings.Count(l, "discrete") != 1 {
			t.Errorf("--dist help names discrete %d times: %q", strings.Count(l, "discrete"), l)
		}
		if strings.Contains(l, "--fit string") && !strings.Contains(l, "least BIC") {
			t.Errorf("--fit help does not say BIC: %q", l)
		}
	}
	if seen != 2 {
		t.Errorf("--help should list --dist and --fit, found %d of them:\n%s", seen, out)
	}
	if strings.Contains(out, "AIC") || !strings.Contains(out, "least BIC") {
		t.Errorf("help should name BIC (and not AIC) as --fit auto's criterion:\n%s", out)
	}
}
