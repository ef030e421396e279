package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/trace"
)

type intervalSimFlags struct {
	te, ckpt, restart, mtbf   string
	strategy, dist, lanl      string
	times                     string
	system, runs, workers     int
	seed                      uint64
	csv, jsonl                string
	json                      bool
	restartFail, ckptFail, r0 bool
}

const intervalSimLong = `Simulate one task of work --te under a checkpoint policy (--strategy: young,
daly, mnof, period:D or count:N), many times, with failures drawn from a law
(--dist SPEC, any distribution spec such as weibull:k=0.7,lambda=6h; --mtbf D
for exponential failures; --lanl FILE --system N for the law fitted to a LANL
system, best by AIC), or replayed from a file of failure times (--failure-times
FILE, one time per line from the task's start). It prints the mean wall-clock
time with its 95% confidence interval; --csv/--jsonl FILE ("-": stdout) write
one row per run. Runs are seeded from --seed, the same whatever --workers.

The model, and the switches that match other simulators:
  failures form a renewal process on the exposed time: the times between
    them are independent draws of the law (the exponential gives a Poisson
    process); a failure loses the work and the checkpoint in progress since
    the last completed checkpoint, then the task restarts at cost R;
  --restart-failures (default true): failures strike restarts, which begin
    again; false: restarts are failure-free and the failure clock stops
    (the trace replay's model);
  --checkpoint-failures (default true): failures strike checkpoints; false:
    checkpoints are atomic and the clock stops (Eq. (4)'s model);
  --first-restart (default true): a failure before the first checkpoint
    costs R; false: the task is relaunched at no cost.
Young, Daly and mnof use the law's mean as the MTBF (E(Y) = Te/MTBF).`

func newIntervalSimulateCmd() *cobra.Command {
	var f intervalSimFlags
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a checkpointed task under random or replayed failures",
		Long:  intervalSimLong,
		Example: `  ckpt interval simulate --te 1d --ckpt 5m --restart 2m --mtbf 6h --strategy young --runs 10000
  ckpt interval simulate --te 1d --ckpt 5m --dist weibull:k=0.7,lambda=5h --strategy count:12 --csv runs.csv
  ckpt interval simulate --te 1d --ckpt 5m --lanl LA-UR-05-7318-failure-data-1996-2005.csv --system 20
  ckpt interval simulate --te 2h --ckpt 1m --failure-times failures.txt --strategy period:20m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runIntervalSimulate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.te, "te", "", "work of the task Te (required)")
	fl.StringVar(&f.ckpt, "ckpt", "", "checkpoint cost C (> 0, required)")
	fl.StringVar(&f.restart, "restart", "0", "restart cost R (>= 0)")
	fl.StringVar(&f.strategy, "strategy", interval.MethodMNOF, "checkpoint policy: young, daly, mnof, period:D or count:N")
	addIntervalSimSourceFlags(fl, &f)
	fl.IntVar(&f.runs, "runs", 1000, "number of runs (>= 1)")
	addSeedFlag(fl, &f.seed, 1)
	addWorkersFlag(fl, &f.workers)
	fl.StringVar(&f.csv, "csv", "", "write one row per run to this CSV file (- for stdout)")
	fl.StringVar(&f.jsonl, "jsonl", "", "write one row per run to this JSON-lines file (- for stdout)")
	addJSONFlag(fl, &f.json)
	return cmd
}

func addIntervalSimSourceFlags(fl *pflag.FlagSet, f *intervalSimFlags) {
	fl.StringVar(&f.dist, "dist", "", "law of the times between failures (a distribution spec)")
	fl.StringVar(&f.mtbf, "mtbf", "", "exponential failures of this mean")
	fl.StringVar(&f.lanl, "lanl", "", "LANL failure log: draw from the law fitted to --system")
	fl.IntVar(&f.system, "system", -1, "with --lanl: the system number")
	fl.StringVar(&f.times, "failure-times", "", "file of failure times to replay (one a line, from the task's start)")
	fl.BoolVar(&f.restartFail, "restart-failures", true, "failures strike restarts too")
	fl.BoolVar(&f.ckptFail, "checkpoint-failures", true, "failures strike checkpoints too")
	fl.BoolVar(&f.r0, "first-restart", true, "a failure before the first checkpoint costs a restart")
}

func runIntervalSimulate(cmd *cobra.Command, f intervalSimFlags) error {
	spec, law, err := intervalSimSpec(cmd.Flags().Changed, f)
	if err != nil {
		return err
	}
	if err := checkWorkers(f.workers); err != nil {
		return err
	}
	if f.runs < 1 {
		return usagef("--runs must be >= 1, got %d", f.runs)
	}
	var sink runner.Sink[interval.TaskRun]
	closeOut := func() error { return nil }
	if f.csv != "" || f.jsonl != "" {
		if sink, closeOut, err = runner.CreateOutputs[interval.TaskRun](cmd.OutOrStdout(), f.csv, f.jsonl); err != nil {
			return err
		}
	}
	opts := runner.Options{Seed: f.seed, Workers: f.workers, Label: "interval simulate", ProgressTo: cmd.ErrOrStderr()}
	sum, err := interval.SimulateRuns(cmd.Context(), spec, f.runs, opts, sink)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if f.csv == "-" || f.jsonl == "-" {
		return nil
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), intervalSimJSONOf(spec, law, f.strategy, sum))
	}
	w := output.NewWriter(cmd.OutOrStdout())
	writeIntervalSimText(w, spec, law, f.strategy, sum)
	return w.Err()
}

// intervalSimSpec reads the task, the failure source and the policy.
func intervalSimSpec(given func(string) bool, f intervalSimFlags) (interval.SimSpec, string, error) {
	var s interval.SimSpec
	var err error
	if s.Te, err = positiveDurationFlag("te", f.te); err != nil {
		return s, "", err
	}
	if s.C, err = positiveDurationFlag("ckpt", f.ckpt); err != nil {
		return s, "", err
	}
	if s.R, err = nonNegDurationFlag("restart", f.restart); err != nil {
		return s, "", err
	}
	s.Model = interval.SimModel{RestartFailures: f.restartFail, CheckpointFailures: f.ckptFail, FirstRestart: f.r0}
	mtbf, law, err := intervalSimSource(given, f, &s)
	if err != nil {
		return s, "", err
	}
	s.Period, err = interval.PolicyPeriod(f.strategy, interval.Task{Te: s.Te, C: s.C, R: s.R, MTBF: mtbf})
	if err != nil {
		return s, "", usagef("--strategy: %v", err)
	}
	return s, law, nil
}

// intervalSimSource sets the law or the replay list of s and returns the
// MTBF the policies use and a description of the source.
func intervalSimSource(given func(string) bool, f intervalSimFlags, s *interval.SimSpec) (float64, string, error) {
	n := 0
	for _, k := range []string{"dist", "mtbf", "lanl", "failure-times"} {
		if given(k) {
			n++
		}
	}
	if n != 1 {
		return 0, "", usagef("give exactly one of --dist, --mtbf, --lanl and --failure-times")
	}
	if given("system") && !given("lanl") {
		return 0, "", usagef("--system goes with --lanl")
	}
	switch {
	case given("failure-times"):
		return replaySource(f.times, s)
	case given("mtbf"):
		m, err := positiveDurationFlag("mtbf", f.mtbf)
		if err != nil {
			return 0, "", err
		}
		s.Law = distribution.Exponential{Rate: 1 / m}
	case given("lanl"):
		recs, err := trace.ReadLANLFile(f.lanl)
		if err != nil {
			return 0, "", usage(err)
		}
		sys, err := interval.LANLSystem(recs, f.system, 2)
		if err != nil {
			return 0, "", usagef("--lanl %s: %v", f.lanl, err)
		}
		if s.Law, err = sys.BestFit(); err != nil {
			return 0, "", err
		}
	default:
		law, err := distribution.Parse(f.dist)
		if err != nil {
			return 0, "", usagef("--dist: %v", err)
		}
		s.Law = law
	}
	return s.Law.Mean(), s.Law.String(), nil
}

// replaySource reads --failure-times; the MTBF is the mean gap.
func replaySource(path string, s *interval.SimSpec) (float64, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, "", usage(err)
	}
	defer fh.Close()
	gaps, err := interval.ReadFailureTimes(fh)
	if err != nil {
		return 0, "", usagef("--failure-times %s: %v", path, err)
	}
	s.Replay = gaps
	if s.Replay == nil {
		s.Replay = []float64{}
	}
	return interval.MeanGap(gaps), fmt.Sprintf("replay of %s (%d failures)", path, len(gaps)), nil
}

type intervalSimJSON struct {
	Te        output.Number `json:"te_s"`
	C         output.Number `json:"c_s"`
	R         output.Number `json:"r_s"`
	Strategy  string        `json:"strategy"`
	Period    output.Number `json:"period_s"`
	Intervals int           `json:"intervals"`
	Failures  string        `json:"failures"`
	Model     struct {
		RestartFailures    bool `json:"restart_failures"`
		CheckpointFailures bool `json:"checkpoint_failures"`
		FirstRestart       bool `json:"first_restart"`
	} `json:"model"`
	Runs          int           `json:"runs"`
	MeanWallclock output.Number `json:"mean_wallclock_s"`
	HalfWidth     output.Number `json:"ci95_half_width_s"`
	MeanWPR       output.Number `json:"mean_wpr"`
	MeanFailures  output.Number `json:"mean_failures"`
}

func intervalSimJSONOf(s interval.SimSpec, law, strategy string, sum interval.SimSummary) intervalSimJSON {
	j := intervalSimJSON{Te: output.Number(s.Te), C: output.Number(s.C), R: output.Number(s.R), Strategy: strategy,
		Period: output.Number(s.Period), Intervals: interval.IntervalsForPeriod(s.Te, s.Period), Failures: law, Runs: sum.Runs,
		MeanWallclock: output.Number(sum.MeanWallclock), HalfWidth: output.Number(sum.HalfWidth),
		MeanWPR: output.Number(sum.MeanWPR), MeanFailures: output.Number(sum.MeanFailures)}
	j.Model.RestartFailures, j.Model.CheckpointFailures, j.Model.FirstRestart = s.Model.RestartFailures, s.Model.CheckpointFailures, s.Model.FirstRestart
	return j
}

func writeIntervalSimText(w io.Writer, s interval.SimSpec, law, strategy string, sum interval.SimSummary) {
	fmt.Fprintf(w, "task: Te = %g s, C = %g s, R = %g s; failures: %s\n", s.Te, s.C, s.R, law)
	x := interval.IntervalsForPeriod(s.Te, s.Period)
	fmt.Fprintf(w, "policy: %s, period %.6g s (%d intervals, %d checkpoints)\n", strategy, s.Period, x, x-1)
	fmt.Fprintf(w, "model: failures during restarts %v, during checkpoints %v; restart before the first checkpoint %v\n",
		s.Model.RestartFailures, s.Model.CheckpointFailures, s.Model.FirstRestart)
	fmt.Fprintf(w, "runs: %d\nmean wall-clock: %.6g s ± %.3g s (95%% confidence interval)\nmean WPR: %.6g; mean failures: %.6g\n",
		sum.Runs, sum.MeanWallclock, sum.HalfWidth, sum.MeanWPR, sum.MeanFailures)
}
