//go:build !lite

package main

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/loadgen"
	"github.com/ckpt-hpc/ckpt/iosim"
)

func newCoordSimulateCmd(f *coordFlags) *cobra.Command {
	sf := iosimFlags{sim: iosim.Simulation{Seeds: 1, Workers: 1, MaxEvents: iosim.DefaultMaxEvents, Scheduler: "reserve", Accounting: "ours", IOChunk: 3600}}
	var strategy string
	cmd := &cobra.Command{Use: "simulate", Short: "Closed loop: the I/O simulator with the coordinator as its arbiter, against the in-process run",
		Long: `simulate runs one iosim scenario twice with the same seed — the token granted
in process, then by a coordinator on the simulation's clock over HTTP — and
compares the decisions and the waste. Without --server it starts its own
coordinator on 127.0.0.1 (--client-clock, the platform's bandwidth and node
MTBF, the strategy's policy). A coordinator given with --server must run
with --client-clock --fixed-mtbf, the platform's --bandwidth and --node-mtbf,
the strategy's --policy and a --ttl longer than any wait, on a fresh
database (a simulation's jobs stay registered when it ends). --id is the
prefix of the simulated jobs' ids on the server. Exits 1 if they differ.`,
		Example: `  ckpt coord simulate --strategy least-waste --span 5d --skip 1d
  ckpt coord simulate --strategy ordered-nb-daly --bandwidth 10GB/s --mtbf 1y --seed 3 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCoordSimulate(cmd, f, &sf, strategy) }}
	fl := cmd.Flags()
	sf.platform(fl)
	fl.StringVar(&strategy, "strategy", "least-waste", "token strategy: ordered-*, ordered-nb-*, least-waste*")
	sf.trials(fl, "5d")
	return cmd
}

func runCoordSimulate(cmd *cobra.Command, f *coordFlags, sf *iosimFlags, strategy string) error {
	sim, err := sf.simulation(cmd)
	sim.Strategies = strings.Split(strategy, ",")
	c, opt, st, rerr := sim.ResolveToken()
	if err = cmp.Or(err, rerr); err != nil {
		return namedFlag(cmd, err, map[string]string{"strategies": "strategy"})
	}
	f.id = cmp.Or(f.id, "sim-") // the simulated jobs' prefix
	var cl *client.Client
	if client.Named(f.url) {
		if cl, err = f.client(false); err != nil {
			return err
		}
	}
	rep, err := loadgen.Simulate(cmd.Context(), &c, st, opt, cl, f.id)
	if err != nil {
		return err
	}
	if err := f.print(cmd, rep, rep.Text()); err != nil {
		return err
	}
	return rep.Err()
}
