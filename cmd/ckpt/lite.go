//go:build lite

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/supervise"
)

// The lite build: every command of fullOnly is a stand-in that hands over.
func newServeCmd() *cobra.Command                    { return standIn("serve") }
func newReproCmd() *cobra.Command                    { return standIn("repro") }
func newReportCmd() *cobra.Command                   { return standIn("report") }
func newCoordLoadgenCmd(*coordFlags) *cobra.Command  { return standIn("coord loadgen") }
func newCoordSimulateCmd(*coordFlags) *cobra.Command { return standIn("coord simulate") }
func newCoordMembersCmd(*coordFlags) *cobra.Command  { return standIn("coord members") }
func isReproduction(string) bool                     { return false } // array -- repro: handed over

func init() {
	handOver = func() error {
		err := supervise.Handover("ckpt-full", "CKPT_FULL", os.Args[1:])
		return fmt.Errorf("%w (this lite ckpt runs the command there; build it: go build -o ckpt-full ./cmd/ckpt)", err)
	}
}

// standIn is the command of fullOnly at path as the lite tree lists it.
func standIn(path string) *cobra.Command {
	for _, c := range fullOnly {
		if c.path == path {
			return &cobra.Command{Use: c.use, Short: c.short, DisableFlagParsing: true, RunE: func(*cobra.Command, []string) error { return handOver() }}
		}
	}
	panic("no command " + path + " in fullOnly")
}
