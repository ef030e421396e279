package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cluster is the narrow interface through which this package acts on
// Slurm: one method per command it runs. Exec runs the real commands;
// tests use a recorder.
type Cluster interface {
	// Sbatch submits a job with the given arguments, env (NAME=VALUE) added
	// to sbatch's environment (--export=ALL passes it to the job), and
	// returns its ID.
	Sbatch(ctx context.Context, env, args []string) (string, error)
	// Queue returns the state (PENDING, RUNNING, …) of those of ids that
	// squeue still lists.
	Queue(ctx context.Context, ids []string) (map[string]string, error)
	// Accounting returns the sacct records of ids (jobs, not steps).
	Accounting(ctx context.Context, ids []string) ([]Record, error)
	// Cancel cancels the jobs (scancel).
	Cancel(ctx context.Context, ids []string) error
	// EndTime returns the time at which Slurm will end job id (scontrol).
	EndTime(ctx context.Context, id string) (time.Time, error)
	// SetComment replaces the comment of job id (scontrol update, or
	// sacctmgr once the job has ended).
	SetComment(ctx context.Context, id, comment string) error
	// Limits returns the partitions and their limits (sinfo).
	Limits(ctx context.Context) ([]Partition, error)
	// CPUs returns the number of CPUs of the cluster's nodes (sinfo).
	CPUs(ctx context.Context) (int, error)
	// Proctrack returns the cluster's process tracking (ProctrackType of
	// scontrol show config, e.g. proctrack/cgroup).
	Proctrack(ctx context.Context) (string, error)
	// Reasons returns, for those of ids that squeue still lists, why they
	// are pending or were ended (squeue %r: Resources, Dependency,
	// PartitionTimeLimit, …; "None" for a running job).
	Reasons(ctx context.Context, ids []string) (map[string]string, error)
}

// Record is one job of sacct's output.
type Record struct {
	JobID, JobName, State, Comment string
	// Elapsed is ElapsedRaw in seconds.
	Elapsed float64
	// ExitCode is sacct's "status:signal".
	ExitCode string
	// Start and End are when the job started and ended (local time);
	// zero when sacct gives none (Unknown, None) or was not asked.
	Start, End time.Time
}

// liveStates are the job states of a job that may still run.
var liveStates = map[string]bool{"PENDING": true, "RUNNING": true, "CONFIGURING": true, "COMPLETING": true,
	"SUSPENDED": true, "REQUEUED": true, "REQUEUE_HOLD": true, "REQUEUE_FED": true, "RESIZING": true, "SIGNALING": true, "STAGE_OUT": true}

// Exec runs the Slurm commands found on PATH.
type Exec struct{}

// run runs a Slurm command and returns its standard output; an error is
// one line naming the command and its first line of standard error.
func run(ctx context.Context, name string, args ...string) (string, error) {
	return runEnv(ctx, nil, name, args...)
}

// cmdWaitDelay is how long a cancelled Slurm command's output may stay
// open (a site's wrapper whose child holds it) before run returns.
const cmdWaitDelay = 500 * time.Millisecond

// runEnv is run with env (NAME=VALUE) added to this process's environment.
// The command runs in its own process group, all of which a cancelled ctx
// kills (Ctrl-C stops a site's sacct wrapper and its children too).
func runEnv(ctx context.Context, env []string, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = cmdWaitDelay
	if len(env) > 0 {
		c.Env = append(os.Environ(), env...)
	}
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(errb.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s: %s", name, msg)
	}
	return out.String(), nil
}

// Sbatch runs sbatch (the arguments include --parsable).
func (Exec) Sbatch(ctx context.Context, env, args []string) (string, error) {
	out, err := runEnv(ctx, env, "sbatch", args...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch printed %q, want a job ID (--parsable)", strings.TrimSpace(out))
	}
	return id, nil
}

// Queue runs squeue.
func (Exec) Queue(ctx context.Context, ids []string) (map[string]string, error) {
	m := map[string]string{}
	if len(ids) == 0 {
		return m, nil
	}
	out, err := run(ctx, "squeue", "-h", "-j", strings.Join(ids, ","), "-o", "%i|%T")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return m, nil // all finished and purged
		}
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, st, ok := strings.Cut(l, "|"); ok && liveStates[st] {
			m[id] = st
		}
	}
	return m, nil
}

// Accounting runs sacct.
func (Exec) Accounting(ctx context.Context, ids []string) ([]Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := run(ctx, "sacct", "-X", "--parsable2", "-j", strings.Join(ids, ","), "--format", sacctFormat+",Start,End")
	if err != nil {
		return nil, err
	}
	h, err := ReadSacct(strings.NewReader(out), "sacct")
	return h, err
}

// CPUs runs sinfo and returns the total of its CPU count
// (allocated/idle/other/total). It returns ErrNoSlurm when sinfo is not on
// PATH.
func (Exec) CPUs(ctx context.Context) (int, error) {
	if _, err := exec.LookPath("sinfo"); err != nil {
		return 0, fmt.Errorf("sinfo: %w", ErrNoSlurm)
	}
	out, err := run(ctx, "sinfo", "-h", "-o", "%C")
	if err != nil {
		return 0, err
	}
	return parseCPUs(out)
}

// parseCPUs reads sinfo -h -o %C: "allocated/idle/other/total".
func parseCPUs(out string) (int, error) {
	f := strings.Split(strings.TrimSpace(out), "/")
	n, err := strconv.Atoi(f[len(f)-1])
	if len(f) != 4 || err != nil || n < 1 {
		return 0, fmt.Errorf("sinfo reports no CPUs (%q)", strings.TrimSpace(out))
	}
	return n, nil
}

// Cancel runs scancel.
func (Exec) Cancel(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := run(ctx, "scancel", ids...)
	return err
}

// EndTime runs scontrol show job and reads EndTime (local time).
func (Exec) EndTime(ctx context.Context, id string) (time.Time, error) {
	out, err := run(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		return time.Time{}, err
	}
	return parseEndTime(out)
}

func parseEndTime(out string) (time.Time, error) {
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "EndTime="); ok {
			t, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
			if err != nil {
				return time.Time{}, fmt.Errorf("scontrol: EndTime %q is not a time", v)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("scontrol: no EndTime in its output")
}

// SetComment runs scontrol update; for a job that has ended (scontrol
// refuses: "Job has already finished"), sacctmgr modify job, which
// rewrites the comment sacct keeps.
func (Exec) SetComment(ctx context.Context, id, comment string) error {
	_, err := run(ctx, "scontrol", "update", "JobId="+id, "Comment="+comment)
	if err != nil && strings.Contains(err.Error(), "already finished") {
		_, err = run(ctx, "sacctmgr", "-i", "modify", "job", "where", "jobid="+id, "set", "comment="+comment)
	}
	return err
}

// Proctrack runs scontrol show config and reads ProctrackType.
func (Exec) Proctrack(ctx context.Context) (string, error) {
	out, err := run(ctx, "scontrol", "show", "config")
	if err != nil {
		return "", err
	}
	return configValue(out, "ProctrackType")
}

// configValue reads "KEY = VALUE" from scontrol show config.
func configValue(out, key string) (string, error) {
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("scontrol show config: no %s", key)
}

// Reasons runs squeue -o %i|%r.
func (Exec) Reasons(ctx context.Context, ids []string) (map[string]string, error) {
	m := map[string]string{}
	if len(ids) == 0 {
		return m, nil
	}
	out, err := run(ctx, "squeue", "-h", "-j", strings.Join(ids, ","), "-o", "%i|%r")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return m, nil
		}
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, r, ok := strings.Cut(l, "|"); ok {
			m[id] = r
		}
	}
	return m, nil
}
