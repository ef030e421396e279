package slurm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// PartitionMaxTime is the longest reservation a chain submitted with the
// sbatch options extra may ask for: the MaxTime of its partition
// (--partition in extra, else the default one), read through cl (sinfo),
// for ckpt reserve --sbatch to plan under (reservation.Request.MaxRequest).
// It is 0 (no bound) when the partition is unlimited, when there is no
// Slurm here, or when the cluster cannot say (warning then says why, as
// CheckCluster does). A partition sinfo does not list is an error.
func PartitionMaxTime(ctx context.Context, cl Limiter, extra []string) (maxTime float64, warning string, err error) {
	parts, err := cl.Limits(ctx)
	if errors.Is(err, ErrNoSlurm) {
		return 0, "", nil
	}
	if err != nil {
		return 0, fmt.Sprintf("cannot read the partition's time limit: %v", err), nil
	}
	name := partitionArg(extra)
	for _, p := range parts {
		if p.Name == name || name == "" && p.Default {
			if math.IsInf(p.MaxTime, 1) {
				return 0, "", nil
			}
			return p.MaxTime, "", nil
		}
	}
	if name == "" {
		return 0, "", nil // no default partition: sbatch will say
	}
	return 0, "", fmt.Errorf("partition %q is not one of sinfo's", name)
}

// SbatchMaxRequest is the bound ckpt reserve --sbatch plans under when no
// --max-request is given: PartitionMaxTime read through sinfo (Exec); a
// partition sinfo does not list is a usage error.
func SbatchMaxRequest(ctx context.Context, extra []string) (float64, error) {
	maxTime, _, err := PartitionMaxTime(ctx, Exec{}, extra)
	return maxTime, usage.Wrap(err)
}

// PartitionError words err, the error of a plan made under maxTime, the
// MaxTime SbatchMaxRequest read: a plan no strategy makes within it
// (reservation.ErrNoPlanWithin) is a usage error asking for a partition
// that allows longer reservations; other errors are returned as they are.
func PartitionError(err error, maxTime float64) error {
	if !errors.Is(err, reservation.ErrNoPlanWithin) {
		return err
	}
	return usage.Errorf("no plan keeps every reservation within the partition's MaxTime, %s (sinfo); submit to a partition that allows longer reservations", units.SlurmTime(maxTime))
}

// partitionArg is the partition the sbatch options extra name ("" when
// none), read as CheckLimits reads it.
func partitionArg(extra []string) string {
	name := ""
	for i, e := range extra {
		switch {
		case strings.HasPrefix(e, "--partition="):
			name = strings.TrimPrefix(e, "--partition=")
		case strings.HasPrefix(e, "-p") && len(e) > 2:
			name = e[2:]
		case e == "-p" && i+1 < len(extra):
			name = extra[i+1]
		}
	}
	return name
}
