//go:build !lite

package main

import (
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/coord/replica"
)

// replicaFlags adds the flags of `ckpt serve` as a replica of a group
// (given --id; then --db is the replica's folder).
func replicaFlags(fl *pflag.FlagSet, r *replica.Launch) {
	fl.StringVar(&r.ID, "id", "", "serve as replica ID of a replicated group (coord/replica); --db is then its folder")
	fl.StringVar(&r.Raft, "raft", "", "the replica's raft address, host:port (e.g. 127.0.0.1:7101)")
	fl.StringVar(&r.Peers, "peers", "", "the group: id=raft-host:port@http-host:port,… (the HTTP address: where followers redirect)")
	fl.Uint64Var(&r.SnapshotEntries, "snapshot-entries", 0, "a snapshot every N raft entries, N kept in the log (0: raft's 8192, 10240)")
	fl.BoolVar(&r.Bootstrap, "bootstrap", false, "start a new group of --peers on this replica's first start")
}
