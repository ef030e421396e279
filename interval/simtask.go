package interval

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

// SimModel holds the model choices of SimulateTask, where simulators
// differ. With every field true (the CLI's default), it exposes every phase to failures and
// charges a restart after every failure, the model of ExactWallclockExp.
type SimModel struct {
	// RestartFailures: failures strike during a restart, which then begins
	// again. Off: restarts are failure-free and the failure clock stops
	// during them (Replay's model, GloudSim's trace clocks, Eq. (4)).
	RestartFailures bool `json:"restart_failures"`
	// CheckpointFailures: failures strike during a checkpoint, which is then
	// lost with the work since the previous one. Off: checkpoints are atomic
	// and the failure clock stops during them (Eq. (4)'s model, where
	// failures fall on the work only).
	CheckpointFailures bool `json:"checkpoint_failures"`
	// FirstRestart: a failure before the first checkpoint costs a restart
	// R like any other. Off: the task is relaunched from scratch at no cost.
	FirstRestart bool `json:"first_restart"`
}

// TaskRun is the outcome of one simulated run of a task.
type TaskRun struct {
	// Wallclock is Tw: work, checkpoints, lost time and restarts.
	Wallclock float64 `row:"wallclock_s"`
	// WPR is Te/Tw (Eq. 9).
	WPR float64 `row:"wpr"`
	// Failures is the number of failures that struck, in restarts too.
	Failures int `row:"failures"`
	// Lost is the time lost to failures in work and checkpoints.
	Lost float64 `row:"lost_s"`
	// Restart is the time spent restarting, interrupted restarts included.
	Restart float64 `row:"restart_s"`
}

// failureClock hands out failures on the exposed time: the time during
// which failures can strike (the wall clock when every phase is exposed).
type failureClock struct {
	next     func() (float64, bool) // the next gap on the exposed time
	exposed  float64                // exposed time elapsed
	at       float64                // exposed time of the next failure (+Inf: none)
	failures int
}

func (f *failureClock) advance() error {
	if f.failures >= maxSimFailures {
		return fmt.Errorf("more than %d failures in one run: the period is hopeless for this failure law", maxSimFailures)
	}
	g, ok := f.next()
	switch {
	case !ok:
		f.at = math.Inf(1)
	case !(g >= 0) || math.IsInf(g, 0):
		return fmt.Errorf("failure %d: time between failures must be finite and >= 0, got %v", f.failures+1, g)
	default:
		f.at = f.exposed + g
	}
	return nil
}

// phase runs d seconds, exposed or not; it returns the time used and
// whether the phase completed (false: a failure struck after `used`).
func (f *failureClock) phase(d float64, exposed bool) (used float64, done bool, err error) {
	if !exposed || f.at-f.exposed >= d {
		if exposed {
			f.exposed += d
		}
		return d, true, nil
	}
	used = f.at - f.exposed
	f.exposed = f.at
	f.failures++
	return used, false, f.advance()
}

// SimulateTask runs one task of work te checkpointed every `period` of work
// (IntervalsForPeriod(te, period) − 1 checkpoints of cost c, none at the
// end; a period ≥ te or +Inf: none) and restarted at cost r after a
// failure, under the model m. next returns the successive times between
// failures measured on the exposed time (the time of the phases m exposes
// to failures; the wall clock with every SimModel field true), and false when no
// failure is left. A failure loses the work and the checkpoint in progress
// since the last completed checkpoint. O(failures + checkpoints).
func SimulateTask(te, period, c, r float64, m SimModel, next func() (float64, bool)) (TaskRun, error) {
	if !(te > 0) || math.IsInf(te, 0) || !(period > 0) || !(c > 0) || math.IsInf(c, 0) || !(r >= 0) || math.IsInf(r, 0) {
		return TaskRun{}, fmt.Errorf("need work > 0, period > 0, C > 0 and R >= 0, all finite; got %v, %v, %v, %v", te, period, c, r)
	}
	n := IntervalsForPeriod(te, math.Min(period, te)) - 1
	if n == 0 {
		period = te
	}
	clk := &failureClock{next: next}
	if err := clk.advance(); err != nil {
		return TaskRun{}, err
	}
	var run TaskRun
	for i := 0; i <= n; i++ {
		work := period
		if i == n {
			work = te - float64(n)*period
		}
		for {
			used, done, err := clk.phase(work, true)
			if err != nil {
				return TaskRun{}, err
			}
			run.Wallclock += used
			if done && i < n {
				var u float64
				u, done, err = clk.phase(c, m.CheckpointFailures)
				if err != nil {
					return TaskRun{}, err
				}
				run.Wallclock += u
				used += u
			}
			if done {
				break
			}
			run.Lost += used
			if err := restart(clk, &run, r, m, i == 0); err != nil {
				return TaskRun{}, err
			}
		}
	}
	run.WPR = te / run.Wallclock
	run.Failures = clk.failures
	return run, nil
}

// restart runs the restart after a failure, again after each failure that
// strikes it.
func restart(clk *failureClock, run *TaskRun, r float64, m SimModel, first bool) error {
	if first && !m.FirstRestart {
		return nil
	}
	for {
		used, done, err := clk.phase(r, m.RestartFailures)
		if err != nil {
			return err
		}
		run.Wallclock += used
		run.Restart += used
		if done {
			return nil
		}
	}
}

// SimPolicy chooses the period of a simulated task from its work Te, its
// costs and the MTBF of its failures (E(Y) = Te/MTBF, Corollary 1); arg is
// the policy's parameter (a period, a count), NaN when it takes none.
type SimPolicy func(t Task, arg float64) (float64, error)

// SimPolicies are the policies of `ckpt interval simulate`.
var SimPolicies = registry.New("policy",
	registry.Entry[SimPolicy]{Name: MethodYoung, Help: "Young's period √(2·C·MTBF)", Value: methodPolicy(MethodYoung)},
	registry.Entry[SimPolicy]{Name: MethodDaly, Help: "Daly's higher-order period", Value: methodPolicy(MethodDaly)},
	registry.Entry[SimPolicy]{Name: MethodMNOF, Help: "Theorem 1: Te/x, x minimising Eq. (4) with E(Y) = Te/MTBF", Value: methodPolicy(MethodMNOF)},
	registry.Entry[SimPolicy]{Name: "period", Help: "period:D, a checkpoint every D of work", Value: func(_ Task, d float64) (float64, error) {
		if !(d > 0) {
			return 0, fmt.Errorf("period:D needs a duration > 0, got %v", d)
		}
		return d, nil
	}},
	registry.Entry[SimPolicy]{Name: "count", Help: "count:N, N equal intervals (N−1 checkpoints)", Value: func(t Task, n float64) (float64, error) {
		if !(n >= 1) || n != math.Trunc(n) || n > 1<<40 {
			return 0, fmt.Errorf("count:N needs an integer N >= 1, got %v", n)
		}
		return t.Te / n, nil
	}},
)

// methodPolicy is Period's choice for the method, with E(Y) = Te/MTBF.
func methodPolicy(method string) SimPolicy {
	return func(t Task, _ float64) (float64, error) { return Period(method, t.Te, t.C, t.MTBF, math.NaN()) }
}

// PolicyPeriod reads a policy spec — young, daly, mnof, period:D or
// count:N — and returns its period for the task (whose MTBF must be set:
// +Inf means no checkpoint for Young, Daly and MNOF).
func PolicyPeriod(spec string, t Task) (float64, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.ToLower(name)
	p, err := SimPolicies.Lookup(name)
	if err != nil {
		return 0, err
	}
	v := math.NaN()
	switch name {
	case "period":
		if v, err = units.ParseSeconds(arg); err != nil {
			return 0, fmt.Errorf("policy %q: %v", spec, err)
		}
	case "count":
		if v, err = strconv.ParseFloat(arg, 64); err != nil {
			return 0, fmt.Errorf("policy %q: bad count %q", spec, arg)
		}
	default:
		if hasArg {
			return 0, fmt.Errorf("policy %q takes no argument", name)
		}
	}
	period, err := p(t, v)
	if err != nil {
		return 0, fmt.Errorf("policy %q: %v", spec, err)
	}
	if math.IsNaN(period) || math.IsInf(period, 1) || period > t.Te {
		period = t.Te // no checkpoint
	}
	return period, nil
}

// SimSpec is one task to simulate many times.
type SimSpec struct {
	Te, Period, C, R float64
	Model            SimModel
	// Law draws the times between failures, independently (a renewal
	// process on the exposed time); nil when Replay is given.
	Law distribution.Distribution
	// Replay is a fixed list of times between failures replayed by every
	// run (then every run is the same and one is enough).
	Replay []float64
}

// SimSummary is the mean over the runs with its 95% confidence interval.
type SimSummary struct {
	Runs int
	// MeanWallclock ± HalfWidth is the 95% interval (1.96 standard errors,
	// normal approximation; 0 for one run).
	MeanWallclock, HalfWidth float64
	MeanWPR, MeanFailures    float64
}

// SimulateRuns runs spec `runs` times through runner.Run (run k draws from
// the generator of runner.Seed(opts.Seed, 0, k), so the rows and the
// summary are the same whatever opts.Workers), passes every run to sink in
// run order and returns the summary of the runs done. A cancelled ctx stops
// it between runs with ctx.Err(). O(runs·failures).
func SimulateRuns(ctx context.Context, spec SimSpec, runs int, opts runner.Options, sink runner.Sink[TaskRun]) (SimSummary, error) {
	if (spec.Law == nil) == (spec.Replay == nil) {
		return SimSummary{}, fmt.Errorf("give a failure law or a replay list, not both nor neither")
	}
	var n int
	var s, s2, wpr, fails float64
	acc := runner.SinkFunc[TaskRun](func(r runner.Result[TaskRun]) error {
		n++
		s += r.Value.Wallclock
		s2 += r.Value.Wallclock * r.Value.Wallclock
		wpr += r.Value.WPR
		fails += float64(r.Value.Failures)
		if sink != nil {
			return sink.Put(r)
		}
		return nil
	})
	err := runner.Run(ctx, opts, []SimSpec{spec}, runs, func(_ context.Context, it runner.Item[SimSpec]) (TaskRun, error) {
		return SimulateTask(spec.Te, spec.Period, spec.C, spec.R, spec.Model, spec.source(it))
	}, acc)
	if sink != nil {
		if ferr := sink.Flush(); err == nil {
			err = ferr
		}
	}
	sum := SimSummary{Runs: n}
	if n > 0 {
		fn := float64(n)
		sum.MeanWallclock, sum.MeanWPR, sum.MeanFailures = s/fn, wpr/fn, fails/fn
		if n > 1 {
			v := math.Max(s2/fn-sum.MeanWallclock*sum.MeanWallclock, 0) * fn / (fn - 1)
			sum.HalfWidth = 1.96 * math.Sqrt(v/fn)
		}
	}
	return sum, err
}

// source is the failure gaps of one run.
func (spec SimSpec) source(it runner.Item[SimSpec]) func() (float64, bool) {
	if spec.Law != nil {
		return func() (float64, bool) { return spec.Law.Rand(it.Rand), true }
	}
	i := 0
	return func() (float64, bool) {
		if i == len(spec.Replay) {
			return 0, false
		}
		i++
		return spec.Replay[i-1], true
	}
}

// ReadFailureTimes reads failure times, one per line in units.ParseSeconds'
// grammar (blank lines and lines starting with # skipped), measured from
// the task's start on the exposed time and non-decreasing, and returns the
// times between them. Errors name the line.
func ReadFailureTimes(r io.Reader) ([]float64, error) {
	sc := trace.NewScanner(r)
	var gaps []float64
	prev := 0.0
	line := 1
	for ; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		v, err := units.ParseSeconds(t)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if v < prev {
			return nil, fmt.Errorf("line %d: failure time %v before the previous one (%v): times must be non-decreasing and >= 0", line, v, prev)
		}
		gaps = append(gaps, v-prev)
		prev = v
	}
	if err := trace.ScanError(sc, "", line-1); err != nil {
		return nil, err
	}
	return gaps, nil
}

// BestFit is the first successful fit of the system's inter-event times
// (Fits is ranked by AIC), the law `ckpt interval simulate --lanl` draws
// failures from.
func (s SystemFailures) BestFit() (distribution.Distribution, error) {
	for _, f := range s.Fits {
		if f.Dist != nil {
			return f.Dist, nil
		}
	}
	return nil, fmt.Errorf("system %d: no law fits its %d inter-event times", s.System, len(s.Intervals))
}

// MeanGap is the mean of the times between failures, the MTBF a replayed
// failure list gives the policies; +Inf for an empty list.
func MeanGap(gaps []float64) float64 {
	if len(gaps) == 0 {
		return math.Inf(1)
	}
	s := 0.0
	for _, g := range gaps {
		s += g
	}
	return s / float64(len(gaps))
}
