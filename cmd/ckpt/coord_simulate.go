//go:build !lite

package main

import (
	"cmp"
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/loadgen"
	"github.com/ckpt-hpc/ckpt/coord/replica"
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
  ckpt coord simulate --strategy ordered-nb-daly --bandwidth 20GB/s --mtbf 5y --seed 3 --json`,
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

func newCoordMembersCmd(f *coordFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Short: "Add or remove a replica of a replicated coordinator (through its leader)",
		Example: "  ckpt coord members add n4=127.0.0.1:7104@127.0.0.1:7074 --server http://127.0.0.1:7071,http://127.0.0.1:7072\n  ckpt coord members remove n4"}
	verb := func(use, short string, call func(context.Context, replica.MemberClient, string) (api.GroupView, error)) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, a []string) error {
			cl, err := client.FromEnv(f.url, f.tokenFile, f.timeout)
			if err != nil {
				return err
			}
			g, err := call(cmd.Context(), cl, a[0])
			if err != nil {
				return client.Refused(err)
			}
			return f.print(cmd, g, g.Text())
		}}
	}
	cmd.AddCommand(verb("add ID=RAFT@HTTP", "Add a replica as a voter (start it first, without --bootstrap)", replica.AddMember),
		verb("remove ID", "Remove a replica from the group", func(ctx context.Context, cl replica.MemberClient, id string) (api.GroupView, error) {
			return cl.RemoveMember(ctx, id)
		}))
	return cmd
}
