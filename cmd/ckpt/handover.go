package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// fullOnly are the commands that serve, replicate or draw reproductions
// (they link the Prometheus client, raft and the plotting library), by
// path below the root, with their Use and Short. The lite build (go build
// -tags lite, docs/performance.md "Start-up") links none of them: it lists
// a stand-in of each that hands the invocation to ckpt-full, the default
// build, as it hands over a command given --plot or --html.
var fullOnly = []struct{ path, use, short string }{
	{"serve", "serve", "Run the checkpoint coordinator that running jobs ask (HTTP/JSON)"},
	{"repro", "repro NAME|all", "Reproduce a paper's tables and figures (CSV + PNG/SVG, the paper's numbers beside ours)"},
	{"report", "report DIR", "Gather the reproductions of a results folder into one self-contained HTML page"},
	{"coord loadgen", "loadgen", "Drive a coordinator with N simulated jobs; report decisions/s and latency"},
	{"coord simulate", "simulate", "Closed loop: the I/O simulator with the coordinator as its arbiter, against the in-process run"},
	{"coord members", "members", "Add or remove a replica of a replicated coordinator (through its leader)"}}

// handOver, set by the lite build only, replaces this process by ckpt-full
// with the same arguments and returns only its failure; the default build
// runs every command itself and never hands over.
var handOver func() error

// needsFull reports whether the invocation that cobra resolved to cmd (its
// flags parsed, no work done) must run in ckpt-full: a command of fullOnly,
// help or a job array of one, shell completion (the lite tree lacks the
// stand-ins' flags), or a picture asked with --plot or --html.
func needsFull(cmd *cobra.Command, args []string) bool {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name())
	switch {
	case strings.HasPrefix(cmd.Name(), cobra.ShellCompRequestCmd):
		return true
	case path == " help" || path == " array": // help NAME..., array ... -- [ckpt] NAME...
		if len(args) > 0 && filepath.Base(args[0]) == "ckpt" {
			args = args[1:]
		}
		path = " " + strings.Join(args, " ")
	}
	for _, c := range fullOnly {
		if strings.HasPrefix(path+" ", " "+c.path+" ") {
			return true
		}
	}
	return cmd.Flags().Changed("plot") || cmd.Flags().Changed("html")
}
