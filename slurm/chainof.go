package slurm

import (
	"context"
	"errors"
	"fmt"

	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// ChainOptions are the submission choices of a chain, apart from its plan.
type ChainOptions struct {
	// Job is the batch script every reservation runs (Chain.Job).
	Job string
	// Name is the job name (Chain.Name); empty takes the script's.
	Name string
	// Ahead is the rolling window (Chain.Ahead): 0 submits every
	// reservation up front.
	Ahead int
	// Extra are the sbatch options of every reservation: those given one
	// by one (--sbatch-arg) and those given after --, in that order.
	Extra []string
	// Scale runs the chain faster than its plan (Chain.Scale); 0 is real
	// time.
	Scale float64
}

// StepsOf turns the reservations of a plan into a chain's steps: length,
// checkpoint and its time, restart and its time, milestone; memGB, when
// not nil, gives each reservation's memory in GB (10⁹ bytes), requested as
// MemArg renders it. It is the one conversion from a plan to a chain.
func StepsOf(rs []reservation.Reservation, memGB []float64) ([]Step, error) {
	if memGB != nil && len(memGB) != len(rs) {
		return nil, fmt.Errorf("plan has %d reservations but %d memory sizes", len(rs), len(memGB))
	}
	out := make([]Step, len(rs))
	for k, r := range rs {
		out[k] = Step{Time: r.Length, Checkpoint: r.Checkpoint, CheckpointTime: r.CheckpointTime,
			Restart: r.Restart > 0, RestartTime: r.Restart, Milestone: r.Milestone}
		if memGB != nil {
			if !(memGB[k] >= 0 && memGB[k] <= maxMemGB) {
				return nil, fmt.Errorf("reservation %d: memory %v GB, want a value in [0, %v]", k+1, memGB[k], maxMemGB)
			}
			out[k].Mem = MemArg(memGB[k])
		}
	}
	return out, nil
}

// PlanSteps is StepsOf the reservations of a plan (ckpt reserve --sbatch);
// errors are usage errors.
func PlanSteps(r *reservation.Result) ([]Step, error) {
	rs := make([]reservation.Reservation, len(r.Reservations))
	for k, rv := range r.Reservations {
		rs[k] = rv.Reservation
	}
	steps, err := StepsOf(rs, nil)
	return steps, usage.Wrap(err)
}

// MemPlanSteps is StepsOf the reservations of a multi-phase plan, each
// asking for its memory (ckpt reserve --profile --sbatch); errors are
// usage errors.
func MemPlanSteps(p *memplan.MemPlan) ([]Step, error) {
	rs := make([]reservation.Reservation, len(p.Reservations))
	mem := make([]float64, len(p.Reservations))
	for k, r := range p.Reservations {
		rs[k], mem[k] = r.Reservation, r.Mem
	}
	steps, err := StepsOf(rs, mem)
	return steps, usage.Wrap(err)
}

// maxMemGB bounds a memory request so that its MiB count fits an int64
// with room to spare (an exabyte).
const maxMemGB = 1e9

// MemArg renders gb GB as an sbatch --mem value (units.SlurmMem).
func MemArg(gb float64) string { return units.SlurmMem(gb) }

// ChainOf is the one chain builder: the chain that submits steps (from
// StepsOf) under o, validated. ckpt reserve --sbatch, ckpt reserve
// --profile --sbatch and the Slurm reproduction all build their chains
// here, and check them against the cluster with CheckCluster.
func ChainOf(steps []Step, o ChainOptions) (Chain, error) {
	c := Chain{Job: o.Job, Name: o.Name, Ahead: o.Ahead, Scale: o.Scale, Steps: steps}
	if len(o.Extra) > 0 {
		c.Extra = append([]string(nil), o.Extra...)
	}
	if err := c.Validate(); err != nil {
		return Chain{}, err
	}
	return c, nil
}

// Submission is the script that submits steps under o (ChainOf), the
// chain checked against the limits cl reports (CheckCluster): the one path
// from a plan to a submission script. warning, when not "", says why the
// chain could not be checked. Errors are usage errors.
func Submission(ctx context.Context, cl Limiter, steps []Step, o ChainOptions) (script, warning string, err error) {
	c, err := ChainOf(steps, o)
	if err != nil {
		return "", "", usage.Wrap(err)
	}
	if warning, err = CheckCluster(ctx, cl, c); err != nil {
		return "", warning, usage.Wrap(err)
	}
	script, err = c.Script()
	return script, warning, usage.Wrap(err)
}

// Limiter says what the cluster's partitions allow (Exec: sinfo).
type Limiter interface {
	Limits(ctx context.Context) ([]Partition, error)
}

// ErrNoSlurm is what Exec returns when the Slurm command it needs is not
// on PATH: there is no cluster here to ask.
var ErrNoSlurm = errors.New("no Slurm command on PATH")

// CheckCluster checks chain c against the limits cl reports
// (CheckLimits). A cluster that cannot say is not an error: the plan may
// be meant for another machine. warning is then why it could not be
// checked ("" when there is no Slurm here at all).
func CheckCluster(ctx context.Context, cl Limiter, c Chain) (warning string, err error) {
	parts, err := cl.Limits(ctx)
	if errors.Is(err, ErrNoSlurm) {
		return "", nil
	}
	if err != nil {
		return fmt.Sprintf("cannot check the plan against Slurm's limits: %v", err), nil
	}
	return "", CheckLimits(c, parts)
}
