package slurm

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// shortPartition is the partition with a MaxTime that
// scripts/slurm-localhost.sh adds beside debug (MaxTime=5, 300 s). A
// cluster without it skips the tests that need it.
const shortPartition = "short"

// needShort skips unless the cluster has the short partition, and returns
// its MaxTime in seconds as sinfo lists it.
func needShort(t *testing.T) float64 {
	t.Helper()
	slurmtest.Need(t)
	parts, err := Exec{}.Limits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if p.Name == shortPartition {
			if math.IsInf(p.MaxTime, 1) {
				t.Skipf("partition %s has no MaxTime here; scripts/slurm-localhost.sh gives it MaxTime=5", shortPartition)
			}
			return p.MaxTime
		}
	}
	t.Skipf("no partition %q on this cluster (scripts/slurm-localhost.sh adds one with MaxTime=5)", shortPartition)
	return 0
}

// queued is squeue's partition, time limit (seconds) and reason of job id.
func queued(t *testing.T, id string) (partition string, limit float64, reason string) {
	t.Helper()
	out, err := exec.Command("squeue", "-h", "-j", id, "-o", "%P|%l|%r").Output()
	if err != nil {
		t.Fatalf("squeue -j %s: %v", id, err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "|")
	if len(f) != 3 {
		t.Fatalf("squeue -j %s: %q", id, out)
	}
	if limit, err = units.ParseSeconds(f[1]); err != nil {
		t.Fatalf("squeue -j %s: time limit %q: %v", id, f[1], err)
	}
	return f[0], limit, f[2]
}

// enforcePartLimits is the cluster's EnforcePartLimits (NO, ANY or ALL).
func enforcePartLimits(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "config").Output()
	if err != nil {
		t.Fatalf("scontrol show config: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "EnforcePartLimits" {
			return strings.TrimSpace(v)
		}
	}
	return "NO" // Slurm's default when not listed
}

// TestMaxTimeBoundOnSlurm: the MaxTime of the short partition (5 min), read
// through sinfo as ckpt reserve --sbatch reads it, bounds the plan. The law
// (lognormal, mean 20 min) makes the unbounded optimum's first reservation
// longer than 5 min; under the bound every reservation is at most 300 s,
// the chain passes the cluster check and sbatch queues every reservation
// on short with its planned --time (held by --begin, so nothing runs).
func TestMaxTimeBoundOnSlurm(t *testing.T) {
	maxTime := needShort(t)
	t.Parallel()
	ctx := context.Background()
	got, warning, err := PartitionMaxTime(ctx, Exec{}, []string{"--partition=" + shortPartition})
	if err != nil || warning != "" || got != maxTime {
		t.Fatalf("PartitionMaxTime(short) = %v, %q, %v; sinfo says %v", got, warning, err, maxTime)
	}
	if maxTime != 300 {
		t.Logf("short's MaxTime is %v s here, not scripts/slurm-localhost.sh's 300 s", maxTime)
	}

	req := reservation.DefaultRequest()
	req.Walltime = reservation.LawSpec("lognormal:mean=20m,sd=5m")
	req.Costs.C, req.Costs.R = 20, 10
	req.Costs.Granularity, req.Costs.Margin = reservation.SlurmGranularity, reservation.DefaultSlurmMargin
	req.NoBaselines = true
	free, err := reservation.Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	longest := 0.0
	for _, r := range free.Result.Reservations {
		longest = math.Max(longest, r.Length)
	}
	if longest <= maxTime {
		t.Fatalf("the unbounded plan's reservations are all within %v s (longest %v): the law tests nothing", maxTime, longest)
	}
	req.MaxRequest = got
	bounded, err := reservation.Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(bounded.Result.Reservations) < 2 {
		t.Fatalf("bounded plan: %+v", bounded.Result.Reservations)
	}
	for k, r := range bounded.Result.Reservations {
		if r.Length > maxTime || math.Mod(r.Length, reservation.SlurmGranularity) != 0 {
			t.Errorf("reservation %d: %v s, want a whole number of minutes within MaxTime %v s", k+1, r.Length, maxTime)
		}
	}
	var lengths []float64
	for _, r := range bounded.Result.Reservations {
		lengths = append(lengths, r.Length)
	}
	t.Logf("unbounded plan: longest reservation %v s, expected cost %.1f; within %v s: %v, expected cost %.1f", longest, free.Result.ExpectedCost, maxTime, lengths, bounded.Result.ExpectedCost)
	if bounded.Result.ExpectedCost < free.Result.ExpectedCost {
		t.Errorf("the bounded plan costs %v, less than the unbounded optimum %v", bounded.Result.ExpectedCost, free.Result.ExpectedCost)
	}
	steps, err := PlanSteps(bounded.Result)
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"--partition=" + shortPartition, "--begin=now+1hour"}
	if _, warning, err := Submission(ctx, Exec{}, steps, ChainOptions{Job: "/bin/true", Extra: extra}); err != nil || warning != "" {
		t.Fatalf("the bounded chain fails the cluster check: %q, %v", warning, err)
	}
	c, err := ChainOf(steps, ChainOptions{Job: "/bin/true", Extra: extra}) // submitChain puts its own job script
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	id := fmt.Sprintf("ckrun-maxt%d", time.Now().UnixNano()%1e9)
	c.Name = id
	dir := submitChain(t, root, id, c, "", "/bin/true")
	st, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Jobs) != len(steps) {
		t.Fatalf("%d of %d reservations submitted: %v", len(st.Jobs), len(steps), st.Jobs)
	}
	for k := 1; k <= len(steps); k++ {
		part, limit, reason := queued(t, st.Jobs[k])
		if part != shortPartition || limit != steps[k-1].Time || reason == "PartitionTimeLimit" {
			t.Errorf("reservation %d (job %s): partition %s, limit %v s (planned %v), reason %s", k, st.Jobs[k], part, limit, steps[k-1].Time, reason)
		}
	}
}

// TestPartitionTimeLimitOnSlurm: a reservation longer than the partition's
// MaxTime (10 min on short) is refused by the cluster check before any
// sbatch; submitted anyway, Slurm refuses it when EnforcePartLimits says
// so, else queues it for ever with reason PartitionTimeLimit, and chain
// status shows that reason.
func TestPartitionTimeLimitOnSlurm(t *testing.T) {
	maxTime := needShort(t)
	t.Parallel()
	ctx := context.Background()
	long := []Step{{Time: maxTime + 300}}
	extra := []string{"--partition=" + shortPartition}
	_, _, err := Submission(ctx, Exec{}, long, ChainOptions{Job: "/bin/true", Extra: extra})
	if err == nil || !usage.Is(err) || !strings.Contains(err.Error(), shortPartition) {
		t.Errorf("a %v s reservation on %s (MaxTime %v s) passed the cluster check: %v", long[0].Time, shortPartition, maxTime, err)
	}

	enforce := enforcePartLimits(t)
	root := t.TempDir()
	id := fmt.Sprintf("ckrun-ptl%d", time.Now().UnixNano()%1e9)
	c := Chain{Name: id, Steps: long, Extra: extra}
	if enforce != "NO" {
		// sbatch itself refuses the job.
		c.Job = "/bin/true"
		script, err := c.Script()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append(os.Environ(), "CKPT_CHAINS="+root, "CKPT_CHAIN_ID="+id)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "time limit") {
			t.Errorf("EnforcePartLimits=%s: sbatch accepted a reservation over MaxTime: %v: %s", enforce, err, out)
		}
		return
	}
	dir := submitChain(t, root, id, c, "", "/bin/true")
	st, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cs ChainStatus
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if cs, err = Status(ctx, Exec{}, st); err == nil && cs.Reason == "Slurm: PartitionTimeLimit" {
			break
		}
	}
	if cs.Outcome != "pending" || cs.Reason != "Slurm: PartitionTimeLimit" {
		t.Fatalf("EnforcePartLimits=NO: status %+v, %v", cs, err)
	}
	if part, limit, _ := queued(t, st.Jobs[1]); part != shortPartition || limit != long[0].Time {
		t.Errorf("job %s: partition %s, limit %v s", st.Jobs[1], part, limit)
	}
	var b strings.Builder
	cs.WriteText(&b)
	if !strings.Contains(b.String(), "pending (Slurm: PartitionTimeLimit)") {
		t.Errorf("text:\n%s", b.String())
	}
}
