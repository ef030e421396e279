package main

import (
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
concurrent clients (next, acquire, poll, release) for --duration. Without
--server it starts its own coordinator on 127.0.0.1 with a fresh database
in a temporary directory (fsync on unless --unsafe-no-sync). A request that
fails counts as an error, not a decision, and the command then exits 1.
--server with a replicated group's URLs, comma-separated, follows the leader
and retries each request with the same body across failovers.`,
		Example: `  ckpt coord loadgen --jobs 1000 --clients 64 --duration 10s`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { // the coordinator of f, else one started with local
			var err error
			if client.Named(f.url) {
				f.id = "loadgen"
				cl, err := f.client(false)
				if err != nil {
					return err
				}
				opt.URL, opt.Token = cl.Base, cl.Token
			} else if opt.Local, err = local.Config(); err != nil {
				return err
			}
			r, err := loadgen.Run(cmd.Context(), opt)
			if err != nil && !errors.Is(err, loadgen.ErrFailed) {
				return namedFlag(cmd, err, nil)
			}
			if perr := f.print(cmd, r, r.Text()); perr != nil {
				return perr
			}
			return err
		}}
	fl := cmd.Flags()
	fl.IntVar(&opt.Jobs, "jobs", 1000, "simulated jobs")
	fl.IntVar(&opt.Clients, "clients", 64, "concurrent HTTP clients")
	hiddenAlias(fl, "workers", "clients")
	fl.IntVar(&opt.Sources, "sources", 0, "spread the clients over this many loopback source addresses 127.0.0.1… (each has its own server --rate)")
	parsedVar(fl, &opt.Duration, "duration", "10s", "measured duration", wallclock(positive))
	fl.StringVar(&local.Bandwidth, "bandwidth", "40GB/s", "bandwidth of the self-started coordinator")
	fl.StringVar(&local.Policy, "policy", "least-waste", "policy of the self-started coordinator")
	fl.BoolVar(&opt.NoSync, "unsafe-no-sync", false, "self-started coordinator without fsync")
	return cmd
}
