//go:build !lite

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/repro/papers"
	reproslurm "github.com/ckpt-hpc/ckpt/repro/slurm"
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
