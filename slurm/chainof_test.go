package slurm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
)

// StepsOf keeps every field a chain needs, the restart time included, and
// renders memory in MiB rounded up.
func TestStepsOf(t *testing.T) {
	rs := []reservation.Reservation{
		{Length: 3600, Work: 3000, CheckpointTime: 600, Milestone: 3000, Checkpoint: true, Saved: 3000},
		{Length: 1200, Restart: 120, Work: 1080, Milestone: 4080, Saved: 3000},
	}
	steps, err := StepsOf(rs, []float64{10, 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Time: 3600, Mem: "9537M", Checkpoint: true, CheckpointTime: 600, Milestone: 3000},
		{Time: 1200, Mem: "1M", Restart: true, RestartTime: 120, Milestone: 4080},
	}
	for k := range want {
		if steps[k] != want[k] {
			t.Errorf("step %d: %+v, want %+v", k+1, steps[k], want[k])
		}
	}
	if s, _ := StepsOf(rs, nil); s[0].Mem != "" || s[1].Mem != "" {
		t.Error("memory without a memory plan")
	}
	for _, mem := range [][]float64{{1}, {1, -1}, {1, 2e9}} {
		if _, err := StepsOf(rs, mem); err == nil {
			t.Errorf("memory %v accepted", mem)
		}
	}
}

// ChainOf takes every option, copies the extra options and validates.
func TestChainOf(t *testing.T) {
	extra := []string{"--qos=long"}
	c, err := ChainOf([]Step{{Time: 60, Milestone: 60}}, ChainOptions{Job: "j.sh", Name: "x", Ahead: 1, Extra: extra, Scale: 10})
	if err != nil {
		t.Fatal(err)
	}
	extra[0] = "--qos=changed"
	if c.Job != "j.sh" || c.Name != "x" || c.Ahead != 1 || c.Scale != 10 || len(c.Extra) != 1 || c.Extra[0] != "--qos=long" {
		t.Errorf("%+v", c)
	}
	for _, o := range []ChainOptions{{}, {Job: "j", Ahead: -1}, {Job: "j", Extra: []string{"--time=5"}}, {Job: "j", Scale: 1e9}} {
		if _, err := ChainOf([]Step{{Time: 60}}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

type limits struct {
	parts []Partition
	err   error
}

func (l limits) Limits(context.Context) ([]Partition, error) { return l.parts, l.err }

// CheckCluster refuses what the partition cannot take, warns when Slurm
// does not answer and says nothing when there is no Slurm; a scaled chain
// is checked at the time sbatch gets.
func TestCheckCluster(t *testing.T) {
	ctx := context.Background()
	c := Chain{Job: "j", Steps: []Step{{Time: 7200}}}
	short := limits{parts: []Partition{{Name: "debug", Default: true, MaxTime: 3600}}}
	if w, err := CheckCluster(ctx, short, c); w != "" || err == nil || !strings.Contains(err.Error(), "needs --time=02:00:00 but partition debug allows at most 01:00:00") {
		t.Errorf("%q, %v", w, err)
	}
	c.Scale = 2
	if w, err := CheckCluster(ctx, short, c); w != "" || err != nil {
		t.Errorf("scaled: %q, %v", w, err)
	}
	if w, err := CheckCluster(ctx, limits{err: errors.New("sinfo: down")}, c); err != nil || !strings.Contains(w, "sinfo: down") {
		t.Errorf("down: %q, %v", w, err)
	}
	if w, err := CheckCluster(ctx, limits{err: ErrNoSlurm}, c); err != nil || w != "" {
		t.Errorf("no Slurm: %q, %v", w, err)
	}
}
