package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/runner"
)

func newMergeCmd() *cobra.Command {
	var out string
	var expect int
	cmd := &cobra.Command{
		Use:   "merge --out FILE SHARD...",
		Short: "Merge the CSV or JSONL outputs of a sharded sweep into the bytes of an unsplit run",
		Long: `A sweep run with --shard i/n writes only the items k with k mod n = i, and
ends its output with a line naming its shard and the sweep's item count
("#ckpt-shard 3/8 items=100" in CSV, {"ckpt_shard":"3/8","items":100} in JSONL).
merge puts the shard outputs back together, in item order, without those lines,
and fails naming every problem: shards missing (with the --array= list that
resubmits them), a shard interrupted (no end line), repeated, or from another
split, and items missing or repeated. The format comes from the extension
(.csv or .jsonl). An empty or truncated input is refused. Outputs without end
lines (unsplit runs) merge by their items alone: give --expect N, the sweep's
item count, to catch an interruption at the end; a single such input needs it.`,
		Example: `  # 4 Slurm array tasks (sbatch --array=0-3, --shard auto), then:
  ckpt merge --out fig2.csv fig2-shard-*.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, shards []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if _, err := runner.FormatOf(out); err != nil {
				return usage(fmt.Errorf("--out %v", err))
			}
			return runner.MergeFiles(out, expect, shards...)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged output file (.csv or .jsonl)")
	cmd.Flags().IntVar(&expect, "expect", 0, "number of items the merged output must hold (0: from the shards' end lines, else the last item)")
	return cmd
}
