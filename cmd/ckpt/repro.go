package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/repro/cloudckpt"
	"github.com/ckpt-hpc/ckpt/repro/coopio"
	"github.com/ckpt-hpc/ckpt/repro/profiles"
	"github.com/ckpt-hpc/ckpt/repro/stochastic"
	"github.com/ckpt-hpc/ckpt/repro/varproc"
)

// reproduction is one `ckpt repro NAME`.
type reproduction struct {
	paper string
	run   func(ctx context.Context, cfg repro.Config) error
}

// reproductions maps `ckpt repro NAME` to the paper it reproduces.
var reproductions = map[string]reproduction{
	"reservation": {"Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020)", stochastic.Run},
	"profiles":    {"Profiles of upcoming HPC Applications and their Impact on Reservation Strategies (IEEE TPDS 2021)", profiles.Run},
	"cloud":       {"Optimization of Cloud Task Processing with Checkpoint-Restart Mechanism (SC 2013)", cloudckpt.Run},
	"coop":        {"Optimal Cooperative Checkpointing for Shared HPC Platforms (APDCM 2018)", coopio.Run},
	"capacity":    {"Scheduling Jobs Under a Variable Number of Processors (Inria RR-9582, 2025)", varproc.Run},
}

func newReproCmd() *cobra.Command {
	var out string
	var quick bool
	var workers int
	names := make([]string, 0, len(reproductions))
	for n := range reproductions {
		names = append(names, n)
	}
	sort.Strings(names)
	cmd := &cobra.Command{
		Use:   "repro NAME",
		Short: "Reproduce a paper's tables and figures (CSV + PNG/SVG, the paper's numbers beside ours)",
		Long: "Reproduce the experiments of one of the papers that define ckpt. Available: " + strings.Join(names, ", ") + `.
Outputs go to --out/NAME: one CSV per table or figure, the figures as PNG and
SVG, and comparisons.csv with the paper's numbers beside ours. The comparison
tables are also printed. --quick shrinks every experiment to a smoke test.`,
		Example: `  ckpt repro reservation --quick
  ckpt repro reservation --out results --workers 2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, ok := reproductions[args[0]]
			if !ok {
				return usagef("unknown reproduction %q (available: %s)", args[0], strings.Join(names, ", "))
			}
			if workers < 0 {
				return usagef("--workers must be >= 0, got %d", workers)
			}
			cfg := repro.Config{Dir: filepath.Join(out, args[0]), Quick: quick, Workers: workers, Log: cmd.OutOrStdout()}
			start := time.Now()
			fmt.Fprintf(os.Stderr, "reproducing %s into %s\n", r.paper, cfg.Dir)
			if err := r.run(cmd.Context(), cfg); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "done in %s; outputs in %s\n", time.Since(start).Round(time.Millisecond), cfg.Dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "repro-out", "output folder")
	cmd.Flags().BoolVar(&quick, "quick", false, "small smoke-test version of every experiment")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel workers (0 = all cores)")
	return cmd
}
