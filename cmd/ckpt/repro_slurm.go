package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	reproslurm "github.com/ckpt-hpc/ckpt/repro/slurm"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// slurmReproFlags are the flags that only `ckpt repro slurm` reads.
type slurmReproFlags struct {
	scale            float64
	slots, jobs, mix int
	margin, grace    float64
	resummarize      bool
}

func addSlurmReproFlags(fl *pflag.FlagSet, f *slurmReproFlags) {
	fl.Float64Var(&f.scale, "scale", 0, "slurm: paper seconds per real second (default: the expected node time over the slots in 30 minutes, at least 20; --quick 30)")
	fl.IntVar(&f.slots, "slots", 32, "slurm: chains in flight (at most the node's CPUs)")
	fl.IntVar(&f.jobs, "jobs-per-cell", 30, "slurm: jobs per application and strategy (the paper: 500; the default keeps a 2-core node's slurmd below about one job launch a second); Table 4's mix scales with it")
	fl.IntVar(&f.mix, "mix-runs", 2, "slurm: runs of Table 4's mix (the paper: 10)")
	parsedVar(fl, &f.margin, "slurm-margin", "100ms", "slurm: the runner's --margin (real time)", nonNeg)
	parsedVar(fl, &f.grace, "start-grace", "200ms", "slurm: the runner's --start-grace (real time)", positive)
	hiddenAlias(fl, "jobs", "jobs-per-cell") // the previous name: --jobs is a file elsewhere
	fl.BoolVar(&f.resummarize, "resummarize", false, "slurm: recompute cells.csv and comparisons.csv from --out/slurm/jobs.csv (same --seed, --jobs-per-cell, --mix-runs; --scale for a jobs.csv without wait_real_s), submitting nothing")
}

// runSlurmRepro runs `ckpt repro slurm`: Section 5 on the cluster that
// answers sinfo (one line and exit 1 without one).
func runSlurmRepro(cmd *cobra.Command, f reproFlags) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	sf := f.slurm
	r := reproslurm.Request{Out: f.req.Out, Quick: f.req.Quick, Seed: reproslurm.DefaultSeed, Jobs: sf.jobs, MixRuns: sf.mix, Resummarize: sf.resummarize, Log: cmd.OutOrStdout(),
		Config: reproslurm.Config{Ckpt: exe, Scale: sf.scale, Slots: sf.slots, Margin: time.Duration(sf.margin * float64(time.Second)),
			Grace: time.Duration(sf.grace * float64(time.Second)), BytesPerSecond: 4096, Poll: 250 * time.Millisecond, Progress: cmd.ErrOrStderr()}}
	if cmd.Flags().Changed("seed") {
		r.Seed = f.seed
	}
	err = reproslurm.RunRequest(cmd.Context(), slurm.Exec{}, r)
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
	var margin float64
	cmd := &cobra.Command{
		Use:    "standin --walltime T --c C --r R [flags]",
		Short:  "The stand-in application of ckpt repro slurm (run under ckpt run)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s.Margin = time.Duration(margin * float64(time.Second))
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
	parsedVar(fl, &margin, "margin", "0s", "start a checkpoint larger than C this long before end - C'", nonNeg)
	return cmd
}
