package slurm

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
	"github.com/ckpt-hpc/ckpt/usage"
)

const sacctSample = `JobID|JobName|State|ElapsedRaw|ExitCode|Comment
100|seg.r1|FAILED|600|1:0|ckpt:chain=a;r=1;outcome=checkpointed;progress=500;work=560
100.batch|batch|FAILED|600|1:0|
101|seg.r2|COMPLETED|300|0:0|ckpt:chain=a;r=2;outcome=done;progress=700;work=700
102|seg.r3|CANCELLED by 0|0|0:0|ckpt:chain=a
103|solo|COMPLETED|0|0:0|
104|solo|COMPLETED|420|0:0|
105|solo|TIMEOUT|900|0:15|
106|solo|FAILED|12|2:0|
107|old.r1|TIMEOUT|600|0:0|ckpt:chain=b;r=1;outcome=checkpointed;progress=500;work=590
108|old.r2|FAILED|70|1:0|ckpt:chain=b;r=2;outcome=out;progress=500;work=640
110|cut.r1|FAILED|60|1:0|ckpt:chain=d;r=1;outcome=checkpointed;progress=47;work=52
111|cut.r2|TIMEOUT|64|0:15|ckpt:chain=d;r=2;outcome=running;progress=47;work=47;restart=5
109|run.r1|RUNNING|10|0:0|ckpt:chain=c
`

// A chain is one run whose walltime is its final progress (not the sum of
// elapsed times); a chain that ran out is censored at the work it ran
// through; TIMEOUT lone jobs are censored; an ElapsedRaw of 0 and other
// states are skipped and counted, not fatal.
func TestGroupRuns(t *testing.T) {
	recs, err := ReadSacct(strings.NewReader(sacctSample), "s")
	if err != nil {
		t.Fatal(err)
	}
	r := GroupRuns(recs, DefaultRunsOptions)
	got := map[string]HistoryRun{}
	for _, run := range r.Runs {
		got[run.Chain+strings.Join(run.Jobs, ",")] = run
	}
	if a := got["a100,101,102"]; a.Walltime != 700 || a.Censored {
		t.Errorf("chain a: %+v", a)
	}
	if b := got["b107,108"]; b.Walltime != 640 || !b.Censored {
		t.Errorf("chain b: %+v", b)
	}
	if d := got["d110,111"]; d.Walltime != 47+64-5 || !d.Censored {
		t.Errorf("chain d, its last reservation ended by Slurm: %+v", d)
	}
	if s := got["104"]; s.Walltime != 420 || s.Censored {
		t.Errorf("lone 104: %+v", s)
	}
	if s := got["105"]; s.Walltime != 900 || !s.Censored {
		t.Errorf("lone 105: %+v", s)
	}
	if r.Complete != 2 || r.Censored != 3 || r.Skipped["elapsed time 0"] != 1 || r.Skipped["state FAILED"] != 1 || r.Skipped["chain still running"] != 1 {
		t.Errorf("counts %+v", r)
	}
	// --states: FAILED accepted as complete.
	r = GroupRuns(recs, RunsOptions{Complete: []string{"completed", "failed"}, Censored: []string{"TIMEOUT"}})
	if r.Complete != 3 || r.Skipped["state FAILED"] != 0 {
		t.Errorf("with FAILED accepted: %+v", r)
	}
}

// Without the chain id in the comment, reservations are grouped by their
// names NAME.rK, a new chain starting at r1.
func TestGroupRunsByName(t *testing.T) {
	in := "JobID|JobName|State|ElapsedRaw|Comment\n" +
		"1|x.r1|FAILED|60|ckpt:r=1;outcome=checkpointed;progress=50;work=55\n" +
		"2|x.r2|COMPLETED|30|ckpt:r=2;outcome=done;progress=80;work=80\n" +
		"3|x.r1|COMPLETED|20|ckpt:r=1;outcome=done;progress=20;work=20\n"
	recs, err := ReadSacct(strings.NewReader(in), "s")
	if err != nil {
		t.Fatal(err)
	}
	r := GroupRuns(recs, DefaultRunsOptions)
	if len(r.Runs) != 2 || r.Runs[0].Walltime != 80 || r.Runs[1].Walltime != 20 {
		t.Fatalf("%+v", r)
	}
}

// Garbage, non-parsable output and broken lines get one clear error naming
// the line; --parsable2 is asked for.
func TestReadSacctBadInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"       JobID    JobName      State ElapsedRaw\n------------ ---------- ---------- ----------\n", "--parsable2"},
		{"\x00\x01\x02garbage\xff", "not sacct --parsable2"},
		{"JobID|State|ElapsedRaw\n1|COMPLETED\n", "s:2: 2 fields"},
		{"JobID|State|ElapsedRaw\n1|COMPLETED|x\n", "s:2: job 1"},
		{"JobID|State|ElapsedRaw\n1|COMPLETED|-5\n", "s:2"},
	} {
		_, err := ReadSacct(strings.NewReader(c.in), "s")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 300 {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzReadSacct(f *testing.F) {
	f.Add(sacctSample)
	f.Add("JobID|State|Elapsed\n1|TIMEOUT|1-00:00:00\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadSacct(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		r := GroupRuns(recs, DefaultRunsOptions)
		for _, run := range r.Runs {
			if !(run.Walltime > 0) || math.IsInf(run.Walltime, 0) {
				t.Fatalf("walltime %v from %q", run.Walltime, in)
			}
		}
		if r.Complete+r.Censored != len(r.Runs) {
			t.Fatal("counts")
		}
	})
}

// The learning loop on simulated chains of a known law: 7-minute mean
// lognormal walltimes, chains of reservations covering 10 minutes of
// work. The censored fit recovers the mean; dropping the censored runs
// learns a law about 30% too short.
func TestLearnRecoversTheLaw(t *testing.T) {
	truth := distribution.LogNormal{Mu: math.Log(420) - 0.18, Sigma: 0.6}
	r := rng.New(7)
	var runs Runs
	for i := range 2000 {
		w := truth.Rand(r)
		runs.Runs = append(runs.Runs, HistoryRun{Chain: string(rune('a' + i%26)), Walltime: math.Min(w, 600), Censored: w > 600})
	}
	got, err := Learn(runs, "auto")
	if err != nil {
		t.Fatal(err)
	}
	var complete Runs
	for _, run := range runs.Runs {
		if !run.Censored {
			complete.Runs = append(complete.Runs, run)
		}
	}
	naive, _ := Learn(complete, "lognormal")
	t.Logf("truth mean %.0f s; learnt %s (mean %.0f s); complete runs only mean %.0f s", truth.Mean(), got.Spec, got.Law.Mean(), naive.Law.Mean())
	if got.Fits[0].Family != "lognormal" || math.Abs(got.Law.Mean()/truth.Mean()-1) > 0.05 {
		t.Errorf("learnt %+v", got)
	}
	if !(naive.Law.Mean() < 0.85*truth.Mean()) {
		t.Errorf("dropping censored runs: mean %.0f, want biased low", naive.Law.Mean())
	}
	km, err := Learn(runs, "empirical")
	if err != nil || math.Abs(km.Law.CDF(truth.Quantile(0.5))-0.5) > 0.04 {
		t.Errorf("Kaplan-Meier median: %v %v", km.Law.CDF(truth.Quantile(0.5)), err)
	}
}

// Start and End are read when sacct gives them (local time), zero for
// Unknown and None.
func TestReadSacctStartEnd(t *testing.T) {
	in := "JobID|State|ElapsedRaw|Start|End\n1|COMPLETED|60|2026-01-02T03:04:05|2026-01-02T03:05:05\n2|PENDING|0|Unknown|None\n"
	recs, err := ReadSacct(strings.NewReader(in), "s")
	if err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	if recs[0].Start.Hour() != 3 || recs[0].End.Sub(recs[0].Start).Seconds() != 60 || recs[0].Start.Location() != time.Local {
		t.Errorf("%+v", recs[0])
	}
	if !recs[1].Start.IsZero() || !recs[1].End.IsZero() {
		t.Errorf("%+v", recs[1])
	}
}

// A state that is not Slurm's is refused before anything is read (issue
// 22: --states BOGUS dropped every COMPLETED run without a word); case
// does not matter.
func TestRunsOptionsValidate(t *testing.T) {
	if err := (RunsOptions{Complete: []string{"completed", "TIMEOUT"}, Censored: []string{"Failed"}}).Validate(); err != nil {
		t.Error(err)
	}
	for _, o := range []RunsOptions{{Complete: []string{"BOGUS"}}, {Censored: []string{"TIMEOUT", "TIMEDOUT"}}} {
		err := o.Validate()
		if !usage.Is(err) || !strings.Contains(err.Error(), "is not a Slurm job state") {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := ReadHistory(strings.NewReader(sacctSample), "s", HistoryOptions{States: RunsOptions{Complete: []string{"BOGUS"}}}); err == nil {
		t.Error("ReadHistory took a bogus state")
	}
}

// A line over 1 MiB is refused naming the file and the line, in trace's
// words (it was "bufio.Scanner: token too long"), in the header or after.
func TestReadSacctLongLine(t *testing.T) {
	long := strings.Repeat("a", 1<<20+1)
	for in, want := range map[string]string{
		"JobID|JobName|State|ElapsedRaw\n1|a|COMPLETED|100\n2|" + long + "|COMPLETED|100\n": "s:3: line longer than 1048576 bytes",
		"# " + long + "\n": "s:1: line longer than 1048576 bytes",
	} {
		if _, err := ReadSacct(strings.NewReader(in), "s"); err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	}
}

// A state both complete and censored is refused naming it: its runs were
// all counted complete ("5 runs complete, 0 censored"); case does not
// matter.
func TestRunsOptionsStateBothWays(t *testing.T) {
	for _, o := range []RunsOptions{{Complete: []string{"COMPLETED", "TIMEOUT"}, Censored: []string{"TIMEOUT"}},
		{Complete: []string{"completed", "timeout"}, Censored: []string{"Failed", "TimeOut"}}} {
		err := o.Validate()
		if !usage.Is(err) || !strings.HasPrefix(err.Error(), "Censored: TIMEOUT is also a complete state (states ") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// A chain whose app failed on its own (outcome failed: it crashed, the
// runner had not signalled it) is a failure, skipped, not a run censored
// at the work it had done; one that ran out of time is censored.
func TestFailedAppIsNotCensored(t *testing.T) {
	recs := []Record{
		{JobID: "1", State: "FAILED", Comment: "ckpt:chain=a;r=1;outcome=checkpointed;progress=50;work=55"},
		{JobID: "2", State: "FAILED", Comment: "ckpt:chain=a;r=2;outcome=failed;progress=50;work=60;stopped=stalled"},
		{JobID: "3", State: "TIMEOUT", Comment: "ckpt:chain=b;r=1;outcome=killed;progress=0;work=70;ended=timeout"},
	}
	r := GroupRuns(recs, DefaultRunsOptions)
	if r.Complete != 0 || r.Censored != 1 || r.Runs[0].Chain != "b" || r.Skipped["chain whose app failed (not a censored walltime)"] != 1 {
		t.Errorf("%+v", r)
	}
}

// sacct --duplicates of a preempted, requeued reservation (the real
// output of TestPreemptionOnSlurm): the preempted run (REQUEUED, its
// comment outcome=preempted) is the work it had done, the requeued run
// completes the chain: one complete run of 40 s; a requeued run that
// checkpointed and ended (FAILED) leaves it censored at 27 s; while the
// job is requeued or pending again, the chain still runs.
func TestPreemptedRunsInHistory(t *testing.T) {
	const head = "JobID|JobName|State|ElapsedRaw|ExitCode|Comment\n"
	const preempted = "3390|p.r1|REQUEUED|11|0:0|ckpt:chain=p;r=1;outcome=preempted;progress=9;work=11;ended=preempted\n3391|p.r2|CANCELLED by 0|0|0:0|ckpt:chain=p\n"
	for _, tc := range []struct {
		tail, skip string
		walltime   float64
		censored   bool
	}{
		{"3390|p.r1|COMPLETED|32|0:0|ckpt:chain=p;r=1;outcome=done;progress=40;work=40\n", "", 40, false},
		{"3390|p.r1|FAILED|20|1:0|ckpt:chain=p;r=1;outcome=checkpointed;progress=25;work=27\n", "", 27, true},
		{"", "chain still running", 0, false}, // requeued, not yet pending again
		{"3390|p.r1|PENDING|0|0:0|ckpt:chain=p;r=1;outcome=preempted;progress=9;work=11;ended=preempted\n", "chain still running", 0, false},
	} {
		recs, err := ReadSacct(strings.NewReader(head+preempted+tc.tail), "s")
		if err != nil {
			t.Fatal(err)
		}
		r := GroupRuns(recs, DefaultRunsOptions)
		switch {
		case tc.skip != "" && r.Skipped[tc.skip] != 1:
			t.Errorf("%q: %+v, want skipped %q", tc.tail, r, tc.skip)
		case tc.skip == "" && (len(r.Runs) != 1 || r.Runs[0].Walltime != tc.walltime || r.Runs[0].Censored != tc.censored || len(r.Runs[0].Jobs) != 2):
			t.Errorf("%q: %+v, want %v s, censored %v, jobs 3390 and 3391 once", tc.tail, r, tc.walltime, tc.censored)
		}
	}
}
