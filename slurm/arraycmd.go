package slurm

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// CheckTaskArgs refuses a command (args) that gives an option the array
// sets for each task: --shard, --items or --finish. The error is a usage
// error.
func CheckTaskArgs(args []string) error {
	for _, own := range []string{"--shard", "--items", "--finish"} {
		if slices.ContainsFunc(args, func(a string) bool { return a == own || strings.HasPrefix(a, own+"=") }) {
			return usage.Errorf("%s: array sets it for each task", own)
		}
	}
	return nil
}

// MaxTasks caps an array's shards: 4,000,001, the largest MaxArraySize
// Slurm accepts (a site's is often 1,001: sbatch refuses what exceeds
// it). A larger count is refused before any script is printed or any
// shard file read.
const MaxTasks = 4_000_001

// CheckShards refuses a shard count outside [1, MaxTasks], naming it
// (--shards) as a usage error.
func CheckShards(n int) error {
	if n < 1 || n > MaxTasks {
		return usage.Errorf("--shards %d: want the number of shards, 1 to %d (Slurm's largest MaxArraySize)", n, MaxTasks)
	}
	return nil
}

// CheckTaskCommand checks the command (args) an array wraps before any
// script is printed: parse parses its flags as the command itself would
// (an unknown flag or a malformed value is refused here, not in every
// task), and CheckTaskArgs refuses the options the array sets. Errors are
// usage errors naming the command.
func CheckTaskCommand(args []string, parse func([]string) error) error {
	if err := parse(args); err != nil {
		return usage.Errorf("%s: %v", strings.Join(args, " "), err)
	}
	return CheckTaskArgs(args)
}

// shardArgs is the --shard option of task TaskID among a.Tasks.
func (a Array) shardArgs() []string { return []string{"--shard", "auto/" + strconv.Itoa(a.Tasks)} }

// Sweep makes a the array of sweep command args (run by the ckpt program
// bin): each task writes FILE.part-<task>.EXT for each --csv or --jsonl
// FILE of args, and the merge job merges each. It returns the files whose
// end lines say which shards are done (TaskID marks the task).
func (a *Array) Sweep(bin string, args []string) ([]string, error) {
	task := []string{bin}
	var probe []string
	for i := 0; i < len(args); i++ {
		v := args[i]
		flag, file, eq := strings.Cut(v, "=")
		if flag != "--csv" && flag != "--jsonl" {
			task = append(task, v)
			continue
		}
		if !eq {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s needs a file", flag)
			}
			file, i = args[i+1], i+1
		}
		if file == "" || file == "-" {
			return nil, fmt.Errorf("%s %q: each task needs its own file", flag, file)
		}
		// The merge job reads the parts' format from the name (so --csv
		// and --jsonl never name one file).
		want := map[string]runner.Format{"--csv": runner.FormatCSV, "--jsonl": runner.FormatJSONL}[flag]
		if f, err := runner.FormatOf(file); err != nil || f != want {
			return nil, fmt.Errorf("%s %q: the merge job needs a name ending in .%s", flag, file, want)
		}
		ext := filepath.Ext(file)
		stem := strings.TrimSuffix(file, ext)
		task = append(task, flag, stem+".part-"+TaskID+ext)
		a.Merge = append(a.Merge, []string{bin, "merge", "--out", file, stem + ".part-" + Any + ext})
		probe = append(probe, stem+".part-"+TaskID+ext)
	}
	if len(probe) == 0 {
		return nil, fmt.Errorf("give the sweep --csv FILE or --jsonl FILE: each task writes its own part of it")
	}
	a.Task = append(task, a.shardArgs()...)
	return probe, nil
}

// ReproTarget reads the reproduction's name and output folder from the
// arguments of ckpt repro (args[0] is "repro"): the first word that is not
// a flag or a flag's value, and --out (default repro-out).
func ReproTarget(args []string) (name, out string) {
	out = "repro-out"
	for i := 1; i < len(args); i++ {
		switch v := args[i]; {
		case v == "--out" && i+1 < len(args):
			out, i = args[i+1], i+1
		case strings.HasPrefix(v, "--out="):
			out = strings.TrimPrefix(v, "--out=")
		case !strings.HasPrefix(v, "-") && name == "" && (i == 1 || args[i-1] != "--workers" && args[i-1] != "--seed" && args[i-1] != "--accounting"):
			name = v
		}
	}
	return name, out
}

// Repro makes a the array of reproduction name (args: ckpt repro's
// arguments, run by the ckpt program bin, output folder out): each task
// records its shard's item log; the merge job merges the logs and
// finishes the reproduction from them. It returns the item log whose end
// line says whether a shard is done (TaskID marks the task).
func (a *Array) Repro(bin, name, out string, args []string) []string {
	stem := filepath.Join(out, name+"-items")
	cmd := append([]string{bin}, args...)
	a.Task = append(append(slices.Clone(cmd), a.shardArgs()...), "--items", stem+".part-"+TaskID+".jsonl")
	a.Merge = [][]string{
		{bin, "merge", "--out", stem + ".jsonl", stem + ".part-" + Any + ".jsonl"},
		append(slices.Clone(cmd), "--finish", stem+".jsonl"),
	}
	return []string{stem + ".part-" + TaskID + ".jsonl"}
}

// MissingShards returns the shards of n whose files (probe, TaskID
// replaced by the shard's index) are absent, unreadable, or have no end
// line of shard i/n (interrupted): those a resubmission runs.
func MissingShards(probe []string, n int) []int {
	missing := []int{}
	for i := range n {
		for _, p := range probe {
			path := strings.ReplaceAll(p, TaskID, strconv.Itoa(i))
			t, ok, err := runner.ReadTrailer(path)
			if err != nil || !ok || t.Shard != (runner.Shard{Index: i, Count: n}) {
				missing = append(missing, i)
				break
			}
		}
	}
	return missing
}

// WithoutOutputs is args without their --csv and --jsonl options (and
// the files those name): the command a dry run validates.
func WithoutOutputs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		flag, _, eq := strings.Cut(args[i], "=")
		switch {
		case flag != "--csv" && flag != "--jsonl":
			out = append(out, args[i])
		case !eq:
			i++ // the file is the next argument
		}
	}
	return out
}
