package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/loadgen"
	"github.com/ckpt-hpc/ckpt/coord/server"
)

type loadgenFlags struct {
	jobs, clients               int
	duration, bandwidth, policy string
	noSync                      bool
}

func newCoordLoadgenCmd(f *coordFlags) *cobra.Command {
	var lf loadgenFlags
	cmd := &cobra.Command{Use: "loadgen", Short: "Drive a coordinator with N simulated jobs; report decisions/s and latency",
		Long: `loadgen registers --jobs simulated jobs and drives them from --clients
concurrent clients (next, acquire, poll, release) for --duration. Without
--server it starts its own coordinator on 127.0.0.1 with a fresh database
in a temporary directory (fsync on unless --unsafe-no-sync). A request that
fails counts as an error, not a decision, and the command then exits 1.`,
		Example: `  ckpt coord loadgen --jobs 1000 --clients 64 --duration 10s`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runCoordLoadgen(cmd, f, lf) }}
	fl := cmd.Flags()
	fl.IntVar(&lf.jobs, "jobs", 1000, "simulated jobs")
	fl.IntVar(&lf.clients, "clients", 64, "concurrent HTTP clients")
	fl.IntVar(&lf.clients, "workers", 64, "old name of --clients")
	fl.MarkHidden("workers")
	fl.StringVar(&lf.duration, "duration", "10s", "measured duration")
	fl.StringVar(&lf.bandwidth, "bandwidth", "40GB/s", "bandwidth of the self-started coordinator")
	fl.StringVar(&lf.policy, "policy", "least-waste", "policy of the self-started coordinator")
	fl.BoolVar(&lf.noSync, "unsafe-no-sync", false, "self-started coordinator without fsync")
	return cmd
}

func runCoordLoadgen(cmd *cobra.Command, f *coordFlags, lf loadgenFlags) error {
	d, err := positiveDurationFlag("duration", lf.duration)
	if err != nil {
		return err
	}
	opt := loadgen.Options{Jobs: lf.jobs, Clients: lf.clients, Duration: time.Duration(d * float64(time.Second)),
		Prefix: fmt.Sprintf("lg%d-", time.Now().UnixNano()), NoSync: lf.noSync}
	if f.remote() {
		f.id = "loadgen"
		cl, err := f.client(false)
		if err != nil {
			return err
		}
		opt.URL, opt.Token = cl.Base, cl.Token
	} else if opt.Local, err = (server.Settings{Bandwidth: lf.bandwidth, Policy: lf.policy, TTL: "30s", MaxTTL: "1d", NodeMTBF: "0"}).Config(); err != nil {
		return err
	}
	r, err := loadgen.Run(cmd.Context(), opt)
	if err != nil && !errors.Is(err, loadgen.ErrFailed) {
		return err
	}
	if perr := f.print(cmd, r, r.Text()); perr != nil {
		return perr
	}
	return err
}
