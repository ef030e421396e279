//go:build !lite

package main

import (
	"cmp"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/loadgen"
	"github.com/ckpt-hpc/ckpt/coord/server"
)

func newCoordLoadgenCmd(f *coordFlags) *cobra.Command {
	var opt loadgen.Options
	local := server.Settings{TTL: "30s", MaxTTL: "1d", NodeMTBF: "0"}
	cmd := &cobra.Command{Use: "loadgen", Short: "Drive a coordinator with N simulated jobs; report decisions/s and latency",
		Long: `loadgen registers --jobs simulated jobs and drives them from --clients
concurrent clients (next, acquire, poll, release) for --duration, or with
--checkpoints K until each has checkpointed K times and ended (done), bounded by
--duration. Without --server it starts its own coordinator (fresh database,
fsync unless --unsafe-no-sync); given a replicated group's URLs it follows the
leader, retrying with the same body. A failed request is an error, not a
decision (exit 1). --record: every acknowledged grant, release, done (JSON lines).`,
		Example: `  ckpt coord loadgen --jobs 1000 --clients 64 --duration 10s
  ckpt coord loadgen --server $URLS --jobs 1000 --checkpoints 2 --duration 5m --record acks.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) { // the coordinator of f, else one started with local
			if client.Named(f.url) {
				cl, err := client.ForJob(f.url, f.tokenFile, "loadgen", &f.jobToken, false, f.timeout)
				if err != nil {
					return err
				}
				opt.URL, opt.Token = cl.Base, cl.Token
			} else if opt.Local, err = local.Config(); err != nil {
				return err
			}
			opt.Timeout = f.timeout
			r, err := loadgen.Run(cmd.Context(), opt)
			if err != nil && !errors.Is(err, loadgen.ErrFailed) {
				return namedFlag(cmd, err, nil)
			}
			return cmp.Or(f.print(cmd, r, r.Text()), err)
		}}
	fl := cmd.Flags()
	fl.IntVar(&opt.Jobs, "jobs", 1000, "simulated jobs")
	fl.IntVar(&opt.Clients, "clients", 64, "concurrent HTTP clients")
	hiddenAlias(fl, "workers", "clients")
	fl.IntVar(&opt.Sources, "sources", 0, "spread the clients over this many loopback source addresses 127.0.0.1… (each has its own server --rate)")
	parsedVar(fl, &opt.Duration, "duration", "10s", "measured duration (with --checkpoints: the run's bound)", wallclock(positive))
	fl.IntVar(&opt.Checkpoints, "checkpoints", 0, "finish: each job makes this many checkpoints, then ends (0: measure for --duration)")
	fl.StringVar(&opt.Record, "record", "", "write every acknowledged grant, release and done to this file (JSON lines)")
	fl.StringVar(&local.Bandwidth, "bandwidth", "40GB/s", "bandwidth of the self-started coordinator")
	fl.StringVar(&local.Policy, "policy", "least-waste", "policy of the self-started coordinator")
	fl.BoolVar(&opt.NoSync, "unsafe-no-sync", false, "self-started coordinator without fsync")
	return cmd
}
