package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/runner"
)

func newCapacityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Schedule rigid jobs when the processor count varies (decide, simulate, sweep)",
		Long: `Schedule rigid jobs on a platform whose processor count changes at announced
events (Cendrier, Benoit, Vivien, Inria RR-9582, 2025). Before each event enough
jobs are checkpointed that no work is lost even if delta processors disappear.
Strategies (the paper's algorithms): ` + strings.Join(capacity.Names(), ", ") + `
(parameterised ones as NAME:X, e.g. dp-bic:15, target-yield:0.5). Every schedule
is checked by an independent validator; goodput and yields are measured on the
validated schedule.`,
	}
	cmd.AddCommand(newCapacityDecideCmd(), newCapacitySimulateCmd(), newCapacitySweepCmd(), newCapacityExportCmd(), newCapacityBatsimScoreCmd())
	return cmd
}

func newCapacityDecideCmd() *cobra.Command {
	var req capacity.DecideRequest
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "decide",
		Short: "Plan the current section for a resource manager (called at every event)",
		Long: `Read the current section and the jobs from a JSON state file and print the
actions of every job (run, checkpoint, recover, with times relative to the
event) and the useful work they achieve. The state file holds p_min, p_max,
delta, p (processors of this section), length (time to the next event) and
jobs: [{p, c, r, status: running|checkpointed|idle, yield}] (or work and
avail instead of yield).`,
		Example: `  ckpt capacity decide --state section.json --strategy dp-bic:15 --json
  echo '{"p_min":2,"p_max":10,"delta":2,"p":8,"length":100,
    "jobs":[{"p":3,"c":10,"r":10,"status":"running","yield":0.5},
            {"p":4,"c":12,"r":12,"status":"idle","yield":0.1}]}' | ckpt capacity decide --state - --strategy dp-goodput`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req.Stdin = cmd.InOrStdin()
			return printer(cmd, asJSON, nil)(capacity.RunDecide(cmd.Context(), req))
		},
	}
	cmd.Flags().StringVar(&req.State, "state", "", "JSON state file (- for stdin)")
	cmd.Flags().StringVar(&req.Strategy, "strategy", "dp-bic:15", "strategy: "+strings.Join(capacity.Names(), "|")+" (NAME:X for parameters)")
	addJSONFlag(cmd.Flags(), &asJSON)
	return cmd
}

// setupFlags defines the flags simulate, sweep and export share, bound to their Setup (progress
// on stderr). Not --json: export prints only the names of its files, and refuses it as unknown.
func setupFlags(cmd *cobra.Command, s *capacity.Setup) {
	cmd.PreRun = func(cmd *cobra.Command, _ []string) { s.ProgressTo = cmd.ErrOrStderr() }
	fl := cmd.Flags()
	parsedVar(fl, &s.Strategies, "strategies", "greedy-goodput,greedy-yield,dp-goodput,dp-yield,dp-bic:15",
		"comma-separated strategies: "+strings.Join(capacity.Names(), ", ")+" (NAME:X for parameters)",
		func(v string) ([]string, error) { return strings.Split(v, ","), nil })
	parsedVar(fl, &s.Workloads, "workload", "uniform", "job widths: an SWF log (.swf, .swf.gz), a Batsim workload (.json), a CQSim .rst file, or uniform (1..p_min); comma-separated for several", registry.SplitList)
	fl.IntVar(&s.Params.Sections, "sections", 400, "number of sections n")
	durationVar(fl, &s.Params.AvgT, "avg-t", "100", "mean section length avgT (lengths ~ U[0.8,1.2]·avgT), in the model's time unit: a duration (100, 90m, 01:30:00) is read as seconds; with --finite the unit is 20 s")
	fl.IntVar(&s.Params.PMax, "p-max", 400, "P_max (100 = the paper's light setting)")
	fl.Float64Var(&s.Params.PMinFrac, "p-min", 0.2, "P_min as a fraction of P_max, in [0, 1]")
	fl.Float64Var(&s.Params.Delta, "delta", 0.1, "delta as a fraction of P_max, in [0, 1]")
	fl.Float64Var(&s.Params.Load, "load", 2, "sum of job widths / P_max")
	durationVar(fl, &s.Params.CLo, "c-min", "5", "checkpoint times C_j = R_j ~ U[c-min, c-max], in time units")
	durationVar(fl, &s.Params.CHi, "c-max", "20", "see --c-min")
	addSeedFlag(fl, &s.Seed, 1)
	addWorkersFlag(fl, &s.Workers)
	fl.StringVar(&s.Release, "finite", "", "finite jobs with release dates by this method: fifo, smallest or accumulation (needs a log with run times; time unit 20 s)")
}

func newCapacitySimulateCmd() *cobra.Command {
	var asJSON bool
	var req capacity.SimulateRequest
	var plotPath, htmlPath string
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate strategies on one generated instance (Section 6.1 workload generation)",
		Example: `  ckpt capacity simulate --p-max 100 --sections 100
  ckpt capacity simulate --workload ../shared/data/swf/KIT-FH2-2016-1_CQSim-simresult.rst --strategies dp-goodput,dp-bic:15 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.CheckPictures(plotPath, htmlPath); err != nil {
				return err
			}
			req.Pictures = plotPath != "" || htmlPath != ""
			rep, err := capacity.RunSimulate(cmd.Context(), req)
			if err == nil {
				err = report.WritePictures(plotPath, htmlPath, rep)
			}
			return printer(cmd, asJSON, nil)(rep, err)
		},
	}
	setupFlags(cmd, &req.Setup)
	addJSONFlag(cmd.Flags(), &asJSON)
	addPictureFlags(cmd.Flags(), &plotPath, &htmlPath, "P(t) over the first sections with the processors each job holds, checkpoints and drops of P(t), one panel per strategy")
	return cmd
}

func newCapacitySweepCmd() *cobra.Command {
	var asJSON bool
	var req capacity.SweepRequest
	var values, csv, jsonl string
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Vary one parameter over instances and strategies (CSV/JSONL rows, shardable)",
		Long: `Simulate every strategy on --instances instances of every (workload, value of
--vary) pair. Rows go to --csv (default stdout) and/or --jsonl as they finish, in
the same order whatever --workers; --json prints them as one JSON array at the
end instead of the CSV on stdout. Ctrl-C stops the sweep within a second, leaving
only complete rows.`,
		Example: `  ckpt capacity sweep --vary avgT --values 50,100,200 --instances 10 --p-max 100 > avgT.csv
  ckpt capacity sweep --vary delta --values 0.05,0.1,0.2 --shard 0/4 --csv d.0.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON && !cmd.Flags().Changed("csv") {
				csv = ""
			}
			req.Collect = asJSON
			var err error
			if req.Values, err = capacity.ParseValues(values); err == nil {
				err = req.Validate()
			}
			if err == nil {
				err = runner.CheckOutputs(csv, jsonl, asJSON)
			}
			if err != nil {
				return namedFlag(cmd, err, nil)
			}
			rep, err := runner.WithOutputs(cmd.OutOrStdout(), csv, jsonl, &req.Sink, func() (capacity.SweepReport, error) { return capacity.RunSweep(cmd.Context(), req) })
			if err != nil || !asJSON {
				return namedFlag(cmd, err, nil)
			}
			return writeJSON(cmd.OutOrStdout(), rep)
		},
	}
	setupFlags(cmd, &req.Setup)
	fl := cmd.Flags()
	addJSONFlag(fl, &asJSON)
	fl.StringVar(&req.Vary, "vary", "avgT", "parameter to vary: avgT, pmax, pmin, delta, load, sections")
	fl.StringVar(&values, "values", "50,100,200", "comma-separated values of --vary")
	fl.IntVar(&req.Instances, "instances", 10, "instances per point")
	parsedVar(fl, &req.Shard, "shard", "", "run shard i/n of the items (0-based)", runner.ParseShard)
	fl.StringVar(&csv, "csv", "-", `CSV output file ("-" for stdout, "" for none)`)
	fl.StringVar(&jsonl, "jsonl", "", `JSON-lines output file ("-" for stdout)`)
	return cmd
}
