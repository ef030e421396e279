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
		Short: "Run APP, asking the coordinator for the file system before forwarding the checkpoint signal",
		Long: `gate is what "ckpt run --coordinator URL" runs in place of the app: on SIGUSR1
(the runner's checkpoint signal) it registers the job, acquires the file
system, forwards SIGUSR1 once granted and renews the lease until the app
writes $CKPT_PROGRESS_FILE (its checkpoint is done) or exits, then releases
it. Other signals are forwarded at once. The job is --id (default the chain
and reservation, $CKPT_CHAIN-r$CKPT_RESERVATION), on $SLURM_JOB_NUM_NODES
nodes (default 1), with C = $CKPT_CHECKPOINT_TIME. It exits with the app's
status. A coordinator that cannot be reached is logged, not fatal; a grant
that does not come within --max-wait (ckpt run passes its --margin: a
checkpoint granted later could not end before the allocation does) is
withdrawn and the signal forwarded anyway.`,
		Example: `  ckpt run --coordinator http://10.0.0.5:7070 -- ./my_app   # runs ckpt coord gate -- ./my_app`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			job := client.GateJob(f.id, os.Getenv)
			f.id = job.ID
			cl, err := f.client(false)
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
