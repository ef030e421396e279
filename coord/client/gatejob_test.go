package client

import "testing"

func TestGateJob(t *testing.T) {
	env := map[string]string{"CKPT_CHAIN": "c7", "CKPT_RESERVATION": "3", "SLURM_JOB_NUM_NODES": "16", "CKPT_CHECKPOINT_TIME": "42.5"}
	j := GateJob("", func(k string) string { return env[k] })
	if j.ID != "c7-r3" || j.Nodes != 16 || j.C != 42.5 {
		t.Errorf("%+v", j)
	}
	env = map[string]string{"SLURM_JOB_NUM_NODES": "-2", "CKPT_CHECKPOINT_TIME": "NaN"}
	if j := GateJob("mine", func(k string) string { return env[k] }); j.ID != "mine" || j.Nodes != 1 || j.C != 1 {
		t.Errorf("defaults: %+v", j)
	}
}
