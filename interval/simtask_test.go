package interval

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
	"github.com/ckpt-hpc/ckpt/runner"
)

// TestSimulateTaskByHand: te = 10 s, a checkpoint every 5 s (C = 1 s),
// R = 2 s. Failures at exposed times 3 and 20: lose 3 s, restart 3→5, then
// 5 + 1 + 5: Tw = 16 s, one failure. Failures at 3 and 4: the second
// strikes the restart, which begins again: Tw = 3 + 1 + 2 + 5 + 1 + 5 = 17 s.
func TestSimulateTaskByHand(t *testing.T) {
	for _, c := range []struct {
		times         string
		model         SimModel
		wall, restart float64
		failures      int
	}{
		{"3\n20\n", DefaultSimModel(), 16, 2, 1},
		{"# two failures\n3\n\n4\n", DefaultSimModel(), 17, 3, 2},
		// Restarts unexposed: the second failure comes 1 s of running after
		// the restart, in the first interval again: 3+2 + 1+2 + 5+1+5.
		{"3\n4\n", SimModel{CheckpointFailures: true, FirstRestart: true}, 19, 4, 2},
		// No restart before the first checkpoint: 3 + 5 + 1 + 5.
		{"3\n", SimModel{RestartFailures: true, CheckpointFailures: true}, 14, 0, 1},
		// A failure at 5.5 strikes the checkpoint (lost 5.5 s) unless
		// checkpoints are atomic (then the clock stops: it falls at work 5.5,
		// 0.5 s into the second interval).
		{"5.5\n", DefaultSimModel(), 5.5 + 2 + 11, 2, 1},
		{"5.5\n", SimModel{RestartFailures: true, FirstRestart: true}, 6.5 + 2 + 5, 2, 1},
	} {
		gaps, err := ReadFailureTimes(strings.NewReader(c.times))
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		run, err := SimulateTask(10, 5, 1, 2, c.model, func() (float64, bool) {
			if i == len(gaps) {
				return 0, false
			}
			i++
			return gaps[i-1], true
		})
		if err != nil || run.Wallclock != c.wall || run.Restart != c.restart || run.Failures != c.failures {
			t.Errorf("%q %+v: got %+v, %v; want Tw %v, restart %v, %d failures", c.times, c.model, run, err, c.wall, c.restart, c.failures)
		}
	}
	if _, err := ReadFailureTimes(strings.NewReader("5\n3\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("decreasing times: %v", err)
	}
	if _, err := ReadFailureTimes(strings.NewReader("5\nx\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad time: %v", err)
	}
}

// A line over 1 MiB is refused naming it, in trace's words (it was
// "bufio.Scanner: token too long"); a line under the limit is read.
func TestReadFailureTimesLongLine(t *testing.T) {
	_, err := ReadFailureTimes(strings.NewReader("1\n2\n" + strings.Repeat("3", 1<<20+1) + "\n"))
	if err == nil || err.Error() != "line 3: line longer than 1048576 bytes" {
		t.Errorf("got %v", err)
	}
	gaps, err := ReadFailureTimes(strings.NewReader("1\n" + strings.Repeat(" ", 100<<10) + "2\n"))
	if err != nil || len(gaps) != 2 {
		t.Errorf("a 100 KiB line: %v, %v", gaps, err)
	}
}

// TestSimulateRunsExactOracles: the mean of 100 000 runs with exponential
// failures lies within its 95% interval (widened to 4 standard errors) of
// the closed forms: ExactWallclockExp for the default model,
// ExactWallclockReplayExp without restart failures, and the closed forms
// derived like them for atomic checkpoints (the clock stops: a block costs
// (e^{λτ} − 1)(1/λ + E(R)) + C) and for a free first restart (the first
// block costs (e^{λW} − 1)/λ).
func TestSimulateRunsExactOracles(t *testing.T) {
	te, period, c, r, mtbf := 600.0, 100.0, 20.0, 50.0, 240.0
	l := 1 / mtbf
	er := math.Expm1(l*r) / l
	blockAll := math.Expm1(l*(period+c)) * (1/l + er)
	lastAll := math.Expm1(l*period) * (1/l + er)
	atomic := 5*(math.Expm1(l*period)*(1/l+er)+c) + lastAll
	freeFirst := math.Expm1(l*(period+c))/l + 4*blockAll + lastAll
	for _, k := range []struct {
		model SimModel
		want  float64
	}{
		{DefaultSimModel(), ExactWallclockExp(te, period, c, r, mtbf)},
		{SimModel{CheckpointFailures: true, FirstRestart: true}, ExactWallclockReplayExp(te, period, c, r, mtbf)},
		{SimModel{RestartFailures: true, FirstRestart: true}, atomic},
		{SimModel{RestartFailures: true, CheckpointFailures: true}, freeFirst},
	} {
		spec := SimSpec{Te: te, Period: period, C: c, R: r, Model: k.model, Law: distribution.Exponential{Rate: l}}
		sum, err := SimulateRuns(context.Background(), spec, 100_000, runner.Options{Seed: 3, Progress: runner.ProgressOff}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.HalfWidth > 0.004*sum.MeanWallclock || math.Abs(sum.MeanWallclock-k.want) > 4*sum.HalfWidth/1.96 {
			t.Errorf("%+v: simulated %v ± %v, closed form %v", k.model, sum.MeanWallclock, sum.HalfWidth, k.want)
		}
	}
}

// TestSimulateTaskIsReplay: without restart failures the simulator is the
// trace replay's model: on the same draws it gives Simulate's wall-clock
// time (to rounding: the sums are taken in another order), for a heavy-tailed law and a period that does not divide te.
func TestSimulateTaskIsReplay(t *testing.T) {
	law := distribution.Weibull{K: 0.6, Lambda: 300}
	m := SimModel{CheckpointFailures: true, FirstRestart: true}
	for i := range 200 {
		want, err := simulateOne(1000, 77, 5, 12, law, rng.Stream(9, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		g := rng.Stream(9, uint64(i))
		got, err := SimulateTask(1000, 77, 5, 12, m, func() (float64, bool) { return law.Rand(g), true })
		if err != nil || math.Abs(got.Wallclock-want.Wallclock) > 1e-12*want.Wallclock || got.Failures != want.Failures {
			t.Fatalf("run %d: %+v (%v), replay %+v", i, got, err, want)
		}
	}
}

// TestSimulateRunsDeterministic: the rows and the summary do not depend on
// the number of workers; a cancelled context stops the runs.
func TestSimulateRunsDeterministic(t *testing.T) {
	spec := SimSpec{Te: 3600, Period: 600, C: 10, R: 30, Model: DefaultSimModel(), Law: distribution.LogNormal{Mu: 7, Sigma: 1}}
	var got [][]runner.Result[TaskRun]
	var sums []SimSummary
	for _, w := range []int{1, 3} {
		var rows []runner.Result[TaskRun]
		sum, err := SimulateRuns(context.Background(), spec, 500, runner.Options{Seed: 11, Workers: w, Progress: runner.ProgressOff}, runner.Collect(&rows))
		if err != nil {
			t.Fatal(err)
		}
		got, sums = append(got, rows), append(sums, sum)
	}
	if !reflect.DeepEqual(got[0], got[1]) || sums[0] != sums[1] || sums[0].Runs != 500 {
		t.Errorf("workers change the result: %+v vs %+v", sums[0], sums[1])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SimulateRuns(ctx, spec, 1000, runner.Options{Progress: runner.ProgressOff}, nil); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestPolicyPeriod(t *testing.T) {
	task := Task{Te: 3600, C: 8, R: 0, MTBF: 1800}
	for spec, want := range map[string]float64{
		"young": math.Sqrt(2 * 8 * 1800), "count:4": 900, "period:10m": 600, "Period:2h": 3600,
		"mnof": 3600.0 / float64(Intervals(3600, 8, 2)), "daly": Daly(8, 1800),
	} {
		if got, err := PolicyPeriod(spec, task); err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: %v, %v; want %v", spec, got, err, want)
		}
	}
	for _, bad := range []string{"bogus", "count:0", "count:2.5", "period:-1", "young:3", "period:x"} {
		if _, err := PolicyPeriod(bad, task); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if got, _ := PolicyPeriod("young", Task{Te: 100, C: 1, MTBF: math.Inf(1)}); got != 100 {
		t.Errorf("no failure: period %v, want te", got)
	}
}

// DefaultSimModel is every phase exposed and every failure restarted.
func DefaultSimModel() SimModel {
	return SimModel{RestartFailures: true, CheckpointFailures: true, FirstRestart: true}
}
