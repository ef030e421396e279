package slurm

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/trace"
)

// loneSample is hand-written output of
//
//	sacct --parsable2 --format=JobID,JobName,State,Elapsed,ElapsedRaw
//
// for a job run ten times (no ckpt chain), with the steps Slurm prints for
// each job, an array task, a job that hit its limit, cancelled, failed,
// out-of-memory and still-running jobs, and a heterogeneous job.
const loneSample = `JobID|JobName|State|Elapsed|ElapsedRaw
4172901|slant|COMPLETED|02:05:13|7513
4172901.batch|batch|COMPLETED|02:05:13|7513
4172901.extern|extern|COMPLETED|02:05:13|7513
4172902|slant|TIMEOUT|02:30:02|9002
4172902.batch|batch|CANCELLED|02:30:04|9004
4172903|slant|CANCELLED by 51234|00:12:40|760
4172903.batch|batch|CANCELLED|00:12:41|761
4172904|slant|FAILED|00:00:03|3
4172905_7|slant|COMPLETED|1-01:02:03|90123
4172905_7.batch|batch|COMPLETED|1-01:02:03|90123
4172905_7.0|python|COMPLETED|1-01:01:58|90118
4172906|slant|OUT_OF_MEMORY|01:10:00|4200
4172907|slant|COMPLETED|01:58:20|7100
4172908+0|slant|COMPLETED|02:00:00|7200
4172908+1|slant|COMPLETED|02:00:00|7200
4172908+0.batch|batch|COMPLETED|02:00:00|7200
4172909|slant|RUNNING|00:40:00|2400
`

func readHist(t *testing.T, in string, opt HistoryOptions) History {
	t.Helper()
	h, err := ReadHistory(strings.NewReader(in), "h", opt)
	if err != nil {
		t.Fatalf("ReadHistory: %v", err)
	}
	return h
}

func walltimes(r Runs) (complete, censored []float64) {
	for _, run := range r.Runs {
		if run.Censored {
			censored = append(censored, run.Walltime)
		} else {
			complete = append(complete, run.Walltime)
		}
	}
	return complete, censored
}

// Lone sacct jobs: steps and heterogeneous components other than +0 are
// not jobs; COMPLETED jobs are complete runs, TIMEOUT ones censored, the
// other states skipped and counted; --states chooses.
func TestReadHistorySacct(t *testing.T) {
	h := readHist(t, loneSample, HistoryOptions{})
	complete, censored := walltimes(h.Runs)
	if h.Format != trace.HistorySacct || !reflect.DeepEqual(complete, []float64{7513, 90123, 7100, 7200}) || !reflect.DeepEqual(censored, []float64{9002}) {
		t.Errorf("format %s, complete %v, censored %v", h.Format, complete, censored)
	}
	want := map[string]int{"state CANCELLED": 1, "state FAILED": 1, "state OUT_OF_MEMORY": 1, "state RUNNING": 1}
	if !reflect.DeepEqual(h.Skipped, want) || h.SkippedSummary() != "1 state CANCELLED, 1 state FAILED, 1 state OUT_OF_MEMORY, 1 state RUNNING" {
		t.Errorf("skipped %v (%s)", h.Skipped, h.SkippedSummary())
	}
	h = readHist(t, loneSample, HistoryOptions{States: RunsOptions{Complete: []string{"completed", "failed"}}})
	if h.Complete != 5 || h.Censored != 0 {
		t.Errorf("--states completed,failed --censored '': %d complete, %d censored", h.Complete, h.Censored)
	}
	// Elapsed only (clock forms), --parsable's trailing "|", comments,
	// blank lines and a repeated header (outputs concatenated).
	clock := "# sacct\nJobID|State|Elapsed|\n1|COMPLETED|02:05:13|\n1.batch|COMPLETED|02:05:13|\n\nJobID|State|Elapsed|\n2|COMPLETED|1-01:02:03|\n3|COMPLETED|05:06|\n"
	h = readHist(t, clock, HistoryOptions{})
	if c, _ := walltimes(h.Runs); !reflect.DeepEqual(c, []float64{7513, 90123, 306}) {
		t.Errorf("clock: %v", c)
	}
}

// Plain and CSV histories go to trace.ReadHistory: every value a complete
// run, in file order.
func TestReadHistoryPlainAndCSV(t *testing.T) {
	h := readHist(t, "# runs\n50\n10\n2h\n", HistoryOptions{})
	if c, cs := walltimes(h.Runs); h.Format != trace.HistoryPlain || !reflect.DeepEqual(c, []float64{50, 10, 7200}) || cs != nil || h.Complete != 3 {
		t.Errorf("plain: %+v", h)
	}
	h = readHist(t, "run,makespan\n1,4041\n2,4338\n", HistoryOptions{})
	if c, _ := walltimes(h.Runs); h.Format != trace.HistoryCSV || h.Column != "makespan" || !reflect.DeepEqual(c, []float64{4041, 4338}) {
		t.Errorf("csv: %+v", h)
	}
}

// Errors are one line naming the file (and line): nothing usable, a column
// asked of sacct output, garbage, fixed-width sacct output.
func TestReadHistoryErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		opt  HistoryOptions
		want string
	}{
		{"JobID|State|ElapsedRaw\n1|CANCELLED|5\n2|COMPLETED|0\n", HistoryOptions{}, "h: no runs in 2 sacct jobs (skipped: 1 elapsed time 0, 1 state CANCELLED); lone jobs count when COMPLETED (complete) or TIMEOUT (censored)"},
		{loneSample, HistoryOptions{Column: "Elapsed"}, "column cannot be chosen"},
		{"\x00\x01garbage\xff", HistoryOptions{}, "h:1: not a text file"},
		{"\x00\x01garbage\xff", HistoryOptions{Format: trace.HistorySacct}, "h:1: not sacct --parsable2"},
		{"JobID      State      ElapsedRaw\n------------ ---------- ----------\n1 COMPLETED 100\n", HistoryOptions{}, "--parsable2"},
		{"JobID|State|ElapsedRaw\n|COMPLETED|5\n", HistoryOptions{}, "h:2: empty JobID"},
		{"JobID|State|ElapsedRaw\n1||5\n", HistoryOptions{}, "h:2: job 1: empty State"},
		{"JobID|State|Elapsed\n1|COMPLETED|xx\n", HistoryOptions{}, `h:2: job 1: elapsed time "xx"`},
		{"10\nabc\n", HistoryOptions{}, `h:2: invalid walltime "abc"`},
	} {
		_, err := ReadHistory(strings.NewReader(c.in), "h", c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.30q: %v, want %q", c.in, err, c.want)
		}
	}
}

// Any accepted history has runs, each finite and > 0, counted once.
func FuzzReadHistory(f *testing.F) {
	for _, s := range []string{loneSample, sacctSample, "10\n20\n", "run,t\n1,2\n", "JobID|State|Elapsed|\n1|TIMEOUT|05:06|\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ReadHistory(strings.NewReader(in), "f", HistoryOptions{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if len(h.Runs.Runs) == 0 || h.Complete+h.Censored != len(h.Runs.Runs) {
			t.Fatalf("%d runs, %d complete, %d censored", len(h.Runs.Runs), h.Complete, h.Censored)
		}
		for _, run := range h.Runs.Runs {
			if !(run.Walltime > 0) || math.IsInf(run.Walltime, 0) {
				t.Fatalf("walltime %v from %q", run.Walltime, in)
			}
		}
	})
}

// examples/censored-sacct.txt holds 300 synthetic chains of a known law
// (lognormal, mean 420 s; runs needing more than 585 s run out and are
// censored there). The censored fit recovers the law; the complete runs
// alone give a law far too short; Kaplan–Meier finds the true median.
func TestExampleCensoredHistory(t *testing.T) {
	f, err := os.Open("../examples/censored-sacct.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHistory(f, "example", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Regression pin of the file's counts.
	if h.Complete != 229 || h.Censored != 71 || h.Skipped["state CANCELLED"] != 3 {
		t.Errorf("%d complete, %d censored, skipped %v", h.Complete, h.Censored, h.Skipped)
	}
	complete, censored := walltimes(h.Runs)
	for _, c := range censored {
		if c != 585 {
			t.Fatalf("censored at %v, want 585 (280 saved + 325 elapsed - 20 restart)", c)
		}
	}
	truth := distribution.LogNormal{Mu: math.Log(420) - 0.18, Sigma: 0.6}
	fit, err := Learn(h.Runs, "lognormal")
	if err != nil {
		t.Fatal(err)
	}
	naive, err := distribution.Fit("lognormal", complete)
	if err != nil {
		t.Fatal(err)
	}
	km, _ := Learn(h.Runs, "empirical")
	t.Logf("truth mean %.0f s; censored fit %s mean %.0f s; complete runs only mean %.0f s; Kaplan-Meier F(true median) %.3f",
		truth.Mean(), fit.Spec, fit.Law.Mean(), naive.Mean(), km.Law.CDF(truth.Quantile(0.5)))
	if math.Abs(fit.Law.Mean()/truth.Mean()-1) > 0.08 || !(naive.Mean() < 0.8*truth.Mean()) {
		t.Errorf("censored fit mean %.0f, complete-only mean %.0f; truth %.0f", fit.Law.Mean(), naive.Mean(), truth.Mean())
	}
	if math.Abs(km.Law.CDF(truth.Quantile(0.5))-0.5) > 0.06 {
		t.Errorf("Kaplan-Meier at the true median: %v", km.Law.CDF(truth.Quantile(0.5)))
	}
}
