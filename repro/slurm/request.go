package slurm

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Paper is the paper `ckpt repro slurm` reproduces.
const Paper = "Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020), Section 5 on a real Slurm"

// Request is `ckpt repro slurm`: the experiment of DesignFor(Seed, Quick,
// Jobs, MixRuns) run into Out/slurm on the cluster of Config (its Scale
// and Slots completed by Config.Complete), or with Resummarize its
// summaries recomputed from Out/slurm/jobs.csv, submitting nothing (a
// Scale of 0 then reads the scale from jobs.csv). Errors name the field
// out of range: Jobs, MixRuns, Slots, Scale.
type Request struct {
	Out           string
	Quick         bool
	Seed          uint64
	Jobs, MixRuns int
	Config        Config
	Resummarize   bool
	// Log receives the comparison tables, Config.Progress the progress.
	Log io.Writer
}

// RunRequest runs r on the cluster cl: one line and an error when no
// cluster answers.
func RunRequest(ctx context.Context, cl slurm.Cluster, r Request) error {
	out := filepath.Join(r.Out, "slurm")
	if r.Resummarize {
		d, err := DesignFor(r.Seed, r.Quick, r.Jobs, r.MixRuns)
		if err != nil {
			return err
		}
		if !slurm.ValidScale(r.Config.Scale) {
			return usage.Fieldf("Scale", "%v: want 0 (read from jobs.csv) or a factor in [1e-3, 1e6]", r.Config.Scale)
		}
		d.RunScale = r.Config.Scale
		return Resummarize(ctx, repro.Config{Dir: out, Quick: r.Quick, Log: r.Log}, cl, d)
	}
	cpus, err := Available(ctx, cl)
	if err != nil {
		return err
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	d, err := DesignFor(r.Seed, r.Quick, r.Jobs, r.MixRuns)
	if err != nil {
		return err
	}
	cfg := r.Config
	if err := cfg.Complete(r.Quick, cpus); err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(cfg.Progress, "reproducing %s into %s\n", Paper, out)
	if err := Run(ctx, repro.Config{Dir: out, Quick: r.Quick, Log: r.Log, Progress: cfg.Progress}, cfg, d); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Progress, "done in %s; outputs in %s\n", time.Since(start).Round(time.Second), out)
	return nil
}
