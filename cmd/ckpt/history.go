package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/trace"
)

// readHistoryFlags reads a walltime history (- for stdin) with
// slurm.ReadHistory, the one reader of every layout (format "" detects
// it): --states and
// --censored (comma lists of sacct states of lone jobs: complete,
// censored) apply to sacct output only, --column to CSV only.
func readHistoryFlags(cmd *cobra.Command, file string, format trace.HistoryFormat, column, states, censored string) (slurm.History, string, error) {
	complete, err := listFlag("--states", states)
	if err != nil {
		return slurm.History{}, "", err
	}
	cens, err := listFlag("--censored", censored)
	if err != nil {
		return slurm.History{}, "", err
	}
	var in io.Reader = cmd.InOrStdin()
	name := "stdin"
	if file != "-" {
		fh, err := os.Open(file)
		if err != nil {
			return slurm.History{}, "", fmt.Errorf("--history: %w", err)
		}
		defer fh.Close()
		in, name = fh, file
	}
	h, err := slurm.ReadHistory(in, name, slurm.HistoryOptions{Format: format, Column: column, States: slurm.RunsOptions{Complete: complete, Censored: cens}})
	if err != nil {
		return h, name, err
	}
	if h.Format != trace.HistorySacct {
		for _, fl := range []string{"states", "censored"} {
			if cmd.Flags().Changed(fl) {
				return h, name, fmt.Errorf("--%s applies to sacct output; %s is a %s history", fl, name, h.Format)
			}
		}
	}
	return h, name, nil
}
