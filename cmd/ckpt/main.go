// Command ckpt plans and simulates checkpointing, reservations and
// scheduling for HPC and cloud jobs. Each subcommand wires flags to one of
// the library packages; see the README for the layout.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// usageError marks errors caused by the user's input (flags, specs, input
// files): they exit with status 2, everything else with 1.
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
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

// commands are the subcommands; each capability's file adds its own in an
// init function, so that capabilities do not edit each other's files.
var commands []func() *cobra.Command

func init() {
	commands = append(commands, newReserveCmd, newReproCmd, newMergeCmd)
}

func main() {
	root := newRoot()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := root.ExecuteContext(ctx)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "ckpt:", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		os.Exit(2)
	}
	os.Exit(1)
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
