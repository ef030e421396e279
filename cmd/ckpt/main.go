package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// usageError marks errors caused by the user's input (flags, specs, input
// files): they exit with status 2, everything else with 1. Packages mark
// theirs with usage.Error (a Request's Validate, an input file's loader),
// which counts the same (imported as inputerr: usage is this file's wrapper).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usage wraps err as a usage error (nil stays nil).
func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func newRoot() *cobra.Command {
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	root.AddCommand(
		newReserveCmd(),
		newIntervalCmd(),
		newIOSimCmd(),
		newCapacityCmd(),
		newReproCmd(),
		newReportCmd(),
		newMergeCmd(),
		newArrayCmd(),
		newServeCmd(),
		newCoordCmd(),
		newRunCmd(),
		newChainCmd(),
		newConvertCmd(),
		newFailuresCmd(),
	)
	return root
}

// execute runs ckpt with the given arguments and streams and returns the
// process exit status: 0, 1 for runtime failures, 2 for usage errors. The
// tests call it in-process.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(stderr, "ckpt: interrupted (context canceled); only complete results were written")
		return 1
	}
	fmt.Fprintln(stderr, "ckpt:", err)
	var ue usageError
	if errors.As(err, &ue) || inputerr.Is(err) || isCobraUsage(err) {
		return 2
	}
	return 1
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which do not go through the flag error hook.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
