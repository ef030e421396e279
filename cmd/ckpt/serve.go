//go:build !lite

package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/coord/replica"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

func newServeCmd() *cobra.Command {
	var r replica.Launch
	l := &r.Launch
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the checkpoint coordinator that running jobs ask (HTTP/JSON)",
		Long: `serve runs one checkpoint coordinator for a shared file system: jobs register,
ask when to checkpoint next (Young, Daly or E(Y), corrected for the allocation
end) and ask for the file system before writing, granted under the
cooperative-checkpointing policies as leases with a TTL and a fencing token.
State lives in a bbolt database and its write-ahead log (one fdatasync per
commit), committed before every answer.`,
		Example: `  ckpt serve --db ckpt.db --init --bandwidth 40GB/s --policy least-waste --token-file tokens
  ckpt serve --listen 127.0.0.1:7070 --db ckpt.db --bandwidth 40GB/s --token-file tokens
  ckpt serve --id n1 --raft 127.0.0.1:7101 --listen 127.0.0.1:7071 --db n1/ --bootstrap --bandwidth 40GB/s --token-file tokens \
    --peers n1=127.0.0.1:7101@127.0.0.1:7071,n2=127.0.0.1:7102@127.0.0.1:7072,n3=127.0.0.1:7103@127.0.0.1:7073`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l.Log = cmd.ErrOrStderr()
			return replica.Serve(cmd.Context(), r)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&l.Listen, "listen", "127.0.0.1:7070", "address to listen on (loopback unless --allow-remote)")
	fl.BoolVar(&l.AllowRemote, "allow-remote", false, "allow a non-loopback --listen (and --raft) address")
	fl.StringVar(&l.DB, "db", "ckpt.db", "database file (must exist unless --init)")
	fl.BoolVar(&l.Init, "init", false, "create a new database (refused if the file exists)")
	fl.StringVar(&l.Bandwidth, "bandwidth", "", "aggregate file-system bandwidth, e.g. 40GB/s (required)")
	fl.StringVar(&l.Policy, "policy", "least-waste", "I/O policy: "+strings.Join(arbiter.Policies.Names(), ", "))
	fl.StringVar(&l.TokenFile, "token-file", "", "file of bearer tokens, one per line (required unless --no-auth)")
	fl.BoolVar(&l.NoAuth, "no-auth", false, "accept requests without a bearer token (tests only)")
	fl.StringVar(&l.TTL, "ttl", "30s", "default lease TTL")
	fl.StringVar(&l.MaxTTL, "max-ttl", "1d", "longest TTL a request may ask for (a simulation on --client-clock may need years)")
	fl.BoolVar(&l.FixedMTBF, "fixed-mtbf", false, "use --node-mtbf as the node MTBF as is, not as a prior updated by reported failures")
	fl.StringVar(&l.NodeMTBF, "node-mtbf", "0", "prior node MTBF for jobs that give neither MTBF nor E(Y) (0: estimate from reported failures only)")
	fl.StringVar(&l.FTA, "fta", "", "Failure Trace Archive event trace (or its folder) whose node MTBF is the prior (instead of --node-mtbf)")
	fl.BoolVar(&l.ClientClock, "client-clock", false, "simulation mode: every request carries its time (\"now\")")
	fl.Float64Var(&l.Rate, "rate", 1000, "requests/s allowed per client address (< 0: unlimited)")
	fl.StringVar(&l.LogFormat, "log-format", "text", "log format on stderr: text or json")
	fl.StringVar(&l.CommitWait, "commit-wait", "1ms", "longest a commit waits for more requests to share its fsync (0: none)")
	fl.BoolVar(&l.Pprof, "pprof", false, "serve the Go profiler at /debug/pprof/ (needs a bearer token, as the API)")
	fl.BoolVar(&l.NoSync, "unsafe-no-sync", false, "do not fsync commits (benchmarks only: not durable)")
	replicaFlags(fl, &r)
	return cmd
}

// replicaFlags adds the flags of `ckpt serve` as a replica of a group
// (given --id; then --db is the replica's folder).
func replicaFlags(fl *pflag.FlagSet, r *replica.Launch) {
	fl.StringVar(&r.ID, "id", "", "serve as replica ID of a replicated group (coord/replica); --db is then its folder")
	fl.StringVar(&r.Raft, "raft", "", "the replica's raft address, host:port (e.g. 127.0.0.1:7101)")
	fl.StringVar(&r.Peers, "peers", "", "the group: id=raft-host:port@http-host:port,… (the HTTP address: where followers redirect)")
	fl.Uint64Var(&r.SnapshotEntries, "snapshot-entries", 0, "a snapshot every N raft entries, N kept in the log (0: raft's 8192, 10240)")
	fl.BoolVar(&r.Bootstrap, "bootstrap", false, "start a new group of --peers on this replica's first start")
}
