package slurm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
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
