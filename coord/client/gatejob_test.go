package client

import (
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/usage"
)

func TestGateJob(t *testing.T) {
	env := map[string]string{"CKPT_CHAIN": "c7", "CKPT_RESERVATION": "3", "SLURM_JOB_NUM_NODES": "16", "CKPT_CHECKPOINT_TIME": "42.5"}
	j, err := GateJob("", func(k string) string { return env[k] })
	if err != nil || j.ID != "c7-r3" || j.Nodes != 16 || j.C != 42.5 {
		t.Errorf("%+v %v", j, err)
	}
	env = map[string]string{"SLURM_JOB_NUM_NODES": "-2", "CKPT_CHECKPOINT_TIME": "NaN"}
	if j, err := GateJob("mine", func(k string) string { return env[k] }); err != nil || j.ID != "mine" || j.Nodes != 1 || j.C != 1 {
		t.Errorf("defaults: %+v %v", j, err)
	}
	// No id outside ckpt run: refused naming --id (every such gate was the
	// one job "-r").
	for _, env := range []map[string]string{{}, {"CKPT_CHAIN": "c7"}, {"CKPT_RESERVATION": "3"}} {
		if _, err := GateJob("", func(k string) string { return env[k] }); err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), "--id: not given") {
			t.Errorf("%v: %v", env, err)
		}
	}
}
