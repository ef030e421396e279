//go:build !lite

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/replica"
)

func newCoordMembersCmd(f *coordFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Short: "Add or remove a replica of a replicated coordinator (through its leader)",
		Example: "  ckpt coord members add n4=127.0.0.1:7104@127.0.0.1:7074 --server http://127.0.0.1:7071,http://127.0.0.1:7072\n  ckpt coord members remove n4"}
	verb := func(use, short string, call func(context.Context, replica.MemberClient, string) (api.GroupView, error)) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, a []string) error {
			cl, err := client.FromEnv(f.url, f.tokenFile)
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
