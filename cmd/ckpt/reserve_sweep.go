package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/runner"
)

type sweepFlags struct {
	reserveFlags
	ckpts, restarts, epsilons string
	csv, jsonl, shard         string
	workers                   int
	jsonOut                   bool
}

// sweepPoint is one (C, R, ε) of the grid.
type sweepPoint struct{ c, r, eps float64 }

// sweepRow holds every strategy's expected cost at one point.
type sweepRow struct {
	p      sweepPoint
	res    *reservation.Result
	byName map[string]float64
}

func (s sweepRow) Row() []runner.Field {
	f := []runner.Field{{Name: "ckpt", Value: s.p.c}, {Name: "restart", Value: s.p.r}, {Name: "epsilon", Value: s.p.eps},
		{Name: "n", Value: s.res.N}, {Name: "omniscient", Value: s.res.Omniscient}, {Name: "lower_bound", Value: s.res.LowerBound}}
	for _, name := range sweepColumns {
		f = append(f, runner.Field{Name: name, Value: s.byName[name]})
	}
	return f
}

var sweepColumns = append(append([]string{}, reservation.Algorithms...), reservation.BaselineMax, reservation.BaselineNeuro, reservation.BaselineMaxOfLast)

func newReserveSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Price every strategy over a grid of checkpoint costs, restart costs and epsilons",
		Long: `For one walltime law (--dist or --history, as for ckpt reserve), compute the
expected cost of every planning strategy and baseline at every point of the grid
--ckpt × --restart × --epsilon, on all cores. Output is CSV and/or JSON lines, one
row per point, identical whatever --workers; --shard i/n runs only the points
k with k mod n = i, and ckpt merge joins the shards into the bytes of a full run.`,
		Example: `  ckpt reserve sweep --dist weibull:k=0.5,lambda=1h --ckpt 1m,6m,30m,1h --csv costs.csv
  # over a Slurm job array of 4 tasks (sbatch --array=0-3):
  ckpt reserve sweep --ckpt 1m,5m,10m,30m,1h,2h --epsilon 0.5,1 --shard $SLURM_ARRAY_TASK_ID/4 --csv part-$SLURM_ARRAY_TASK_ID.csv
  ckpt merge --out costs.csv part-*.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReserveSweep(cmd, f) },
	}
	fl := cmd.Flags()
	f.addLawAndCostFlags(fl)
	fl.StringVar(&f.ckpts, "ckpt", "60,360,600,1800,3600", "checkpoint costs C (comma-separated seconds or durations)")
	fl.StringVar(&f.restarts, "restart", "", "restart costs R (default: R = C at each point)")
	fl.StringVar(&f.epsilons, "epsilon", "1", "Algorithm 1 epsilons (comma-separated)")
	fl.StringVar(&f.csv, "csv", "-", `CSV output file ("-" for stdout, "" for none)`)
	fl.StringVar(&f.jsonl, "jsonl", "", `JSON-lines output file ("-" for stdout)`)
	fl.StringVar(&f.shard, "shard", "", "run only shard i/n of the grid (0 <= i < n)")
	addWorkersFlag(fl, &f.workers)
	addJSONFlag(fl, &f.jsonOut)
	fl.Lookup("json").Usage = "JSON lines on stdout instead of CSV (same as --jsonl - --csv '')"
	return cmd
}

func runReserveSweep(cmd *cobra.Command, f sweepFlags) error {
	points, err := f.points()
	if err != nil {
		return err
	}
	shard, err := runner.ParseShard(f.shard)
	if err != nil {
		return usage(fmt.Errorf("--shard: %w", err))
	}
	if err := f.checkOutputs(cmd); err != nil {
		return err
	}
	base, law, err := f.sweepLaw(cmd, points[0].eps)
	if err != nil {
		return err
	}
	sink, closeOut, err := runner.CreateOutputs[sweepRow](cmd.OutOrStdout(), f.csv, f.jsonl)
	if err != nil {
		return err
	}
	runErr := runner.Run(cmd.Context(), runner.Options{Workers: f.workers, Shard: shard, Label: "sweep", ProgressTo: cmd.ErrOrStderr()}, points, 1,
		func(ctx context.Context, it runner.Item[sweepPoint]) (sweepRow, error) {
			o := base
			o.Costs.C, o.Costs.R, o.Epsilon = it.Param.c, it.Param.r, it.Param.eps
			o.Baselines, o.LowerBound = true, true
			res, err := reservation.PlanContext(ctx, law, o)
			if err != nil {
				return sweepRow{}, err
			}
			row := sweepRow{p: it.Param, res: res, byName: map[string]float64{}}
			for _, b := range res.Baselines {
				row.byName[b.Name] = b.ExpectedCost
			}
			return row, nil
		}, sink)
	if err := closeOut(); runErr == nil {
		runErr = err
	}
	return runErr
}

// points reads the grid --ckpt × --restart × --epsilon.
func (f sweepFlags) points() ([]sweepPoint, error) {
	cs, err := durationListFlag("ckpt", f.ckpts)
	if err != nil {
		return nil, err
	}
	rs := []float64(nil)
	if f.restarts != "" {
		if rs, err = durationListFlag("restart", f.restarts); err != nil {
			return nil, err
		}
	}
	eps, err := reservation.ParseEpsilons(f.epsilons)
	if err != nil {
		return nil, usagef("--epsilon: %v", err)
	}
	var points []sweepPoint
	for _, c := range cs {
		restarts := rs
		if restarts == nil {
			restarts = []float64{c}
		}
		for _, r := range restarts {
			for _, e := range eps {
				points = append(points, sweepPoint{c, r, e})
			}
		}
	}
	return points, nil
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
	if f.csv == "" && f.jsonl == "" {
		return usagef("give --csv or --jsonl")
	}
	if f.csv == "-" && f.jsonl == "-" {
		return usagef("--csv and --jsonl cannot both go to stdout")
	}
	for _, name := range []string{"column", "fit"} {
		if cmd.Flags().Changed(name) && f.history == "" {
			return usagef("--%s does not apply without --history", name)
		}
	}
	return nil
}

// sweepLaw validates the cost model once, with the first point, and
// prepares the law, before any work.
func (f sweepFlags) sweepLaw(cmd *cobra.Command, eps float64) (reservation.Options, distribution.Distribution, error) {
	f.strategy, f.epsilon, f.ckpt, f.restart = reservation.AlgoDynProgCount, eps, "0", "0"
	base, err := f.options()
	if err != nil {
		return reservation.Options{}, nil, usage(err)
	}
	law, src, err := f.law(cmd, &base)
	if err != nil {
		return reservation.Options{}, nil, usage(err)
	}
	for _, w := range src.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ckpt: warning:", w)
	}
	// Prepare the law (truncation, its checks) once so a bad law fails fast.
	if _, _, err := reservation.Law(law, base.TailMass); err != nil {
		return reservation.Options{}, nil, usage(err)
	}
	return base, law, nil
}
