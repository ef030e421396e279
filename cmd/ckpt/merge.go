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
		Long: `A sweep run with --shard i/n writes only the items k with k mod n = i. merge
puts the shard outputs back together, in item order, and checks that no item is
missing or repeated. The format comes from the extension (.csv or .jsonl).
An empty or truncated input is refused. Without --expect the last item seen
sets the count, so a sweep interrupted at its end is caught only with
--expect N; a single input needs it.`,
		Example: `  # 4 Slurm array tasks (sbatch --array=0-3), then:
  ckpt merge --out fig2.csv fig2-shard-*.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, shards []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if _, err := runner.FormatOf(out); err != nil {
				return usage(fmt.Errorf("--out %v", err))
			}
			if expect < 0 {
				return usagef("--expect: %d must be >= 0", expect)
			}
			if len(shards) == 1 && expect == 0 {
				return usagef("one input (%s) and no --expect: a sweep interrupted at its end cannot be told from a complete one; give --expect with the sweep's item count", shards[0])
			}
			return runner.MergeFiles(out, expect, shards...)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged output file (.csv or .jsonl)")
	cmd.Flags().IntVar(&expect, "expect", 0, "number of items the merged output must hold (0: infer)")
	return cmd
}
