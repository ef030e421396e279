//go:build !lite

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/repro/papers"
	reproslurm "github.com/ckpt-hpc/ckpt/repro/slurm"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// reproductions are the paper reproductions of `ckpt repro NAME|all`.
var reproductions = papers.Catalog

func isReproduction(name string) bool { _, ok := reproductions[name]; return ok }

// reproFlags are the flags of `ckpt repro`: the request's, --seed (given
// or not), and those of `ckpt repro slurm`.
type reproFlags struct {
	req   repro.Request
	seed  uint64
	slurm reproslurm.Request
}

func newReproCmd() *cobra.Command {
	var f reproFlags
	names := reproductions.Names()
	cmd := &cobra.Command{
		Use:   "repro NAME|all",
		Short: "Reproduce a paper's tables and figures (CSV + PNG/SVG, the paper's numbers beside ours)",
		Long: "Reproduce the experiments of one of the papers that define ckpt. Available: " + strings.Join(names, ", ") + `,
and slurm (Section 5 of the reservation paper on the Slurm cluster that
answers sinfo; not part of all: it submits real jobs).
Outputs go to --out/NAME: one CSV per table or figure, the figures as PNG and
SVG, and comparisons.csv with the paper's numbers beside ours. The comparison
tables are printed on stdout, progress on stderr. --quick shrinks every
experiment to a smoke test. Each seeded reproduction has its own base
seed, the one its published outputs were made with; --seed replaces it.
cloud, capacity and profiles read the shared data folder: --data DIR, else
$CKPT_DATA, else ../shared/data beside the checkout.
Ctrl-C stops a reproduction, leaving whole rows in its CSV files.
"all" runs every reproduction in name order (--seed reaches the seeded
ones, --data those that read data) and writes --out/report.html, as
"ckpt report" does.`,
		Example: `  ckpt repro reservation --quick
  ckpt repro all --quick --out results
  ckpt repro coop --out results --workers 2 --seed 7`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRepro(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	r := &f.req
	fl.StringVar(&r.Out, "out", "repro-out", "output folder")
	fl.BoolVar(&r.Quick, "quick", false, "small smoke-test version of every experiment")
	addWorkersFlag(fl, &r.Workers)
	fl.Uint64Var(&f.seed, "seed", 0, "base seed of every random stream (default: the reproduction's own)")
	parsedVar(fl, &r.Data, "data", "", "data folder of the reproductions that read data: cloud, capacity, profiles (default: $CKPT_DATA, else ../shared/data beside the checkout)", optional(func(v string) (string, error) { return v, nil }))
	fl.StringVar(&r.Items.Shard, "shard", "", "compute only shard i/n (or auto, auto/N in a job array) of every sweep's items, into --items; outputs are then left to --finish")
	fl.StringVar(&r.Items.ItemLog, "items", "", "record every sweep item's result to this .jsonl item log (with --shard: the shard's items)")
	fl.StringVar(&r.Items.Finish, "finish", "", "finish from this merged item log (ckpt merge of the shards' --items): write every table and figure without recomputing the sweeps")
	addJSONFlag(fl, &r.JSON)
	addSlurmReproFlags(fl, &f.slurm)
	cmd.AddCommand(newStandinCmd())
	fl.StringVar(&r.Accounting, "accounting", "", "how results are booked, where a reproduction offers several (cloud: ours|gloudsim, the authors' analyser)")
	return cmd
}

// runRepro runs `ckpt repro NAME` (slurm, all or one of the catalog's),
// logging to the command's stdout and progress to its stderr.
func runRepro(cmd *cobra.Command, name string, f reproFlags) error {
	if name == "slurm" {
		if cmd.Flags().Changed("data") {
			return usagef("--data: the slurm reproduction reads no data")
		}
		return runSlurmRepro(cmd, f)
	}
	r := f.req
	r.Name, r.Stdout, r.Progress = name, cmd.OutOrStdout(), cmd.ErrOrStderr()
	if cmd.Flags().Changed("seed") {
		r.Seed = &f.seed
	}
	return reproductions.Run(cmd.Context(), r)
}

func newReportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Gather the reproductions of a results folder into one self-contained HTML page",
		Long: `Read a results folder written by "ckpt repro" (one reproduction's folder, or a
folder of them) and write one HTML file with everything inlined (SVG figures,
style sheet; no network, no external file): a summary of every reproduction,
then per paper its comparisons.csv (ours, the paper's, the delta; rows beyond
the reproduction's tolerance highlighted), every figure, and FINDINGS.md
(the folder's own copy, else the one built into ckpt).`,
		Example: `  ckpt repro all --quick --out results    # writes results/report.html too
  ckpt report results --out results.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := report.WriteFile(args[0], out, reproductions.ReportOptions())
			if err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "report: %s\n", path)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output HTML file (default DIR/report.html)")
	return cmd
}

// addSlurmReproFlags defines the flags that only `ckpt repro slurm`
// reads, bound to its request.
func addSlurmReproFlags(fl *pflag.FlagSet, r *reproslurm.Request) {
	c := &r.Config
	fl.Float64Var(&c.Scale, "scale", 0, "slurm: paper seconds per real second (default: the expected node time over the slots in 30 minutes, at least 20; --quick 30)")
	fl.IntVar(&c.Slots, "slots", 32, "slurm: chains in flight (at most the node's CPUs)")
	fl.IntVar(&r.Jobs, "jobs-per-cell", 30, "slurm: jobs per application and strategy (the paper: 500; the default keeps a 2-core node's slurmd below about one job launch a second); Table 4's mix scales with it")
	fl.IntVar(&r.MixRuns, "mix-runs", 2, "slurm: runs of Table 4's mix (the paper: 10)")
	parsedVar(fl, &c.Margin, "slurm-margin", "100ms", "slurm: the runner's --margin (real time)", wallclock(nonNeg))
	parsedVar(fl, &c.Grace, "start-grace", "200ms", "slurm: the runner's --start-grace (real time)", wallclock(positive))
	fl.BoolVar(&c.PaperCosts, "paper-costs", false, "slurm: plan with the paper's costs (a checkpoint reserves C), whose milestones the run cannot reach; by default C + scale × (--slurm-margin + 1s, the stand-in's late start)")
	hiddenAlias(fl, "jobs", "jobs-per-cell") // the previous name: --jobs is a file elsewhere
	fl.BoolVar(&r.Resummarize, "resummarize", false, "slurm: recompute cells.csv and comparisons.csv from --out/slurm/jobs.csv (same --seed, --jobs-per-cell, --mix-runs; --scale for a jobs.csv without wait_real_s), submitting nothing")
}

// runSlurmRepro runs `ckpt repro slurm`: Section 5 on the cluster that
// answers sinfo (one line and exit 1 without one).
func runSlurmRepro(cmd *cobra.Command, f reproFlags) error {
	r := f.slurm
	r.Out, r.Quick, r.Seed, r.Log = f.req.Out, f.req.Quick, reproslurm.DefaultSeed, cmd.OutOrStdout()
	r.Config.Progress = cmd.ErrOrStderr()
	if cmd.Flags().Changed("seed") {
		r.Seed = f.seed
	}
	err := reproslurm.RunRequest(cmd.Context(), slurm.Exec{}, r)
	if name, ue := flagOfField(err, map[string]string{"Jobs": "jobs-per-cell", "MixRuns": "mix-runs", "Slots": "slots", "Scale": "scale"}); name != "" {
		return usagef("--%s %v", name, ue.Err)
	}
	return err
}

// newStandinCmd is the stand-in application of `ckpt repro slurm`
// (hidden): run under ckpt run, it works for its walltime and writes and
// reads checkpoints of its size (package repro/slurm, StandIn).
func newStandinCmd() *cobra.Command {
	var s reproslurm.StandIn
	cmd := &cobra.Command{
		Use:    "standin --walltime T --c C --r R [flags]",
		Short:  "The stand-in application of ckpt repro slurm (run under ckpt run)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := s.Run(cmd.Context(), os.Getenv, cmd.ErrOrStderr()); code != 0 {
				return fmt.Errorf("standin: exit %d (work not complete: checkpointed, stopped or failed)", code)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&s.Walltime, "walltime", 0, "the job's work (paper seconds)")
	fl.Float64Var(&s.C, "c", 0, "checkpoint time of a nominal checkpoint (paper seconds)")
	fl.Float64Var(&s.R, "r", 0, "restart time of a nominal checkpoint (paper seconds)")
	fl.Float64Var(&s.Variation, "variation", 0, "checkpoint size drawn uniform within ±this fraction of C")
	fl.Uint64Var(&s.Seed, "seed", 0, "seed of the sizes")
	fl.Float64Var(&s.BytesPerSecond, "bytes-per-second", 4096, "checkpoint bytes per second of C")
	parsedVar(fl, &s.Margin, "margin", "0s", "start a checkpoint larger than C this long before end - C'", wallclock(nonNeg))
	return cmd
}
