package slurm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm"
)

// Config is how the real run is made.
type Config struct {
	// Dir receives the outputs; the chain folders go to Dir/chains.
	Dir string
	// Ckpt is the ckpt binary the jobs run (ckpt run, ckpt standin).
	Ckpt string
	// Scale is paper seconds per real second.
	Scale float64
	// Slots bounds the chains in flight (at most the node's CPUs).
	Slots int
	// Margin is the runner's --margin and the stand-in's (real time);
	// Grace the runner's --start-grace.
	Margin, Grace time.Duration
	// BytesPerSecond is the checkpoint size per second of C.
	BytesPerSecond float64
	// Poll is how often chains are looked at.
	Poll time.Duration
	// Progress receives one line per finished batch of jobs (may be nil).
	Progress io.Writer
	// Cluster is the Slurm the jobs run on; nil is slurm.Exec (the
	// commands on PATH).
	Cluster slurm.Cluster
	// PaperCosts plans with the paper's costs (a checkpoint reserves C),
	// whose milestones the run cannot reach; by default a checkpoint
	// reserves C + PlanMargin, as ckpt reserve --slurm plans.
	PaperCosts bool
}

// StartAllowance is the real time the plans allow for the stand-in's late
// start: the runner starts a scaled reservation's clock when it starts the
// app (nice -n 10 ckpt repro standin), which counts its work from its own
// start, measured 0.26 and 0.56 s later on this 2-core node for the two
// checkpointed reservations of a quick run, and at most 0.81 s from the
// runner's start to its end, exit included, on 35 finished ones
// (FINDINGS.md).
const StartAllowance = time.Second

// PlanMargin is what a plan reserves after each checkpoint besides C, in
// paper seconds: Scale × (the runner's Margin + StartAllowance), the work
// a checkpointed reservation really loses; 0 with PaperCosts.
func (c Config) PlanMargin() float64 {
	if c.PaperCosts {
		return 0
	}
	return c.Scale * (c.Margin + StartAllowance).Seconds()
}

func (c Config) cluster() slurm.Cluster {
	if c.Cluster == nil {
		return slurm.Exec{}
	}
	return c.Cluster
}

// Result is what one job did on the cluster, in paper seconds.
type Result struct {
	Job
	Done bool
	// Reservations is the number that ran; Held the time they held the
	// node (job script start to end, summed); Response the time from
	// submission to the end of the last one.
	Reservations    int
	Held, Response  float64
	SimHeld         float64
	Startup, Finish float64 // mean per reservation: script start → runner start, runner end → script end
	Stopped         int     // reservations the runner stopped at the scaled end
	Scale           float64 // of the run
	// Alloc is the time Slurm allocated the reservations (sacct, whole
	// seconds × Scale) and Timeouts the reservations Slurm ended at its own
	// limit; both filled from the accounting after the run.
	Alloc    float64
	Timeouts int
	JobIDs   []string
	// Checkpoints is the number of reservations that checkpointed and
	// Reached the number whose saved progress reached their target
	// (Reached), from the chain's records.
	Checkpoints, Reached int
}

// milestoneSlack is how far below its target a saved progress still
// counts as reached: the records keep 3 decimals.
const milestoneSlack = 1e-2

// Milestones counts the reservations of job j that checkpointed
// (outcomes by reservation, from the chain's records) and those whose
// saved progress reached the plan's milestone, less what a checkpoint
// larger than C takes by design (the stand-in starts it (f − 1)·C
// earlier, Fig. 9).
func Milestones(j Job, outcomes map[int]slurm.Outcome) (checkpoints, reached int) {
	for k, o := range outcomes {
		if o.Outcome != slurm.OutcomeCheckpointed || k < 1 || k > len(j.Steps) {
			continue
		}
		st := j.Steps[k-1]
		target := st.Milestone - max(0, (SizeFactor(j.Seed, k, j.Variation)-1)*st.CheckpointTime)
		checkpoints++
		if o.Progress >= target-milestoneSlack {
			reached++
		}
	}
	return checkpoints, reached
}

// Available says whether the Slurm cluster cl answers, with its CPUs.
func Available(ctx context.Context, cl slurm.Cluster) (int, error) {
	n, err := cl.CPUs(ctx)
	if err != nil {
		return 0, fmt.Errorf("no Slurm cluster answers (%v); ckpt repro slurm submits real jobs: start one with scripts/slurm-localhost.sh", err)
	}
	return n, nil
}

// maxBurst is the most chains submitted per poll: the first slots fill
// over seconds, not all at once (a burst of job starts starves a small
// node).
const maxBurst = 4

type flight struct {
	job    Job
	id     string
	dir    string
	submit time.Time
}

// Execute runs jobs on the cluster, at most cfg.Slots chains at a time, in
// order, calling put for each finished job. When ctx ends it cancels what
// is in flight and returns ctx's error.
func Execute(ctx context.Context, cfg Config, jobs []Job, put func(Result) error) error {
	root := filepath.Join(cfg.Dir, "chains")
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if err := checkLimits(ctx, cfg, root, jobs); err != nil {
		return err
	}
	var inflight []flight
	next, finished, reported := 0, 0, 0
	defer func() { // on error or interruption, nothing is left queued
		for _, f := range inflight {
			if st, err := slurm.Load(f.dir); err == nil {
				cfg.cluster().Cancel(context.WithoutCancel(ctx), slurm.Later(st.Jobs, 0))
			}
		}
	}()
	lastLive := time.Now()
	for next < len(jobs) || len(inflight) > 0 {
		n := min(len(jobs)-next, cfg.Slots-len(inflight), maxBurst)
		fs, err := submitAll(ctx, cfg, root, jobs, next, max(n, 0))
		inflight, next = append(inflight, fs...), next+len(fs)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(cfg.Poll)
		var live map[string]string // the queue, looked at once a minute: chains whose jobs all left it are over
		if time.Since(lastLive) > time.Minute {
			lastLive = time.Now()
			var err error
			if live, err = queued(ctx, cfg.cluster(), inflight); err != nil {
				return err
			}
		}
		kept := inflight[:0]
		for _, f := range inflight {
			r, ok, err := finishedJob(cfg, f, live)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return err
			}
			if !ok {
				kept = append(kept, f)
				continue
			}
			if err := put(r); err != nil {
				return err
			}
			finished++
		}
		if cfg.Progress != nil && finished/50 > reported/50 {
			fmt.Fprintf(cfg.Progress, "slurm: %d/%d jobs done, %d in flight\n", finished, len(jobs), len(kept))
		}
		inflight, reported = kept, finished
	}
	return nil
}

// checkLimits checks every job's chain against the cluster's limits
// (slurm.CheckCluster, as ckpt reserve --sbatch does; sinfo asked once)
// before anything is submitted.
func checkLimits(ctx context.Context, cfg Config, root string, jobs []Job) error {
	lim := &onceLimits{cl: cfg.cluster()}
	for n, j := range jobs {
		c, err := chainOf(cfg, root, fmt.Sprintf("j%05d", n), filepath.Join(root, "job.sh"), j)
		if err != nil {
			return err
		}
		warning, err := slurm.CheckCluster(ctx, lim, c)
		if err != nil {
			return fmt.Errorf("job %d (%s): %w", n, j.Cell(), err)
		}
		if warning != "" {
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "slurm: warning: %s\n", warning)
			}
			return nil
		}
	}
	return nil
}

// onceLimits asks cl for its limits once.
type onceLimits struct {
	cl    slurm.Limiter
	done  bool
	parts []slurm.Partition
	err   error
}

func (o *onceLimits) Limits(ctx context.Context) ([]slurm.Partition, error) {
	if !o.done {
		o.parts, o.err = o.cl.Limits(ctx)
		o.done = true
	}
	return o.parts, o.err
}

// submitAll submits jobs[next:next+n] at once (each chain's submission
// runs several sbatch in turn) and returns them in order.
func submitAll(ctx context.Context, cfg Config, root string, jobs []Job, next, n int) ([]flight, error) {
	fs, errs := make([]flight, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fs[i], errs[i] = submit(ctx, cfg, root, jobs[next+i], next+i) })
	}
	wg.Wait()
	var ok []flight // what was submitted is tracked (and cancelled on error)
	var first error
	for i, err := range errs {
		if err == nil {
			ok = append(ok, fs[i])
		} else if first == nil {
			first = err
		}
	}
	return ok, first
}

// jobScript is the batch script of a chain: it runs the stand-in under
// ckpt run (niced: the node is shared) and records, per reservation, when the script started and
// ended (bash's microsecond clock: sacct keeps whole seconds).
func jobScript(cfg Config, j Job) string {
	standin := []string{cfg.Ckpt, "repro", "standin", "--walltime", ff(j.Walltime), "--c", ff(j.App.C), "--r", ff(j.App.R),
		"--variation", ff(j.Variation), "--seed", strconv.FormatUint(j.Seed, 10), "--bytes-per-second", ff(cfg.BytesPerSecond),
		"--margin", cfg.Margin.String()}
	return fmt.Sprintf(`#!/usr/bin/env bash
t0=$EPOCHREALTIME
nice -n 10 %s run --scale %s --margin %s --start-grace %s -- %s
rc=$?
echo "$SLURM_JOB_ID $CKPT_RESERVATION $t0 $EPOCHREALTIME $rc" >> "$CKPT_CHAIN_DIR/held"
exit $rc
`, cfg.Ckpt, ff(cfg.Scale), cfg.Margin, cfg.Grace, strings.Join(standin, " "))
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// submit writes the job's script and submits its chain through the
// chain's submission script (slurm.Chain.Script), as a user would.
func submit(ctx context.Context, cfg Config, root string, j Job, n int) (flight, error) {
	id := fmt.Sprintf("j%05d", n)
	script := filepath.Join(root, id+".sh")
	if err := os.WriteFile(script, []byte(jobScript(cfg, j)), 0o755); err != nil {
		return flight{}, err
	}
	c, err := chainOf(cfg, root, id, script, j)
	if err != nil {
		return flight{}, err
	}
	sub, err := c.Script()
	if err != nil {
		return flight{}, err
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", sub)
	cmd.Env = append(os.Environ(), "CKPT_CHAINS="+root, "CKPT_CHAIN_ID="+id)
	f := flight{job: j, id: id, dir: filepath.Join(root, id), submit: time.Now()}
	if out, err := cmd.CombinedOutput(); err != nil {
		return f, fmt.Errorf("submitting job %d (%s): %v: %s", n, j.Cell(), err, strings.TrimSpace(string(out)))
	}
	return f, nil
}

// chainOf is job j's chain (slurm.ChainOf, the builder of ckpt reserve
// --sbatch), its script at script and its folder root/id.
func chainOf(cfg Config, root, id, script string, j Job) (slurm.Chain, error) {
	name := strings.NewReplacer(" ", "", ".", "", "=", "", "%", "").Replace(fmt.Sprintf("sx-%s-%s", j.App.Name, j.Strategy))
	return slurm.ChainOf(j.Steps, slurm.ChainOptions{Job: script, Name: name, Ahead: slurm.DefaultAhead, Scale: cfg.Scale,
		Extra: []string{"--output=" + filepath.Join(root, id, "slurm-%j.out")}})
}

type heldLine struct {
	job        string
	k, rc      int
	start, end float64
}

func readHeld(dir string) ([]heldLine, error) {
	f, err := os.Open(filepath.Join(dir, "held"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []heldLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h heldLine
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			continue // a line being written
		}
		h.job = fs[0]
		h.k, _ = strconv.Atoi(fs[1])
		h.start, _ = strconv.ParseFloat(fs[2], 64)
		h.end, _ = strconv.ParseFloat(fs[3], 64)
		h.rc, _ = strconv.Atoi(fs[4])
		out = append(out, h)
	}
	return out, sc.Err()
}

// queued returns the queue states of the jobs of the chains in flight
// (one squeue).
func queued(ctx context.Context, cl slurm.Cluster, inflight []flight) (map[string]string, error) {
	var ids []string
	for _, f := range inflight {
		if st, err := slurm.Load(f.dir); err == nil {
			ids = append(ids, slurm.Later(st.Jobs, 0)...)
		}
	}
	return cl.Queue(ctx, ids)
}

// finishedJob reports whether the chain of f is over (its work done, its
// last reservation ended, or, when live is given, none of its jobs left
// in the queue) and then what it did.
func finishedJob(cfg Config, f flight, live map[string]string) (Result, bool, error) {
	hs, err := readHeld(f.dir)
	if err != nil {
		return Result{}, false, err
	}
	over := false
	for _, h := range hs {
		if h.rc == 0 || h.k == len(f.job.Steps) {
			over = true
		}
	}
	if !over && live == nil {
		return Result{}, false, nil
	}
	st, err := slurm.Load(f.dir)
	if err != nil {
		return Result{}, false, err
	}
	if !over && live != nil && len(st.Jobs) > 0 {
		over = true
		for _, id := range slurm.Later(st.Jobs, 0) {
			if _, ok := live[id]; ok {
				over = false
			}
		}
	}
	if !over {
		return Result{}, false, nil
	}
	r := Result{Job: f.job, SimHeld: SimHeld(f.job), Scale: cfg.Scale}
	r.Checkpoints, r.Reached = Milestones(f.job, st.Outcomes)
	last := 0.0
	for _, h := range hs {
		r.Reservations++
		r.Held += (h.end - h.start) * cfg.Scale
		last = max(last, h.end)
		r.Done = r.Done || h.rc == 0
		r.JobIDs = append(r.JobIDs, h.job)
		if o, ok := st.Outcomes[h.k]; ok && !o.Start.IsZero() && !o.End.IsZero() {
			r.Startup += (float64(o.Start.UnixNano())/1e9 - h.start) * cfg.Scale
			r.Finish += (h.end - float64(o.End.UnixNano())/1e9) * cfg.Scale
			if strings.HasPrefix(o.Note, "stopped") {
				r.Stopped++
			}
		}
	}
	if r.Reservations > 0 {
		r.Startup /= float64(r.Reservations)
		r.Finish /= float64(r.Reservations)
		r.Response = (last - float64(f.submit.UnixNano())/1e9) * cfg.Scale
	} else {
		r.Response = math.NaN()
	}
	os.Remove(filepath.Join(f.dir, "checkpoint"))
	return r, true, nil
}
