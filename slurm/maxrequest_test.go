package slurm

import (
	"context"
	"errors"
	"math"
	"testing"
)

type limitsStub struct {
	parts []Partition
	err   error
}

func (l limitsStub) Limits(context.Context) ([]Partition, error) { return l.parts, l.err }

// The longest reservation is the MaxTime of the partition the chain goes
// to: --partition/-p in the sbatch options, else the default one; 0 when
// unlimited or when there is no Slurm to ask.
func TestPartitionMaxTime(t *testing.T) {
	cl := limitsStub{parts: []Partition{{Name: "debug", Default: true, MaxTime: 3600}, {Name: "long", MaxTime: 7 * 86400}, {Name: "free", MaxTime: math.Inf(1)}}}
	for _, c := range []struct {
		extra []string
		want  float64
		err   bool
	}{
		{nil, 3600, false},
		{[]string{"--partition=long"}, 7 * 86400, false},
		{[]string{"-p", "long"}, 7 * 86400, false},
		{[]string{"-plong"}, 7 * 86400, false},
		{[]string{"--partition=free"}, 0, false},
		{[]string{"--partition=nope"}, 0, true},
	} {
		got, warning, err := PartitionMaxTime(context.Background(), cl, c.extra)
		if got != c.want || (err != nil) != c.err || warning != "" {
			t.Errorf("%v: %v, %q, %v; want %v (error %v)", c.extra, got, warning, err, c.want, c.err)
		}
	}
	if got, w, err := PartitionMaxTime(context.Background(), limitsStub{err: ErrNoSlurm}, nil); got != 0 || w != "" || err != nil {
		t.Errorf("no Slurm: %v %q %v", got, w, err)
	}
	if got, w, err := PartitionMaxTime(context.Background(), limitsStub{err: errors.New("sinfo: timeout")}, nil); got != 0 || w == "" || err != nil {
		t.Errorf("sinfo fails: %v %q %v", got, w, err)
	}
}
