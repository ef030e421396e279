package slurm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/usage"
)

// A plan no strategy makes under the partition's MaxTime is a usage error
// naming the MaxTime in Slurm's clock; any other error passes unchanged.
func TestPartitionErrorNamesTheMaxTime(t *testing.T) {
	err := PartitionError(fmt.Errorf("plan: %w", reservation.ErrNoPlanWithin), 90*60)
	var ue *usage.Error
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "MaxTime, 01:30:00 (sinfo)") {
		t.Errorf("PartitionError = %v, want a usage error naming 01:30:00", err)
	}
	other := errors.New("disk full")
	if got := PartitionError(other, 90*60); got != other {
		t.Errorf("PartitionError(other) = %v, want it unchanged", got)
	}
}
