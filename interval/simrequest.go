package interval

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SimRequest is the question `ckpt interval simulate` answers: the mean
// wall-clock time of one task under a checkpoint policy, over many runs
// with random or replayed failures. Durations are in seconds.
type SimRequest struct {
	// Te is the task's work, in (0, MaxDuration].
	Te float64 `json:"te_s"`
	// C is the checkpoint cost, in (0, MaxDuration].
	C float64 `json:"c_s"`
	// R is the restart cost, in [0, MaxDuration].
	R float64 `json:"r_s"`
	// Strategy is the checkpoint policy: young, daly, mnof, period:D or
	// count:N (PolicyPeriod); "" is mnof.
	Strategy string `json:"strategy"`
	// Failures gives the law the failures are drawn from (an MTBF, E(Y),
	// a law spec, LANL's best fit) or the failure times to replay.
	Failures FailureSource `json:"failures"`
	// Model is where failures strike (SimModel).
	Model SimModel `json:"model"`
	// Runs is the number of runs, >= 1.
	Runs int `json:"runs"`
	// Seed is the base seed of the runs' streams; Workers the number of
	// goroutines (0: one per CPU), which does not change the result.
	Seed    uint64 `json:"seed"`
	Workers int    `json:"workers,omitempty"`
}

// Validate checks the request without reading any file; the error names
// the field by its JSON name.
func (r SimRequest) Validate() error {
	if err := checkDuration("te_s", r.Te, false); err != nil {
		return err
	}
	if err := checkDuration("c_s", r.C, false); err != nil {
		return err
	}
	if err := checkDuration("r_s", r.R, true); err != nil {
		return err
	}
	switch {
	case r.Runs < 1 || r.Runs > MaxSimRuns:
		return usage.Fieldf("runs", "must be >= 1 and at most %d, got %d", MaxSimRuns, r.Runs)
	case r.Workers < 0:
		return usage.Fieldf("workers", "must be >= 0 (0: one per CPU), got %d", r.Workers)
	case r.Failures.GloudSim != "" || r.Failures.FTA != "" || r.Failures.Google != "":
		return usage.Fieldf("failures", "simulation draws from a law: give an MTBF, E(Y), a law spec, a LANL system or failure times")
	}
	if err := r.Failures.Validate(); err != nil {
		return err
	}
	if err := r.checkOneMean(); err != nil {
		return err
	}
	return r.checkRuns()
}

// checkRuns refuses up front a request whose runs could not finish: a
// policy of more than maxSimFailures intervals, or exponential failures
// (given as an MTBF or E(Y)) expecting more than maxSimFailures failures
// in a run, counted as a lower bound (the work and, when failures strike
// them, the checkpoints are exposed; restarts only add failures). The
// period of young, daly and mnof depends on the law: with failures read
// from a file, it is known only once loaded, and only period:D and count:N
// are checked.
func (r SimRequest) checkRuns() error {
	s := r.Failures
	mtbf, field := math.NaN(), ""
	switch {
	case len(s.files()) > 0:
	case s.MTBF != 0:
		mtbf, field = s.MTBF, "failures.mtbf_s"
	case *s.ExpectedFailures == 0:
		return usage.Fieldf("failures.expected_failures", "0 failures: nothing to simulate (give E(Y) > 0)")
	default:
		mtbf, field = r.Te / *s.ExpectedFailures, "failures.expected_failures"
	}
	strategy, intervalsField := r.strategy(), field
	if name, _, _ := strings.Cut(strategy, ":"); name == "period" || name == "count" {
		intervalsField = "strategy"
	} else if math.IsNaN(mtbf) {
		return nil
	}
	period, err := PolicyPeriod(strategy, Task{Te: r.Te, C: r.C, R: r.R, MTBF: mtbf})
	if err != nil {
		return usage.Fieldf("strategy", "%v", err)
	}
	n := IntervalsForPeriod(r.Te, period)
	if n > maxSimFailures {
		return usage.Fieldf(intervalsField, "the %s policy gives %d intervals of %.4g s: more than %d in one run cannot be simulated; check the units",
			strategy, n, period, maxSimFailures)
	}
	exposed := period
	if r.Model.CheckpointFailures {
		exposed += r.C
	}
	last := r.Te - float64(n-1)*period
	if f := float64(n-1)*math.Expm1(exposed/mtbf) + math.Expm1(last/mtbf); f > maxSimFailures {
		return usage.Fieldf(field, "the %s policy (%d intervals of %.4g s) expects at least %.4g failures per run at an MTBF of %.4g s: more than %d in one run cannot be simulated; check the units",
			strategy, n, period, f, mtbf, maxSimFailures)
	}
	return nil
}

// strategy is the request's policy ("" is mnof).
func (r SimRequest) strategy() string {
	if r.Strategy == "" {
		return MethodMNOF
	}
	return r.Strategy
}

// SimReport is the answer to a SimRequest and the JSON of `ckpt interval
// simulate --json`.
type SimReport struct {
	Te        output.Number `json:"te_s"`
	C         output.Number `json:"c_s"`
	R         output.Number `json:"r_s"`
	Strategy  string        `json:"strategy"`
	Period    output.Number `json:"period_s"`
	Intervals int           `json:"intervals"`
	// Failures describes the law or the replayed list.
	Failures      string        `json:"failures"`
	Model         SimModel      `json:"model"`
	Runs          int           `json:"runs"`
	MeanWallclock output.Number `json:"mean_wallclock_s"`
	HalfWidth     output.Number `json:"ci95_half_width_s"`
	MeanWPR       output.Number `json:"mean_wpr"`
	MeanFailures  output.Number `json:"mean_failures"`
}

// Simulate answers the request: it loads the failures, chooses the
// policy's period (with the law's mean, or the replayed list's mean gap,
// as the MTBF) and runs SimulateRuns, passing every run to sink (nil: none)
// and progress to progress (nil: none). Run k draws from runner.Seed(Seed,
// 0, k): the same request gives the same report whatever Workers.
func Simulate(ctx context.Context, r SimRequest, sink runner.Sink[TaskRun], progress io.Writer) (*SimReport, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	fs, err := r.Failures.Load(r.Te, false)
	if err != nil {
		return nil, err
	}
	if fs.Law == nil && fs.Replay == nil {
		return nil, usage.Fieldf("failures.lanl", "%s: no law fits the system's inter-event times", r.Failures.LANL)
	}
	spec := SimSpec{Te: r.Te, C: r.C, R: r.R, Model: r.Model, Law: fs.Law, Replay: fs.Replay}
	mtbf := fs.MTBF
	if fs.Law != nil {
		mtbf = fs.Law.Mean()
	}
	strategy := r.strategy()
	if spec.Period, err = PolicyPeriod(strategy, Task{Te: r.Te, C: r.C, R: r.R, MTBF: mtbf}); err != nil {
		return nil, usage.Fieldf("strategy", "%v", err)
	}
	opts := runner.Options{Seed: r.Seed, Workers: r.Workers, Label: "interval simulate", ProgressTo: progress}
	sum, err := SimulateRuns(ctx, spec, r.Runs, opts, sink)
	if err != nil {
		return nil, err
	}
	source := fs.Source
	if fs.Law != nil && fs.Replay == nil {
		source = fs.Law.String()
	}
	rep := &SimReport{Te: output.Number(r.Te), C: output.Number(r.C), R: output.Number(r.R), Strategy: strategy,
		Period: output.Number(spec.Period), Intervals: IntervalsForPeriod(r.Te, spec.Period), Failures: source, Runs: sum.Runs,
		MeanWallclock: output.Number(sum.MeanWallclock), HalfWidth: output.Number(sum.HalfWidth),
		MeanWPR: output.Number(sum.MeanWPR), MeanFailures: output.Number(sum.MeanFailures), Model: r.Model}
	return rep, nil
}

// SimulateToFiles is Simulate writing every run to the CSV file csvPath
// and the JSON-lines file jsonlPath ("": none; "-": stdout), created only
// once the request is valid and replacing them only when every run
// succeeded (runner.WithOutputs).
func SimulateToFiles(ctx context.Context, r SimRequest, stdout io.Writer, csvPath, jsonlPath string, progress io.Writer) (*SimReport, error) {
	if csvPath == "" && jsonlPath == "" {
		return Simulate(ctx, r, nil, progress)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	var sink runner.Sink[TaskRun]
	return runner.WithOutputs(stdout, csvPath, jsonlPath, &sink, func() (*SimReport, error) { return Simulate(ctx, r, sink, progress) })
}

// WriteText writes the report as `ckpt interval simulate` prints it.
func (r *SimReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	fmt.Fprintf(w, "task: Te = %g s, C = %g s, R = %g s; failures: %s\n", float64(r.Te), float64(r.C), float64(r.R), r.Failures)
	fmt.Fprintf(w, "policy: %s, period %.6g s (%d intervals, %d checkpoints)\n", r.Strategy, float64(r.Period), r.Intervals, r.Intervals-1)
	fmt.Fprintf(w, "model: failures during restarts %v, during checkpoints %v; restart before the first checkpoint %v\n",
		r.Model.RestartFailures, r.Model.CheckpointFailures, r.Model.FirstRestart)
	fmt.Fprintf(w, "runs: %d\nmean wall-clock: %.6g s ± %.3g s (95%% confidence interval)\nmean WPR: %.6g; mean failures: %.6g\n",
		r.Runs, float64(r.MeanWallclock), float64(r.HalfWidth), float64(r.MeanWPR), float64(r.MeanFailures))
	return w.Err()
}
