package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/supervise"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// usage marks err as a usage error (nil stays nil): errors caused by the
// user's input (flags, specs, input files) exit with status 2, everything
// else with 1. Packages mark theirs the same way, with package usage (a
// Request's Validate, an input file's loader; imported as inputerr: usage
// is this wrapper).
func usage(err error) error { return inputerr.Wrap(err) }

func usagef(format string, a ...any) error { return inputerr.Errorf(format, a...) }

// newRoot builds the command tree: every command, or with args only the
// one that args[0] names, if it names one (the full tree, about 200 kB of
// flag tables, is built for --help, help, completion and anything else), so
// that start-up stays small.
func newRoot(args ...string) *cobra.Command {
	verbs := []struct {
		name  string
		build func() *cobra.Command
	}{{"reserve", newReserveCmd}, {"interval", newIntervalCmd}, {"iosim", newIOSimCmd},
		{"capacity", newCapacityCmd}, {"repro", newReproCmd}, {"report", newReportCmd},
		{"merge", newMergeCmd}, {"array", newArrayCmd}, {"serve", newServeCmd}, {"coord", newCoordCmd},
		{"run", newRunCmd}, {"chain", newChainCmd}, {"convert", newConvertCmd},
		{"failures", newFailuresCmd}, {"advise", newAdviseCmd}}
	root := &cobra.Command{
		Use:   "ckpt",
		Short: "Plan and simulate checkpointing, reservations and scheduling for HPC and cloud jobs",
		Long: `ckpt plans reservation sequences with checkpoints for jobs of random walltime,
checkpoint intervals for failure-prone tasks, and simulates shared platforms.
Every command prints a human-readable report, or JSON with --json.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = func(c *cobra.Command, a []string) error { // the lite build's hand-over, not after a Ctrl-C
		if handOver == nil || !needsFull(c, a) || c.Context().Err() != nil {
			return c.Context().Err()
		}
		return handOver()
	}
	for i, v := range verbs {
		if len(args) > 0 && args[0] == v.name {
			verbs = verbs[i : i+1]
			break
		}
	}
	for _, v := range verbs {
		root.AddCommand(v.build())
	}
	markArgErrors(root)
	return root
}

// fullOnly are the commands that serve, replicate or draw reproductions
// (linking the Prometheus client, raft, the plotting library), by path,
// with their Use and Short. The lite build (go build -tags lite; see
// docs/performance.md, "Start-up") lists a stand-in of each and hands them
// to ckpt-full, the default build, as it does a run given --plot or --html.
var fullOnly = map[string][2]string{
	"serve":          {"serve", "Run the checkpoint coordinator that running jobs ask (HTTP/JSON)"},
	"repro":          {"repro NAME|all", "Reproduce a paper's tables and figures (CSV + PNG/SVG, the paper's numbers beside ours)"},
	"report":         {"report DIR", "Gather the reproductions of a results folder into one self-contained HTML page"},
	"coord loadgen":  {"loadgen", "Drive a coordinator with N simulated jobs; report decisions/s and latency"},
	"coord simulate": {"simulate", "Closed loop: the I/O simulator with the coordinator as its arbiter, against the in-process run"},
	"coord members":  {"members", "Add or remove a replica of a replicated coordinator (through its leader)"}}

// handOver, set by the lite build only, execs ckpt-full with the same
// arguments and returns only its failure; the default build never hands over.
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
	case path == " help" || path == " array": // help NAME..., array ... -- [ckpt] NAME... (flags before NAME too)
		if len(args) > 0 && filepath.Base(args[0]) == "ckpt" {
			args = args[1:]
		}
		if sub, _, err := newRoot().Find(args); err == nil { // the whole tree: this one may hold one verb
			path = strings.TrimPrefix(sub.CommandPath(), cmd.Root().Name())
		}
	}
	for p := range fullOnly {
		if strings.HasPrefix(path+" ", " "+p+" ") {
			return true
		}
	}
	return cmd.Flags().Changed("plot") || cmd.Flags().Changed("html")
}

// markArgErrors makes every command's argument errors (cobra's Args checks: unknown
// command, wrong count) usage errors; `ckpt coord nosuch` is unknown, not help.
func markArgErrors(c *cobra.Command) {
	if c.HasParent() && c.HasSubCommands() && !c.Runnable() {
		c.Args, c.RunE = cobra.NoArgs, func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if args := c.Args; args != nil {
		c.Args = func(c *cobra.Command, a []string) error { return usage(args(c, a)) }
	}
	for _, sub := range c.Commands() {
		markArgErrors(sub)
	}
}

// execute runs ckpt with the given arguments and streams and returns the
// process exit status: 0, 1 for runtime failures, 2 for usage errors, or
// the status of the program ckpt stood for (coord gate: its app's). The
// tests call it in-process.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(args...)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(stderr, "ckpt: interrupted (context canceled)"+runner.PartialNote(err))
		return 1
	}
	fmt.Fprintln(stderr, "ckpt:", err)
	if st := (interface{ ExitStatus() int })(nil); errors.As(err, &st) {
		return st.ExitStatus()
	}
	if inputerr.Is(err) || isUnknownCommand(err) {
		return 2
	}
	return 1
}

func main() {
	if handOver == nil {
		os.Unsetenv(supervise.HandedOver) // the full build: what it starts may hand over again
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// isUnknownCommand recognises the root's untyped unknown-command error.
func isUnknownCommand(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}
