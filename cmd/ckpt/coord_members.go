package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/replica"
)

func newCoordMembersCmd(f *coordFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Short: "Add or remove a replica of a replicated coordinator (through its leader)",
		Example: "  ckpt coord members add n4=127.0.0.1:7104@127.0.0.1:7074 --server http://127.0.0.1:7071,http://127.0.0.1:7072\n  ckpt coord members remove n4"}
	var arg string
	add := f.verb("add ID=RAFT@HTTP", "Add a replica as a voter (start it without --bootstrap)", false, func(ctx context.Context, cl *client.Client) (any, string, error) {
		m, err := replica.ParseMember(arg)
		if err != nil {
			return nil, "", err
		}
		g, err := cl.AddMember(ctx, m)
		return g, g.Text(), err
	})
	remove := f.verb("remove ID", "Remove a replica from the group", false, func(ctx context.Context, cl *client.Client) (any, string, error) {
		g, err := cl.RemoveMember(ctx, arg)
		return g, g.Text(), err
	})
	for _, c := range []*cobra.Command{add, remove} {
		c.Args, c.PreRun = cobra.ExactArgs(1), func(_ *cobra.Command, a []string) { arg = a[0] }
		cmd.AddCommand(c)
	}
	return cmd
}
