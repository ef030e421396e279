package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/trace"
)

// addSbatchFlags defines the flags of ckpt reserve --sbatch beyond --sbatch
// and --job-name.
func addSbatchFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArray("sbatch-arg", nil, "further sbatch option for every reservation, e.g. --partition=gpu (repeatable; or give them all after --)")
	fl.String("ahead", strconv.Itoa(slurm.DefaultAhead), "reservations pending beyond the running one (the runners submit the rest), or all to submit the whole chain up front")
}

// sbatchPassThrough accepts arguments only after --: the sbatch options
// that ckpt reserve --sbatch passes to every reservation.
func sbatchPassThrough(cmd *cobra.Command, args []string) error {
	if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
		return usagef("unexpected argument %q (sbatch options go after --)", args[0])
	}
	return nil
}

// checkSbatchFlags refuses the --sbatch options given without --sbatch.
func checkSbatchFlags(cmd *cobra.Command, sbatch string) error {
	if sbatch != "" {
		return nil
	}
	if args := cmd.Flags().Args(); len(args) > 0 {
		return usagef("sbatch options after -- (%q) apply only with --sbatch", args[0])
	}
	for _, name := range []string{"job-name", "sbatch-arg", "ahead"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s %q applies only with --sbatch", name, cmd.Flags().Lookup(name).Value.String())
		}
	}
	return nil
}

// writeChain is the one path from a plan's steps (slurm.PlanSteps,
// slurm.MemPlanSteps) to a submission script, for ckpt reserve --sbatch
// with or without --profile: the --sbatch options (--ahead, --sbatch-arg,
// the options after --) mapped to slurm.ChainOptions, the script made and
// checked against the cluster's limits by slurm.Submission, then printed.
func writeChain(cmd *cobra.Command, steps []slurm.Step, job, name string) error {
	extra, _ := cmd.Flags().GetStringArray("sbatch-arg")
	extra = append(extra, cmd.Flags().Args()...) // the sbatch options after --
	aheadFlag, _ := cmd.Flags().GetString("ahead")
	ahead, err := slurm.ParseAhead(aheadFlag)
	if err != nil {
		return usagef("--ahead %s", err)
	}
	o := slurm.ChainOptions{Job: job, Name: name, Ahead: ahead, Extra: extra}
	script, warning, err := slurm.Submission(cmd.Context(), slurm.Exec{}, steps, o)
	if warning != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: %s\n", warning)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(cmd.OutOrStdout(), script)
	return err
}

func newChainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chain",
		Short: "Report or cancel a reservation chain submitted by ckpt reserve --sbatch",
	}
	cmd.AddCommand(newChainStatusCmd(), newChainCancelCmd(), newChainHistoryCmd())
	return cmd
}

func newChainStatusCmd() *cobra.Command {
	var js bool
	var plotPath, htmlPath string
	cmd := &cobra.Command{
		Use:   "status ID",
		Short: "Show which reservation runs, the progress saved, what is pending and the outcome",
		Example: `  ckpt chain status slant-20260101-120000-4242 --json
  ckpt chain status slant-20260101-120000-4242 --html chain.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckPictures(plotPath, htmlPath); err != nil {
				return err
			}
			st, err := loadChain(args[0])
			if err != nil {
				return err
			}
			cs, err := slurm.Status(cmd.Context(), slurm.Exec{}, st)
			if err == nil {
				err = report.WritePictures(plotPath, htmlPath, slurm.ChainPictures{State: st, Status: cs, Now: time.Now()})
			}
			return printer(cmd, js, nil)(cs, err)
		},
	}
	addJSONFlag(cmd.Flags(), &js)
	addPictureFlags(cmd.Flags(), &plotPath, &htmlPath, "the chain's reservations on a time line (reserved, ran by outcome, checkpoints)")
	return cmd
}

func newChainCancelCmd() *cobra.Command {
	var js bool
	cmd := &cobra.Command{
		Use:     "cancel ID",
		Short:   "Cancel every pending or running reservation of a chain",
		Example: "  ckpt chain cancel slant-20260101-120000-4242 --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := loadChain(args[0])
			if err != nil {
				return err
			}
			ids, err := slurm.Cancel(cmd.Context(), slurm.Exec{}, st)
			if err != nil {
				return err
			}
			c := slurm.Cancelled{ID: st.ID, Jobs: ids}
			if js {
				return writeJSON(cmd.OutOrStdout(), c)
			}
			return c.WriteText(cmd.OutOrStdout())
		},
	}
	addJSONFlag(cmd.Flags(), &js)
	return cmd
}

type chainHistoryFlags struct {
	fit, states, censored string
	json                  bool
}

func newChainHistoryCmd() *cobra.Command {
	var f chainHistoryFlags
	cmd := &cobra.Command{
		Use:   "history FILE",
		Short: "Learn a walltime law from sacct records: chains as one run, unfinished runs censored",
		Long: `Read sacct --parsable2 output (- for stdin) and learn the walltime law of the job:
the reservations of a chain (same chain id in the comment, else the same name
NAME.rK) count as one run whose walltime is the work done (its final progress,
recorded by ckpt run in the job comment); runs that never finished (TIMEOUT, a
chain that ran out of reservations) are right-censored observations. --fit
empirical is the Kaplan-Meier estimate; a family or auto (least BIC) maximises
the censored likelihood. The report says how many runs were complete, censored
and skipped, and why; the law's spec is what ckpt reserve --dist takes.`,
		Example: `  sacct -X --parsable2 -S 2026-01-01 --format JobID,JobName,State,ElapsedRaw,ExitCode,Comment > runs.txt
  ckpt chain history runs.txt --fit auto`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runChainHistory(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.fit, "fit", "auto", "empirical (Kaplan-Meier), auto (least BIC), or one of "+strings.Join(distribution.FitFamilies(), ", ")+" (censored runs: not truncnormal)")
	fl.StringVar(&f.states, "states", "COMPLETED", "sacct states of lone jobs that are complete runs")
	fl.StringVar(&f.censored, "censored", "TIMEOUT", "sacct states of lone jobs that are censored runs (still running at their elapsed time)")
	addJSONFlag(fl, &f.json)
	return cmd
}

func runChainHistory(cmd *cobra.Command, f chainHistoryFlags, file string) error {
	fl := cmd.Flags()
	src := slurm.HistorySource{Path: file, Stdin: cmd.InOrStdin(), Format: trace.HistorySacct, Fit: f.fit}
	src, err := withStates(fl, src, f.states, f.censored)
	if err != nil {
		return err
	}
	h, learned, err := src.Learn()
	if err != nil {
		return reserveFlags{history: file}.fieldError(fl, err)
	}
	return printer(cmd, f.json, nil)(slurm.HistoryReport{Name: src.Name(), History: h, Learned: learned}, nil)
}

// loadChain finds chain id (or a chain folder path) with slurm.Find.
func loadChain(id string) (*slurm.State, error) {
	st, err := slurm.Find(id)
	return st, usage(err)
}
