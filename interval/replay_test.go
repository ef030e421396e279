package interval

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// A two-failure task by hand: Te = 100, period 25 (checkpoints at 25, 50,
// 75), C = 2, R = 5. First run: 60 s, two blocks of 27 done (progress 50),
// 6 s lost. Second run: 10 s, nothing saved, 10 s lost. Then 27 + 25 = 52 s
// to finish. Tw = 60 + 5 + 10 + 5 + 52 = 132 = 100 + 3·2 + (6+5) + (10+5).
func TestReplayTwoFailuresByHand(t *testing.T) {
	res, err := Replay(100, 25, 2, 5, []float64{60, 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Wallclock != 132 || res.Failures != 2 || res.Checkpoints != 3 || res.Lost != 16 {
		t.Fatalf("got %+v, want Tw 132, 2 failures, 3 checkpoints, 16 lost", res)
	}
	if w := res.WPR(100); w != 100.0/132 {
		t.Errorf("WPR = %v", w)
	}
	// Without checkpoints both runs are lost entirely: 60+5+10+5+100.
	res, _ = Replay(100, math.Inf(1), 2, 5, []float64{60, 10})
	if res.Wallclock != 180 || res.Checkpoints != 0 {
		t.Errorf("no checkpoint: %+v", res)
	}
	// A third failure after 200 s of running never happens: the task,
	// restarted at progress 50, needs 52 s.
	res, _ = Replay(100, 25, 2, 5, []float64{60, 10, 200})
	if res.Wallclock != 132 || res.Failures != 2 {
		t.Errorf("late failure: %+v", res)
	}
	// A failure during a checkpoint (run of 26 s: 25 work + 1 of the
	// checkpoint) loses the whole 26 s.
	res, _ = Replay(100, 25, 2, 0, []float64{26})
	if res.Lost != 26 || res.Wallclock != 26+106 {
		t.Errorf("failure in checkpoint: %+v", res)
	}
	for _, bad := range []struct{ te, p, c, r float64 }{{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, -1}} {
		if _, err := Replay(bad.te, bad.p, bad.c, bad.r, nil); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if _, err := Replay(1, 1, 1, 1, []float64{-1}); err == nil {
		t.Error("negative running time accepted")
	}
}

// replayStep is an independent oracle: a discrete-event walk over every
// block of work and checkpoint.
func replayStep(te, period, c, r float64, failures []float64) float64 {
	n := IntervalsForPeriod(te, math.Min(period, te)) - 1
	if n == 0 {
		period = te
	}
	var pieces []float64 // durations of work-or-checkpoint pieces; save after each ckpt
	for i := 0; i < n; i++ {
		pieces = append(pieces, period+c)
	}
	pieces = append(pieces, te-float64(n)*period)
	tw, pos := 0.0, 0
	for _, d := range failures {
		run, k := 0.0, pos
		for k < len(pieces) && run+pieces[k] <= d {
			run += pieces[k]
			k++
		}
		if k == len(pieces) {
			break
		}
		pos = k // the k pieces completed all end in a checkpoint
		tw += d + r
	}
	for k := pos; k < len(pieces); k++ {
		tw += pieces[k]
	}
	return tw
}

// Conservation: Tw = Te + C·checkpoints + lost + R·failures, and agreement
// with the step-by-step oracle.
func TestReplayOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		te := rapid.Float64Range(1, 1000).Draw(t, "te")
		x := rapid.IntRange(1, 40).Draw(t, "x")
		period := te / float64(x) * rapid.Float64Range(0.5, 1.5).Draw(t, "stretch")
		c := rapid.Float64Range(0.01, 20).Draw(t, "c")
		r := rapid.Float64Range(0, 20).Draw(t, "r")
		fs := rapid.SliceOfN(rapid.Float64Range(0, 2000), 0, 6).Draw(t, "failures")
		res, err := Replay(te, period, c, r, fs)
		if err != nil {
			t.Fatal(err)
		}
		cons := te + c*float64(res.Checkpoints) + res.Lost + r*float64(res.Failures)
		if !near(res.Wallclock, cons, 1e-9) {
			t.Fatalf("Tw %v != Te + C·n + lost + R·k = %v", res.Wallclock, cons)
		}
		if o := replayStep(te, period, c, r, fs); !near(res.Wallclock, o, 1e-9) {
			t.Fatalf("Tw %v, step oracle %v", res.Wallclock, o)
		}
	})
}

// WPR is Eq. (9) for one task: Te/Tw.
func (r ReplayResult) WPR(te float64) float64 { return te / r.Wallclock }
