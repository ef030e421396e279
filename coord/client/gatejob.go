package client

import (
	"strconv"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// GateJob is the job `ckpt coord gate` registers for the reservation it
// runs in, read from the runner's environment (getenv): id, or
// $CKPT_CHAIN-r$CKPT_RESERVATION when empty, on $SLURM_JOB_NUM_NODES
// nodes (1 if unset or not a positive count), with the planned checkpoint
// duration C = $CKPT_CHECKPOINT_TIME seconds (1 if unset or not > 0).
// Without an id and outside ckpt run (either variable unset) it is a usage
// error of --id: every such gate registered as the one job "-r".
func GateJob(id string, getenv func(string) string) (api.RegisterRequest, error) {
	if id == "" {
		chain, r := getenv("CKPT_CHAIN"), getenv("CKPT_RESERVATION")
		if chain == "" || r == "" {
			return api.RegisterRequest{}, usage.Fieldf("--id", "not given, and $CKPT_CHAIN or $CKPT_RESERVATION is not set (the gate runs under ckpt run, which sets them)")
		}
		id = chain + "-r" + r
	}
	job := api.RegisterRequest{ID: id, Nodes: 1, C: 1}
	if n, err := strconv.Atoi(getenv("SLURM_JOB_NUM_NODES")); err == nil && n > 0 {
		job.Nodes = n
	}
	if c, err := strconv.ParseFloat(getenv("CKPT_CHECKPOINT_TIME"), 64); err == nil && c > 0 && c <= 1e10 {
		job.C = c
	}
	return job, nil
}
