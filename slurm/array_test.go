package slurm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
	"github.com/ckpt-hpc/ckpt/usage"
)

// fakeSbatch is an sbatch that records its arguments and script (the
// heredoc on its stdin) and prints a job id.
const fakeSbatch = `#!/usr/bin/env bash
n=$(( $(ls "$LOG" | grep -c args) + 1 ))
printf '%s\n' "$@" > "$LOG/$n.args"
cat > "$LOG/$n.script"
echo "$((100 + n));cluster"
`

// TestArrayScriptUnderBash runs the script with a fake sbatch, then each
// recorded job script with a fake ckpt: bash itself checks the quoting,
// the task index and the glob.
func TestArrayScriptUnderBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	os.Mkdir(log, 0o755)
	os.WriteFile(filepath.Join(dir, "sbatch"), []byte(fakeSbatch), 0o755)
	os.WriteFile(filepath.Join(dir, "ckpt"), []byte("#!/usr/bin/env bash\nprintf '<%s>' \"$@\"; echo\n"), 0o755)
	a := Array{Name: "fig2", Tasks: 8, Throttle: 3, Time: 5400, Extra: []string{"--partition=debug"},
		Task:  []string{"ckpt", "reserve", "sweep", "--csv", "my part-" + TaskID + ".csv", "--shard", "auto/8"},
		Merge: [][]string{{"ckpt", "merge", "--out", "all.csv", "my part-" + Any + ".csv"}}}
	script, err := a.Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "LOG="+log)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "array 101, merge 102" {
		t.Fatalf("script: %v: %s", err, out)
	}
	args1, _ := os.ReadFile(filepath.Join(log, "1.args"))
	args2, _ := os.ReadFile(filepath.Join(log, "2.args"))
	for _, want := range []string{"--array=0-7%3", "--time=01:30:00", "--partition=debug", "--job-name=fig2", "--output=fig2-%A_%a.out"} {
		if !strings.Contains(string(args1), want+"\n") {
			t.Errorf("array job arguments lack %s:\n%s", want, args1)
		}
	}
	for _, want := range []string{"--dependency=afterok:101", "--kill-on-invalid-dep=yes", "--job-name=fig2.merge"} {
		if !strings.Contains(string(args2), want+"\n") {
			t.Errorf("merge job arguments lack %s:\n%s", want, args2)
		}
	}
	run := func(n, env string) string {
		c := exec.Command("bash", filepath.Join(log, n+".script"))
		c.Dir = dir
		c.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), env)
		o, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("job script %s: %v: %s", n, err, o)
		}
		return string(o)
	}
	if got := run("1", "SLURM_ARRAY_TASK_ID=5"); got != "<reserve><sweep><--csv><my part-5.csv><--shard><auto/8>\n" {
		t.Errorf("task 5 ran %q", got)
	}
	os.WriteFile(filepath.Join(dir, "my part-0.csv"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "my part-1.csv"), nil, 0o644)
	if got := run("2", "X=1"); got != "<merge><--out><all.csv><my part-0.csv><my part-1.csv>\n" {
		t.Errorf("merge ran %q", got)
	}
	// A resubmission: the listed tasks; none at all: only the merge job.
	a.IDs = []int{1, 2, 3, 6}
	if a.Spec() != "1-3,6%3" {
		t.Errorf("Spec = %q", a.Spec())
	}
	a.IDs = []int{}
	script, _ = a.Script()
	if strings.Contains(script, "--array=") || strings.Contains(script, "--dependency") {
		t.Errorf("nothing to resubmit, yet:\n%s", script)
	}
	for _, bad := range []Array{{Name: "a b", Tasks: 1}, {Name: "x", Tasks: 0}, {Name: "x", Tasks: 2, Throttle: -1},
		{Name: "x", Tasks: 2, Task: []string{"c"}, Merge: [][]string{{"m"}}, Extra: []string{"--array=1"}},
		{Name: "x", Tasks: 2, Task: []string{"c"}, Merge: [][]string{{"m"}}, IDs: []int{2}}} {
		if _, err := bad.Script(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestArrayReproOnTheLocalCluster runs the capacity reproduction (quick)
// as a 3-task array with a throttle of 2 and its merge job on the real
// cluster, and checks every output, figures included, against the
// unsplit run; then it loses a shard and resubmits only that one.
func TestArrayReproOnTheLocalCluster(t *testing.T) {
	slurmtest.Need(t)
	bin := slurmtest.Ckpt(t)
	dir, err := os.MkdirTemp("", "ckpt-array-e2e")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sh := func(name string, args ...string) string {
		c := exec.Command(name, args...)
		c.Dir = dir
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", name, args, err, out)
		}
		return string(out)
	}
	sh(bin, "repro", "capacity", "--quick", "--out", "whole")
	array := []string{"array", "--tasks", "3", "--throttle", "2", "--time", "5m", "--name", "arraytest", "--ckpt", bin, "--"}
	repro := []string{"repro", "capacity", "--quick", "--out", "res"}
	submit := func(extra ...string) {
		script := sh(bin, append(append(array[:len(array)-1:len(array)-1], extra...), append([]string{"--"}, repro...)...)...)
		os.WriteFile(filepath.Join(dir, "submit.sh"), []byte(script), 0o755)
		out := sh("bash", "submit.sh")
		f := strings.Fields(out)
		waitJobs(t, f[len(f)-1], 4*time.Minute)
		// scontrol, not sacct: the controller keeps finished jobs for
		// MinJobAge, and needs no accounting database.
		if st := sh("scontrol", "show", "job", "-o", f[len(f)-1]); !strings.Contains(st, "JobState=COMPLETED") {
			t.Fatalf("merge job %s did not complete: %s (%s)", f[len(f)-1], st, out)
		}
	}
	submit()
	compareTrees(t, filepath.Join(dir, "whole", "capacity"), filepath.Join(dir, "res", "capacity"))
	// Lose shard 1, resubmit: only task 1 runs again.
	os.Remove(filepath.Join(dir, "res", "capacity-items.part-1.jsonl"))
	os.RemoveAll(filepath.Join(dir, "res", "capacity"))
	script := sh(bin, append(append(array[:len(array)-1:len(array)-1], "--resubmit", "--"), repro...)...)
	if !strings.Contains(script, "--array=1%2 ") {
		t.Fatalf("resubmission script does not submit task 1 alone:\n%s", script)
	}
	submit("--resubmit")
	compareTrees(t, filepath.Join(dir, "whole", "capacity"), filepath.Join(dir, "res", "capacity"))
}

// waitJobs waits until squeue no longer lists job id.
func waitJobs(t *testing.T, id string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		out, err := exec.Command("squeue", "-h", "-j", id).CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == "" || err != nil && strings.Contains(string(out), "Invalid job id") {
			return
		}
		time.Sleep(time.Second)
	}
	exec.Command("scancel", id).Run()
	t.Fatalf("job %s still queued after %v", id, limit)
}

// compareTrees fails unless both folders hold the same files, byte for
// byte.
func compareTrees(t *testing.T, want, got string) {
	t.Helper()
	n := 0
	filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the unsplit run (%v)", rel, err)
		}
		n++
		return nil
	})
	if n == 0 {
		t.Fatalf("no output in %s", want)
	}
}

// ReproTarget finds the name past flags' values and the --out folder.
func TestReproTarget(t *testing.T) {
	for _, c := range []struct {
		args      []string
		name, out string
	}{
		{[]string{"repro", "capacity"}, "capacity", "repro-out"},
		{[]string{"repro", "--workers", "2", "cloud", "--out=r"}, "cloud", "r"},
		{[]string{"repro", "--seed", "7", "--out", "x", "coop"}, "coop", "x"},
		{[]string{"repro", "--out", "x"}, "", "x"},
	} {
		if n, o := ReproTarget(c.args); n != c.name || o != c.out {
			t.Errorf("%v: %q %q, want %q %q", c.args, n, o, c.name, c.out)
		}
	}
}

// Sweep gives each task its own part of every --csv/--jsonl file and
// merges each; a sweep without one, or writing to stdout, is refused.
func TestArraySweep(t *testing.T) {
	a := Array{Tasks: 3}
	probe, err := a.Sweep("ck", []string{"reserve", "sweep", "--csv", "a.csv", "--jsonl=b.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(probe) != 2 || probe[0] != "a.part-"+TaskID+".csv" || len(a.Merge) != 2 || a.Merge[1][3] != "b.jsonl" ||
		strings.Join(a.Task[len(a.Task)-2:], " ") != "--shard auto/3" {
		t.Errorf("probe %q, task %q, merge %q", probe, a.Task, a.Merge)
	}
	// The merge job reads the format from the name (re-audit: --csv out
	// gave a merge that refused "out"; --csv a.csv --jsonl a.csv tasks
	// that each refused the pair).
	for _, args := range [][]string{{"reserve", "sweep"}, {"reserve", "sweep", "--csv", "-"}, {"reserve", "sweep", "--csv"},
		{"reserve", "sweep", "--csv", "out"}, {"reserve", "sweep", "--csv", "a.csv", "--jsonl", "a.csv"}, {"reserve", "sweep", "--jsonl=a.csv"}} {
		if _, err := (&Array{Tasks: 2}).Sweep("ck", args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// The shard count is capped (MaxTasks) and the wrapped command's flags are
// checked before any script: an unknown flag or a malformed value is
// refused in one usage error naming the command.
func TestArrayChecksBeforeTheScript(t *testing.T) {
	for n, ok := range map[int]bool{0: false, 1: true, MaxTasks: true, MaxTasks + 1: false, 100000000: false} {
		if err := CheckShards(n); (err == nil) != ok || err != nil && !strings.Contains(err.Error(), fmt.Sprint(n)) {
			t.Errorf("%d shards: %v", n, err)
		}
	}
	parse := func(args []string) error {
		fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
		fs.Int("workers", 0, "")
		fs.String("csv", "", "")
		return fs.Parse(args)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reserve", "sweep", "--workers", "abc"}, `invalid argument "abc" for "--workers"`},
		{[]string{"reserve", "sweep", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"reserve", "sweep", "--shard", "1/2"}, "--shard"},
		{[]string{"reserve", "sweep", "--csv", "x.csv"}, ""},
	} {
		err := CheckTaskCommand(c.args, parse)
		var ue *usage.Error
		if c.want == "" && err != nil || c.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
