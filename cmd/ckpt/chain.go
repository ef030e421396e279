package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// addSbatchFlags defines the flags of ckpt reserve --sbatch beyond --sbatch
// and --job-name.
func addSbatchFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArray("sbatch-arg", nil, "further sbatch option for every reservation, e.g. --partition=gpu (repeatable)")
	fl.String("ahead", strconv.Itoa(slurm.DefaultAhead), "reservations pending beyond the running one (the runners submit the rest), or all to submit the whole chain up front")
}

// checkSbatchFlags refuses the --sbatch options given without --sbatch.
func checkSbatchFlags(cmd *cobra.Command, sbatch string) error {
	if sbatch != "" {
		return nil
	}
	for _, name := range []string{"job-name", "sbatch-arg", "ahead"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s needs --sbatch JOB", name)
		}
	}
	return nil
}

// parseAhead reads --ahead: a number >= 1, or all (0).
func parseAhead(s string) (int, error) {
	if s == "all" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--ahead %q: want a number >= 1 or all", s)
	}
	return n, nil
}

// writeSbatchChain prints the submission script of plan r.
func writeSbatchChain(cmd *cobra.Command, w io.Writer, r *reservation.Result, job, name string) error {
	extra, _ := cmd.Flags().GetStringArray("sbatch-arg")
	aheadFlag, _ := cmd.Flags().GetString("ahead")
	ahead, err := parseAhead(aheadFlag)
	if err != nil {
		return usage(err)
	}
	ch := slurm.Chain{Job: job, Name: name, Extra: extra, Ahead: ahead}
	for _, rv := range r.Reservations {
		ch.Steps = append(ch.Steps, slurm.Step{Time: rv.Length, Checkpoint: rv.Checkpoint, CheckpointTime: rv.CheckpointTime,
			Restart: rv.Restart > 0, RestartTime: rv.Restart, Milestone: rv.Milestone})
	}
	script, err := ch.Script()
	if err != nil {
		return usage(err)
	}
	_, err = io.WriteString(w, script)
	return err
}
