//go:build lite

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/supervise"
)

// The lite build: each command of fullOnly is a stand-in that hands over.
func newServeCmd() *cobra.Command                    { return standIn("serve") }
func newReproCmd() *cobra.Command                    { return standIn("repro") }
func newReportCmd() *cobra.Command                   { return standIn("report") }
func newCoordLoadgenCmd(*coordFlags) *cobra.Command  { return standIn("coord loadgen") }
func newCoordSimulateCmd(*coordFlags) *cobra.Command { return standIn("coord simulate") }
func newCoordMembersCmd(*coordFlags) *cobra.Command  { return standIn("coord members") }
func isReproduction(string) bool                     { return false } // array -- repro is handed over

func standIn(path string) *cobra.Command {
	return &cobra.Command{Use: fullOnly[path][0], Short: fullOnly[path][1], DisableFlagParsing: true, RunE: func(*cobra.Command, []string) error { return handOver() }}
}

func init() {
	handOver = func() error {
		err := supervise.Handover("ckpt-full", "CKPT_FULL", os.Args[1:])
		return fmt.Errorf("%w (the lite ckpt runs this command there; build it: go build -o ckpt-full ./cmd/ckpt)", err)
	}
}
