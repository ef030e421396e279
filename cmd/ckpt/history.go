package main

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/trace"
)

// readHistoryFlags reads a walltime history (- for stdin) through
// slurm.HistorySource, the one path from a history file to its runs
// (format "" detects the layout): --states and --censored (comma lists of
// sacct states of lone jobs: complete, censored) apply to sacct output
// only, and must be states sacct reports; --column applies to CSV only.
func readHistoryFlags(cmd *cobra.Command, file string, format trace.HistoryFormat, column, states, censored string) (slurm.History, string, error) {
	src := slurm.HistorySource{Path: file, Stdin: cmd.InOrStdin(), Format: format, Column: column}
	var err error
	if src.States, err = listFlag("states", states); err != nil {
		return slurm.History{}, "", err
	}
	if src.Censored, err = listFlag("censored", censored); err != nil {
		return slurm.History{}, "", err
	}
	fl := cmd.Flags()
	if !fl.Changed("states") && !fl.Changed("censored") {
		src.States, src.Censored = nil, nil // the defaults, which any layout takes
	}
	h, name, err := src.Read()
	return h, name, reserveFlags{history: file}.fieldError(fl, err)
}
