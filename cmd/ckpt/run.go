package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/slurm"
)

type runFlags struct {
	slurm.JobSettings
	dir, coordinator string
	scale            float64
	stallLimit       int
	json             bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] -- APP ARGS...",
		Short: "Run one reservation of a chain inside its Slurm job (the job-side runner)",
		Long: `Run the application of one reservation of a chain submitted by
ckpt reserve --sbatch: the job script calls "ckpt run -- APP ARGS...". The
runner submits the next reservations (the rolling window), learns the job's end
time (SLURM_JOB_END_TIME, else scontrol), sends the app --app-signal at
end - C - step - margin when the reservation ends with a checkpoint, records the
outcome in the chain folder and in the job's comment, and exits 0 only when
the work is complete, so that Slurm cancels the rest of the chain. The app
protocol (CKPT_* variables, CKPT_PROGRESS_FILE, exit codes) is in
"go doc github.com/ckpt-hpc/ckpt/slurm"; examples/count.sh and count.py follow it.`,
		Example: `  # job.sh, submitted by: ckpt reserve --history runs.txt --sbatch job.sh | bash
  #!/usr/bin/env bash
  ckpt run --margin 20s -- ./my_app --input data`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // the app's own flags are not ckpt's
	fl.StringVar(&f.dir, "chain-dir", os.Getenv("CKPT_CHAIN_DIR"), "chain folder (default $CKPT_CHAIN_DIR, set by the submission)")
	fl.StringVar(&f.Reservation, "reservation", os.Getenv("CKPT_RESERVATION"), "reservation index, 1-based (default $CKPT_RESERVATION)")
	fl.StringVar(&f.Margin, "margin", "15s", "signal the app this long before end - C: covers signal delivery and the app's reaction")
	fl.StringVar(&f.After, "after-checkpoint", "exit", "what the app does after its checkpoint: exit, or continue until done or the time limit")
	fl.StringVar(&f.End, "end", "", "the job's end time as Unix seconds (default $SLURM_JOB_END_TIME, else scontrol)")
	fl.StringVar(&f.coordinator, "coordinator", "", "checkpoint coordinator URL (ckpt serve): ask it for the file system before signalling the app (runs the app under ckpt coord gate; bearer token $CKPT_COORD_TOKEN)")
	fl.Float64Var(&f.scale, "scale", 0, "run the plan S times faster than real time: a reservation of length L lasts L/S seconds and the runner stops the app then (default: the chain's scale, else 1, Slurm's end)")
	fl.StringVar(&f.Grace, "start-grace", "2s", "signal the app no earlier than this after starting it (its handler is installed)")
	fl.StringVar(&f.AppSignal, "app-signal", "USR1", "the signal that asks the app to checkpoint: USR1, TERM (Hugging Face, NeMo), USR2 or INT")
	fl.StringVar(&f.AppGrace, "app-grace", "0", "kill an app sent TERM or INT this long after (never after the reservation's end; 0: at the end)")
	fl.StringVar(&f.StepTime, "step-time", "0", "the app's step time, added to the lead (frameworks save at a step's end; 0: as the app reports it)")
	fl.IntVar(&f.stallLimit, "stall-limit", slurm.DefaultStallLimit, "stop the chain (cancel the rest, say why) after this many reservations in a row without new saved progress; 0 never")
	addJSONFlag(fl, &f.json)
	return cmd
}

// config is the runner's configuration: the flags, completed by
// slurm.JobSettings.Complete.
func (f runFlags) config(args []string) (slurm.RunConfig, error) {
	cfg := slurm.RunConfig{Dir: f.dir, App: args, JobID: os.Getenv("SLURM_JOB_ID"), Env: os.Environ(), Scale: f.scale, StallLimit: f.stallLimit}
	if f.dir == "" && f.Reservation == "" {
		return cfg, usagef("no chain folder: give --chain-dir or run inside a reservation submitted by ckpt reserve --sbatch")
	}
	if err := f.Complete(&cfg, os.Getenv); err != nil {
		if name, ue := flagOfField(err, runFields); name != "" {
			return cfg, usagef("--%s %v", name, ue.Err)
		}
		return cfg, err
	}
	if f.dir == "" { // after the flags: a bad value is named first
		return cfg, usagef("no chain folder: give --chain-dir or run inside a reservation submitted by ckpt reserve --sbatch")
	}
	return cfg, nil
}

// runFields names the flag of each field slurm.JobSettings.Complete sets.
var runFields = map[string]string{"Reservation": "reservation", "Scale": "scale", "Continue": "after-checkpoint", "End": "end",
	"Margin": "margin", "Grace": "start-grace", "StallLimit": "stall-limit", "AppSignal": "app-signal", "AppGrace": "app-grace", "StepTime": "step-time"}

func runRun(cmd *cobra.Command, f runFlags, args []string) error {
	cfg, err := f.config(args)
	if err != nil {
		return err
	}
	cfg.Stdout, cfg.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.coordinator != "" && cfg.AppSignal != syscall.SIGUSR1 { // the gate asks the server on USR1 and sends the app USR1
		return usagef("--app-signal %s: with --coordinator the app's signal is USR1", f.AppSignal)
	}
	if f.coordinator != "" { // the gate stands between the runner's signal and the app
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		// a grant later than the margin could not end before the allocation
		cfg.App = append([]string{exe, "coord", "gate", "--server", f.coordinator, "--max-wait", f.Margin, "--"}, cfg.App...)
	}
	o, status, err := slurm.Run(cmd.Context(), cfg, slurm.Exec{}, slurm.RealClock{})
	if err != nil {
		return err
	}
	if f.json {
		if err := writeJSON(cmd.ErrOrStderr(), o); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt run: reservation %d: %s\n", o.Reservation, o.Summary())
	}
	if status != slurm.ExitDone {
		return fmt.Errorf("reservation %d ended %s: the work is not complete", o.Reservation, o.Outcome)
	}
	return nil
}
