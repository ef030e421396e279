package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// arrayFlags are the flags of ckpt array: the array's, but for its time
// limit, and the binary and --resubmit.
type arrayFlags struct {
	a         slurm.Array
	bin, time string
	resubmit  bool
}

func newArrayCmd() *cobra.Command {
	var f arrayFlags
	cmd := &cobra.Command{
		Use:   "array --shards N [flags] -- COMMAND [ARGS...]",
		Short: "Print an sbatch job-array script that runs a sweep or a reproduction in N shards, then merges them",
		Long: `array prints a bash script that submits COMMAND (a ckpt sweep, or ckpt repro NAME)
as a Slurm job array of --shards tasks, at most --throttle at once, each task
running "--shard auto/N" into its own files (FILE.part-<task>.csv for --csv FILE,
--jsonl FILE likewise; for a reproduction, OUT/NAME-items.part-<task>.jsonl),
and a merge job that runs after every task succeeded (afterok) and writes the
files the unsplit command would have written (for a reproduction: merges the
item logs, then ckpt repro NAME --finish). With --resubmit, array reads the
tasks' files and submits only the shards still missing (no file, or no end line:
interrupted), with the same merge job; it prints the --array= list on stderr.`,
		Example: `  ckpt array --shards 8 --throttle 4 --time 2h -- reserve sweep --ckpt 1m,5m,30m --csv costs.csv > costs.sh
  bash costs.sh
  ckpt array --shards 16 --throttle 8 --time 1h -- repro capacity --out results | bash
  # after a failure: only the missing shards, then the merge
  ckpt array --shards 16 --throttle 8 --time 1h --resubmit -- repro capacity --out results | bash`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, probe, err := f.plan(args)
			if err != nil {
				return err
			}
			if f.resubmit {
				a.IDs = slurm.MissingShards(probe, f.a.Tasks)
				fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d shards missing: --array=%s\n", len(a.IDs), f.a.Tasks, runner.ArrayList(a.IDs))
			}
			s, err := a.Script()
			if err != nil {
				return usage(err)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), s)
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.a.Tasks, "shards", 0, "number of shards, one array task each (required)")
	fl.IntVar(&f.a.Throttle, "throttle", 0, "tasks running at once (--array=...%k; 0: no bound)")
	fl.StringVar(&f.a.Name, "job-name", "ckpt-array", "job name (the merge job is NAME.merge)")
	fl.StringVar(&f.bin, "ckpt-bin", "ckpt", "the ckpt program the jobs run")
	// The names of the previous release, hidden: --tasks is a folder in
	// reserve, --ckpt a checkpoint cost everywhere else.
	hiddenAlias(fl, "tasks", "shards")
	hiddenAlias(fl, "name", "job-name")
	hiddenAlias(fl, "ckpt", "ckpt-bin")
	fl.StringVar(&f.time, "time", "0", "time limit of each task and of the merge job, e.g. 2h or 02:00:00 (0: the partition default)")
	fl.StringArrayVar(&f.a.Extra, "sbatch-arg", nil, "further sbatch option for both jobs, e.g. --partition=cpu (repeatable)")
	fl.BoolVar(&f.resubmit, "resubmit", false, "submit only the shards whose files are missing or interrupted, then the merge job")
	return cmd
}

// plan builds the array of command args and the per-task files whose end
// lines say which shards are done (TaskID marks the task).
func (f arrayFlags) plan(args []string) (slurm.Array, []string, error) {
	if err := slurm.CheckShards(f.a.Tasks); err != nil {
		return slurm.Array{}, nil, err
	}
	if args[0] == "ckpt" || filepath.Base(args[0]) == "ckpt" {
		args = args[1:]
	}
	sub, _, err := newRoot().Find(args)
	if err != nil || sub.Flags().Lookup("shard") == nil || !sub.HasParent() {
		return slurm.Array{}, nil, usagef("%q: not a ckpt command with --shard (a sweep, or repro NAME)", strings.Join(args, " "))
	}
	if err := slurm.CheckTaskCommand(args, sub.ParseFlags); err != nil {
		return slurm.Array{}, nil, err
	}
	if err := dryRun(args, f.a.Tasks); err != nil && !errors.Is(err, runner.ErrDryRun) {
		return slurm.Array{}, nil, err
	}
	limit, err := nonNegDurationFlag("time", f.time)
	if err != nil {
		return slurm.Array{}, nil, err
	}
	a := f.a
	a.Time = limit
	if sub.Name() == "repro" && sub.Parent() != nil && !sub.Parent().HasParent() {
		name, out := slurm.ReproTarget(args)
		if !isReproduction(name) {
			return a, nil, usagef("repro: name the reproduction before its flags (ckpt array ... -- repro NAME --out DIR)")
		}
		return a, a.Repro(f.bin, name, out, args), nil
	}
	probe, err := a.Sweep(f.bin, args)
	if err != nil {
		return a, nil, usage(err)
	}
	return a, probe, nil
}

// dryRun runs the sweep a task will run, as its first shard, under
// runner.DryRun with its --csv and --jsonl files left out: the whole
// request is validated, no point is computed and no file is written.
func dryRun(args []string, shards int) error {
	if filepath.Base(args[0]) == "repro" {
		return nil // repro NAME validates its name here; its options when run
	}
	root := newRoot()
	root.SetArgs(append(slurm.WithoutOutputs(args), "--shard", "1/"+strconv.Itoa(shards)))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	return root.ExecuteContext(runner.DryRun(context.Background()))
}
