package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/runner"
)

type sweepFlags struct {
	reserveFlags
	csv, jsonl                string
	ckpts, restarts, epsilons []float64
	shard                     runner.Shard
	workers                   int
	jsonOut                   bool
}

func newReserveSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Price every strategy over a grid of checkpoint costs, restart costs and epsilons",
		Long: `For one walltime law (--dist or --history, as for ckpt reserve), compute the
expected cost of every planning strategy and baseline at every point of the grid
--ckpt × --restart × --epsilon, on all cores. These three flags are those of
ckpt reserve, each taking a comma-separated list here (one value is a grid of
one). Output is CSV and/or JSON lines, one row per point, identical whatever
--workers; --shard i/n runs only the points k with k mod n = i, and ckpt merge
joins the shards into the bytes of a full run.`,
		Example: `  ckpt reserve sweep --dist weibull:k=0.5,lambda=1h --ckpt 1m,6m,30m,1h --csv costs.csv
  # over a Slurm job array of 4 tasks (sbatch --array=0-3):
  ckpt reserve sweep --ckpt 1m,5m,10m,30m,1h,2h --epsilon 0.5,1 --shard $SLURM_ARRAY_TASK_ID/4 --csv part-$SLURM_ARRAY_TASK_ID.csv
  ckpt merge --out costs.csv part-*.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReserveSweep(cmd, f) },
	}
	fl := cmd.Flags()
	f.addLawAndCostFlags(fl)
	parsedVar(fl, &f.ckpts, "ckpt", "60,360,600,1800,3600", "checkpoint costs C: a comma-separated list of seconds or durations", durationList)
	parsedVar(fl, &f.restarts, "restart", "", "restart costs R: a comma-separated list (default: R = C at each point)", func(v string) ([]float64, error) {
		if v == "" {
			return nil, nil // R = C, as when not given
		}
		return durationList(v)
	})
	parsedVar(fl, &f.epsilons, "epsilon", "1", "Algorithm 1 epsilons: a comma-separated list", reservation.ParseEpsilons)
	fl.StringVar(&f.csv, "csv", "-", `CSV output file ("-" for stdout, "" for none)`)
	fl.StringVar(&f.jsonl, "jsonl", "", `JSON-lines output file ("-" for stdout)`)
	parsedVar(fl, &f.shard, "shard", "", "run only shard i/n of the grid (0 <= i < n)", runner.ParseShard)
	addWorkersFlag(fl, &f.workers)
	addJSONFlag(fl, &f.jsonOut)
	fl.Lookup("json").Usage = "JSON lines on stdout instead of CSV (same as --jsonl - --csv '')"
	return cmd
}

func runReserveSweep(cmd *cobra.Command, f sweepFlags) error {
	req, err := f.request(cmd)
	if err != nil {
		return err
	}
	if err := f.checkOutputs(cmd); err != nil {
		return err
	}
	sw, err := reservation.NewSweep(cmd.Context(), req)
	if err != nil {
		return f.fieldError(cmd.Flags(), err)
	}
	for _, w := range sw.Warnings() {
		fmt.Fprintln(cmd.ErrOrStderr(), "ckpt: warning:", w)
	}
	var sink runner.Sink[reservation.SweepRow]
	_, err = runner.WithOutputs(cmd.OutOrStdout(), f.csv, f.jsonl, &sink, func() (any, error) {
		return nil, sw.Run(cmd.Context(), runner.Options{Workers: f.workers, Shard: f.shard, Label: "sweep", ProgressTo: cmd.ErrOrStderr()}, sink)
	})
	return err
}

// request maps the flags to a reservation.SweepRequest: the grid
// --ckpt × --restart × --epsilon and the law and cost flags of reserve.
func (f sweepFlags) request(cmd *cobra.Command) (reservation.SweepRequest, error) {
	req := reservation.SweepRequest{Request: f.req, Ckpts: f.ckpts, Restarts: f.restarts, Epsilons: f.epsilons}
	var err error
	req.Walltime, err = f.walltime(cmd)
	return req, err
}

// checkOutputs checks --workers, --csv, --jsonl and --json.
func (f *sweepFlags) checkOutputs(cmd *cobra.Command) error {
	if err := checkWorkers(f.workers); err != nil {
		return err
	}
	if f.jsonOut {
		if cmd.Flags().Changed("csv") || cmd.Flags().Changed("jsonl") {
			return usagef("give --json or --csv/--jsonl, not both")
		}
		f.csv, f.jsonl = "", "-"
	}
	for _, name := range []string{"column", "fit"} {
		if cmd.Flags().Changed(name) && f.history == "" {
			return usagef("--%s does not apply without --history", name)
		}
	}
	return runner.CheckOutputs(f.csv, f.jsonl, false)
}
