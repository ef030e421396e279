package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/loadgen"
)

type loadgenFlags struct {
	jobs, workers               int
	duration, bandwidth, policy string
	noSync                      bool
}

func newCoordLoadgenCmd(f *coordFlags) *cobra.Command {
	var lf loadgenFlags
	cmd := &cobra.Command{Use: "loadgen", Short: "Drive a coordinator with N simulated jobs; report decisions/s and latency",
		Long: `loadgen registers --jobs simulated jobs and drives them from --workers
concurrent clients (next, acquire, poll, release) for --duration. Without
--server it starts its own coordinator on 127.0.0.1 with a fresh database
in a temporary directory (fsync on unless --unsafe-no-sync).`,
		Example: `  ckpt coord loadgen --jobs 1000 --workers 64 --duration 10s`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runCoordLoadgen(cmd, f, lf) }}
	fl := cmd.Flags()
	fl.IntVar(&lf.jobs, "jobs", 1000, "simulated jobs")
	fl.IntVar(&lf.workers, "workers", 64, "concurrent clients")
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
	if lf.jobs < 1 || lf.jobs > 1e6 || lf.workers < 1 || lf.workers > 1e4 {
		return usagef("--jobs %d / --workers %d: want 1..1e6 jobs and 1..1e4 workers", lf.jobs, lf.workers)
	}
	opt := loadgen.Options{Jobs: lf.jobs, Workers: lf.workers, Duration: time.Duration(d * float64(time.Second)),
		Prefix: fmt.Sprintf("lg%d-", time.Now().UnixNano())}
	if cmd.Flags().Changed("server") || os.Getenv("CKPT_COORD_URL") != "" {
		f.id = "loadgen"
		cl, err := f.client(false)
		if err != nil {
			return err
		}
		opt.URL, opt.Token = cl.Base, cl.Token
	} else {
		cfg, err := serveConfig(serveFlags{bandwidth: lf.bandwidth, policy: lf.policy, ttl: "30s", maxTTL: "1d", nodeMTBF: "0"})
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "ckpt-loadgen")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		url, stop, err := loadgen.StartLocal(cmd.Context(), cfg, dir, lf.noSync)
		if err != nil {
			return err
		}
		defer stop()
		opt.URL, opt.Token = url, loadgen.LocalToken
	}
	r, err := loadgen.Run(cmd.Context(), opt)
	if err != nil {
		return err
	}
	return f.print(cmd, r, fmt.Sprintf("%d jobs, %d workers: %d decisions in %.1fs = %.0f/s; latency p50 %.2f ms, p99 %.2f ms, max %.1f ms; %d grants, %d errors",
		r.Jobs, r.Workers, r.Decisions, r.Seconds, r.PerSecond, r.P50*1e3, r.P99*1e3, r.Max*1e3, r.Grants, r.Errors))
}
