package main

import (
	"cmp"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/runner"
)

// intervalSimFlags are the flags of ckpt interval simulate, read straight
// into the request but for the outputs.
type intervalSimFlags struct {
	req        interval.SimRequest
	csv, jsonl string
	json       bool
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := runner.CheckOutputPaths(f.csv, f.jsonl, f.json); err != nil || cmd.Flags().Changed("system") && !cmd.Flags().Changed("lanl") {
				return cmp.Or(err, usagef("--system goes with --lanl"))
			}
			rep, err := interval.SimulateToFiles(cmd.Context(), f.req, cmd.OutOrStdout(), f.csv, f.jsonl, cmd.ErrOrStderr())
			if err == nil && (f.csv == "-" || f.jsonl == "-") {
				return nil
			}
			return printer(cmd, f.json, intervalFlagOf)(rep, err)
		},
	}
	fl, r := cmd.Flags(), &f.req
	durationVar(fl, &r.Te, "te", "", "work of the task Te (required)")
	parsedVar(fl, &r.C, "ckpt", "", "checkpoint cost C (> 0, required)", positive)
	durationVar(fl, &r.R, "restart", "0", "restart cost R (>= 0; default 0)")
	fl.StringVar(&r.Strategy, "strategy", interval.MethodMNOF, "checkpoint policy: young, daly, mnof, period:D or count:N")
	fs, m := &r.Failures, &r.Model
	fl.StringVar(&fs.Dist, "dist", "", "law of the times between failures (a distribution spec)")
	parsedVar(fl, &fs.MTBF, "mtbf", "", "exponential failures of this mean (> 0)", positive)
	parsedVar(fl, &fs.ExpectedFailures, "failures", "", "exponential failures, `E(Y)` expected during the task (mean Te/E(Y))", optional(interval.ParseExpectedFailures))
	fl.StringVar(&fs.LANL, "lanl", "", "LANL failure log: draw from the law fitted to --system")
	fl.IntVar(&fs.System, "system", -1, "with --lanl: the system number")
	fl.StringVar(&fs.FailureTimes, "failure-times", "", "file of failure times to replay (one a line, from the task's start)")
	fl.BoolVar(&m.RestartFailures, "restart-failures", true, "failures strike restarts too")
	fl.BoolVar(&m.CheckpointFailures, "checkpoint-failures", true, "failures strike checkpoints too")
	fl.BoolVar(&m.FirstRestart, "first-restart", true, "a failure before the first checkpoint costs a restart")
	fl.IntVar(&r.Runs, "runs", 1000, "number of runs (>= 1)")
	addSeedFlag(fl, &r.Seed, 1)
	addWorkersFlag(fl, &r.Workers)
	fl.StringVar(&f.csv, "csv", "", "write one row per run to this CSV file (- for stdout)")
	fl.StringVar(&f.jsonl, "jsonl", "", "write one row per run to this JSON-lines file (- for stdout)")
	addJSONFlag(fl, &f.json)
	return cmd
}
