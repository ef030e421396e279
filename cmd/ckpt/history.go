package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/trace"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// readHistoryFlags reads a walltime history (- for stdin) with
// slurm.ReadHistory, the one reader of every layout (format "" detects
// it): --states and
// --censored (comma lists of sacct states of lone jobs: complete,
// censored) apply to sacct output only, --column to CSV only.
func readHistoryFlags(cmd *cobra.Command, file string, format trace.HistoryFormat, column, states, censored string) (slurm.History, string, error) {
	complete, err := listFlag("states", states)
	if err != nil {
		return slurm.History{}, "", err
	}
	cens, err := listFlag("censored", censored)
	if err != nil {
		return slurm.History{}, "", err
	}
	var in io.Reader = cmd.InOrStdin()
	name := "stdin"
	if file != "-" {
		fh, err := inputerr.Open(file) // names the file: --history's or chain history's
		if err != nil {
			return slurm.History{}, "", err
		}
		defer fh.Close()
		in, name = fh, file
	}
	h, err := slurm.ReadHistory(in, name, slurm.HistoryOptions{Format: format, Column: column, States: slurm.RunsOptions{Complete: complete, Censored: cens}})
	var ue *inputerr.Error
	if errors.As(err, &ue) && (ue.Field == "Complete" || ue.Field == "Censored") {
		return h, name, usagef("--%s %v", map[string]string{"Complete": "states", "Censored": "censored"}[ue.Field], ue.Err)
	}
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

// fitInfos turns FitHistory's ranked candidates into the report's rows.
func fitInfos(cands []distribution.Candidate) []fitInfo {
	var infos []fitInfo
	for _, c := range cands {
		info := fitInfo{Family: c.Family, AIC: c.AIC, BIC: c.BIC, KS: finite(c.KS)}
		if c.Dist != nil {
			info.Spec = c.Dist.String()
		}
		if c.Skipped != "" {
			info = fitInfo{Family: c.Family, Note: "skipped: " + c.Skipped}
		}
		infos = append(infos, info)
	}
	return infos
}
