package main

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/runner"
)

type intervalSimFlags struct {
	te, ckpt, restart, mtbf   string
	strategy, dist, lanl      string
	times, failures           string
	system, runs, workers     int
	seed                      uint64
	csv, jsonl                string
	json                      bool
	restartFail, ckptFail, r0 bool
}

const intervalSimLong = `Simulate one task of work --te under a checkpoint policy (--strategy: young,
daly, mnof, period:D or count:N), many times, with failures drawn from a law
(--dist SPEC, any distribution spec such as weibull:k=0.7,lambda=6h; --mtbf D
for exponential failures, or --failures E(Y) for exponential failures of
mean Te/E(Y); --lanl FILE --system N for the law fitted to a LANL
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
	fl.StringVar(&f.failures, "failures", "", "exponential failures, `E(Y)` expected during the task (mean Te/E(Y))")
	fl.StringVar(&f.lanl, "lanl", "", "LANL failure log: draw from the law fitted to --system")
	fl.IntVar(&f.system, "system", -1, "with --lanl: the system number")
	fl.StringVar(&f.times, "failure-times", "", "file of failure times to replay (one a line, from the task's start)")
	fl.BoolVar(&f.restartFail, "restart-failures", true, "failures strike restarts too")
	fl.BoolVar(&f.ckptFail, "checkpoint-failures", true, "failures strike checkpoints too")
	fl.BoolVar(&f.r0, "first-restart", true, "a failure before the first checkpoint costs a restart")
}

func runIntervalSimulate(cmd *cobra.Command, f intervalSimFlags) error {
	req, err := intervalSimRequest(cmd.Flags().Changed, f)
	if err != nil {
		return err
	}
	var sink runner.Sink[interval.TaskRun]
	closeOut := func() error { return nil }
	if f.csv != "" || f.jsonl != "" {
		if err := req.Validate(); err != nil { // before creating the files
			return flagNamed(err, intervalFlagOf)
		}
		if sink, closeOut, err = runner.CreateOutputs[interval.TaskRun](cmd.OutOrStdout(), f.csv, f.jsonl); err != nil {
			return err
		}
	}
	rep, err := interval.Simulate(cmd.Context(), req, sink, cmd.ErrOrStderr())
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return flagNamed(err, intervalFlagOf)
	}
	if f.csv == "-" || f.jsonl == "-" {
		return nil
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return rep.WriteText(cmd.OutOrStdout())
}

// intervalSimRequest maps the flags to an interval.SimRequest.
func intervalSimRequest(given func(string) bool, f intervalSimFlags) (interval.SimRequest, error) {
	r := interval.SimRequest{Strategy: f.strategy, Runs: f.runs, Seed: f.seed, Workers: f.workers,
		Model:    interval.SimModel{RestartFailures: f.restartFail, CheckpointFailures: f.ckptFail, FirstRestart: f.r0},
		Failures: interval.FailureSource{Dist: f.dist, LANL: f.lanl, System: f.system, FailureTimes: f.times}}
	if given("system") && !given("lanl") {
		return r, usagef("--system goes with --lanl")
	}
	for _, d := range []struct {
		flag, v string
		dst     *float64
	}{{"te", f.te, &r.Te}, {"ckpt", f.ckpt, &r.C}, {"restart", f.restart, &r.R}, {"mtbf", f.mtbf, &r.Failures.MTBF}} {
		if given(d.flag) || d.flag == "restart" {
			v, err := durationFlag(d.flag, d.v)
			if err != nil {
				return r, err
			}
			*d.dst = v
		}
	}
	if given("failures") {
		ey, err := strconv.ParseFloat(f.failures, 64)
		if err != nil {
			return r, usagef("--failures: want a number of failures >= 0, got %q", f.failures)
		}
		r.Failures.ExpectedFailures = &ey
	}
	return r, nil
}
