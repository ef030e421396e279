package slurm

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// fakeSlurm records what the package asks of Slurm and models the part of
// Slurm's scheduler the chains rely on: afternotok dependencies on several
// jobs and --kill-on-invalid-dep.
type fakeSlurm struct {
	// mu serialises the calls: the runner's preemption watcher asks
	// (Preempted) while the runner itself sets comments.
	mu      sync.Mutex
	calls   []string
	envs    []string // the env of each sbatch call
	jobs    []*fakeJob
	end     time.Time
	failAt  int // the failAt-th sbatch fails (1-based; 0 never)
	sbatchN int
	// proctrack is what Proctrack answers ("": proctrack/pgid, the runner
	// forwards SIGTERM).
	proctrack string
	// preemptAt and preemptEnd are what Preempted answers, preemptType
	// what PreemptType does.
	preemptAt, preemptEnd time.Time
	preemptType           string
}

func (f *fakeSlurm) PreemptType(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.preemptType, nil
}

func (f *fakeSlurm) Requeue(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scontrol requeue "+id)
	return nil
}

func (f *fakeSlurm) Preempted(_ context.Context, id string) (time.Time, time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scontrol show job -o "+id)
	return f.preemptAt, f.preemptEnd, nil
}

type fakeJob struct {
	id, name, state, comment, reason string
	end                              time.Time
	deps                             []string
	kill                             bool
}

func (f *fakeSlurm) job(id string) *fakeJob {
	for _, j := range f.jobs {
		if j.id == id {
			return j
		}
	}
	return nil
}

func (f *fakeSlurm) Sbatch(_ context.Context, env, args []string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sbatchN++
	f.calls = append(f.calls, "sbatch "+strings.Join(args, " "))
	f.envs = append(f.envs, strings.Join(env, " "))
	if f.sbatchN == f.failAt {
		return "", fmt.Errorf("sbatch: error: QOSMaxSubmitJobPerUserLimit")
	}
	j := &fakeJob{id: fmt.Sprint(1000 + len(f.jobs) + 1), state: "PENDING"}
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--dependency=afternotok:"):
			j.deps = strings.Split(strings.TrimPrefix(a, "--dependency=afternotok:"), ":")
		case a == "--kill-on-invalid-dep=yes":
			j.kill = true
		case strings.HasPrefix(a, "--job-name="):
			j.name = strings.TrimPrefix(a, "--job-name=")
		case strings.HasPrefix(a, "--comment="):
			j.comment = strings.TrimPrefix(a, "--comment=")
		}
	}
	f.jobs = append(f.jobs, j)
	return j.id, nil
}

func (f *fakeSlurm) Queue(_ context.Context, ids []string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "squeue "+strings.Join(ids, ","))
	m := map[string]string{}
	for _, id := range ids {
		if j := f.job(id); j != nil && (j.state == "PENDING" || j.state == "RUNNING") {
			m[id] = j.state
		}
	}
	return m, nil
}

func (f *fakeSlurm) Accounting(_ context.Context, ids []string) ([]Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "sacct "+strings.Join(ids, ","))
	var out []Record
	for _, id := range ids {
		if j := f.job(id); j != nil {
			out = append(out, Record{JobID: id, JobName: j.name, State: j.state, Comment: j.comment, End: j.end})
		}
	}
	return out, nil
}

func (f *fakeSlurm) Cancel(_ context.Context, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scancel "+strings.Join(ids, " "))
	for _, id := range ids {
		if j := f.job(id); j != nil && (j.state == "PENDING" || j.state == "RUNNING") {
			j.state = "CANCELLED"
		}
	}
	return nil
}

func (f *fakeSlurm) EndTime(_ context.Context, id string) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scontrol show job "+id)
	if f.end.IsZero() {
		return time.Time{}, fmt.Errorf("scontrol: Invalid job id specified")
	}
	return f.end, nil
}

func (f *fakeSlurm) SetComment(_ context.Context, id, c string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scontrol update JobId="+id+" Comment="+c)
	if j := f.job(id); j != nil {
		j.comment = c
	}
	return nil
}

func (f *fakeSlurm) Limits(context.Context) ([]Partition, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "sinfo")
	return []Partition{{Name: "debug", Default: true, MaxTime: math.Inf(1)}}, nil
}

func (f *fakeSlurm) Proctrack(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "scontrol show config")
	if f.proctrack == "" {
		return "proctrack/pgid", nil
	}
	return f.proctrack, nil
}

func (f *fakeSlurm) Reasons(_ context.Context, ids []string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "squeue %r "+strings.Join(ids, ","))
	m := map[string]string{}
	for _, id := range ids {
		if j := f.job(id); j != nil && (j.state == "PENDING" || j.state == "RUNNING") {
			m[id] = j.reason
			if m[id] == "" {
				m[id] = "None"
			}
		}
	}
	return m, nil
}

func (f *fakeSlurm) CPUs(context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "sinfo %C")
	return 4, nil
}

// schedule applies Slurm's dependency rules and starts the first eligible
// pending job, returning it (nil when none can start): a job with an
// afternotok dependency on a COMPLETED job can never start and, with
// --kill-on-invalid-dep, is cancelled; one whose dependencies all ended
// in another state is eligible.
func (f *fakeSlurm) schedule() *fakeJob {
	for _, j := range f.jobs {
		if j.state != "PENDING" {
			continue
		}
		ready, never := true, false
		for _, d := range j.deps {
			switch f.job(d).state {
			case "COMPLETED":
				never = true
			case "PENDING", "RUNNING":
				ready = false
			}
		}
		if never && j.kill {
			j.state = "CANCELLED"
			continue
		}
		if ready && !never {
			j.state = "RUNNING"
			return j
		}
	}
	return nil
}
