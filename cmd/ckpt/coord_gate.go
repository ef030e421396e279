package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/client"
)

func newCoordGateCmd(f *coordFlags) *cobra.Command {
	var maxWait time.Duration
	cmd := &cobra.Command{Use: "gate [flags] -- APP ARGS...",
		Short:   "Run APP, asking the coordinator for the file system before forwarding the checkpoint signal",
		Long:    client.GateHelp,
		Example: `  ckpt run --coordinator http://10.0.0.5:7070 -- ./my_app   # runs ckpt coord gate -- ./my_app`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			job, err := client.GateJob(f.id, os.Getenv)
			if err != nil {
				return err
			}
			cl, err := client.ForJob(f.url, f.tokenFile, job.ID, &f.jobToken, false, f.timeout)
			if err != nil {
				return err
			}
			job.JobToken = f.jobToken // --job-token or $CKPT_JOB_TOKEN (empty: the gate draws one)
			return client.RunGate(cmd.Context(), client.GateConfig{Client: cl, Job: job, App: args, MaxWait: maxWait,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Log: cmd.ErrOrStderr()})
		}}
	parsedVar(cmd.Flags(), &maxWait, "max-wait", "0", "longest wait for a grant before checkpointing without it (default 0: no bound)", wallclock(nonNeg))
	cmd.Flags().SetInterspersed(false)
	return cmd
}
