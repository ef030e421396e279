//go:build !lite

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	reproslurm "github.com/ckpt-hpc/ckpt/repro/slurm"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// addSlurmReproFlags defines the flags that only `ckpt repro slurm`
// reads, bound to its request.
func addSlurmReproFlags(fl *pflag.FlagSet, r *reproslurm.Request) {
	c := &r.Config
	fl.Float64Var(&c.Scale, "scale", 0, "slurm: paper seconds per real second (default: the expected node time over the slots in 30 minutes, at least 20; --quick 30)")
	fl.IntVar(&c.Slots, "slots", 32, "slurm: chains in flight (at most the node's CPUs)")
	fl.IntVar(&r.Jobs, "jobs-per-cell", 30, "slurm: jobs per application and strategy (the paper: 500; the default keeps a 2-core node's slurmd below about one job launch a second); Table 4's mix scales with it")
	fl.IntVar(&r.MixRuns, "mix-runs", 2, "slurm: runs of Table 4's mix (the paper: 10)")
	parsedVar(fl, &c.Margin, "slurm-margin", "100ms", "slurm: the runner's --margin (real time)", wallclock(nonNeg))
	parsedVar(fl, &c.Grace, "start-grace", "200ms", "slurm: the runner's --start-grace (real time)", wallclock(positive))
	fl.BoolVar(&c.PaperCosts, "paper-costs", false, "slurm: plan with the paper's costs (a checkpoint reserves C), whose milestones the run cannot reach; by default C + scale × (--slurm-margin + 1s, the stand-in's late start)")
	hiddenAlias(fl, "jobs", "jobs-per-cell") // the previous name: --jobs is a file elsewhere
	fl.BoolVar(&r.Resummarize, "resummarize", false, "slurm: recompute cells.csv and comparisons.csv from --out/slurm/jobs.csv (same --seed, --jobs-per-cell, --mix-runs; --scale for a jobs.csv without wait_real_s), submitting nothing")
}

// runSlurmRepro runs `ckpt repro slurm`: Section 5 on the cluster that
// answers sinfo (one line and exit 1 without one).
func runSlurmRepro(cmd *cobra.Command, f reproFlags) error {
	r := f.slurm
	r.Out, r.Quick, r.Seed, r.Log = f.req.Out, f.req.Quick, reproslurm.DefaultSeed, cmd.OutOrStdout()
	r.Config.Progress = cmd.ErrOrStderr()
	if cmd.Flags().Changed("seed") {
		r.Seed = f.seed
	}
	err := reproslurm.RunRequest(cmd.Context(), slurm.Exec{}, r)
	if name, ue := flagOfField(err, map[string]string{"Jobs": "jobs-per-cell", "MixRuns": "mix-runs", "Slots": "slots", "Scale": "scale"}); name != "" {
		return usagef("--%s %v", name, ue.Err)
	}
	return err
}

// newStandinCmd is the stand-in application of `ckpt repro slurm`
// (hidden): run under ckpt run, it works for its walltime and writes and
// reads checkpoints of its size (package repro/slurm, StandIn).
func newStandinCmd() *cobra.Command {
	var s reproslurm.StandIn
	cmd := &cobra.Command{
		Use:    "standin --walltime T --c C --r R [flags]",
		Short:  "The stand-in application of ckpt repro slurm (run under ckpt run)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := s.Run(cmd.Context(), os.Getenv, cmd.ErrOrStderr()); code != 0 {
				return fmt.Errorf("standin: exit %d (work not complete: checkpointed, stopped or failed)", code)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&s.Walltime, "walltime", 0, "the job's work (paper seconds)")
	fl.Float64Var(&s.C, "c", 0, "checkpoint time of a nominal checkpoint (paper seconds)")
	fl.Float64Var(&s.R, "r", 0, "restart time of a nominal checkpoint (paper seconds)")
	fl.Float64Var(&s.Variation, "variation", 0, "checkpoint size drawn uniform within ±this fraction of C")
	fl.Uint64Var(&s.Seed, "seed", 0, "seed of the sizes")
	fl.Float64Var(&s.BytesPerSecond, "bytes-per-second", 4096, "checkpoint bytes per second of C")
	parsedVar(fl, &s.Margin, "margin", "0s", "start a checkpoint larger than C this long before end - C'", wallclock(nonNeg))
	return cmd
}
