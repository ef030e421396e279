package main

import (
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/repro"
)

// addReproItemFlags maps the flags that run a reproduction on a job array
// to repro.Items.
func addReproItemFlags(fl *pflag.FlagSet, it *repro.Items) {
	fl.StringVar(&it.Shard, "shard", "", "compute only shard i/n (or auto, auto/N in a job array) of every sweep's items, into --items; outputs are then left to --finish")
	fl.StringVar(&it.ItemLog, "items", "", "record every sweep item's result to this .jsonl item log (with --shard: the shard's items)")
	fl.StringVar(&it.Finish, "finish", "", "finish from this merged item log (ckpt merge of the shards' --items): write every table and figure without recomputing the sweeps")
}
