// Package askcmd is the command line of the advisor's answer — `ckpt
// advise --model FILE --user U [--nodes N] [--time T] [--json]` — shared
// by ckpt and the lean ckpt-advise: the flags, the advise.AskRequest they
// fill, the report printed (one line, or JSON with --json) and the exit
// status (0; 2 for a usage error, with one line naming the bad value; 1
// for a runtime failure). It imports package advise's answer path, cobra
// and the shared plumbing only, so that ckpt-advise, linking nothing else,
// starts in a few milliseconds (the full ckpt runs the package
// initialisation of every capability it links, whatever the command).
//
// Complexity: flag parsing is linear in the arguments; the answer is
// advise.Ask's.
package askcmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// New returns the ask command named use, shown as prog in its example
// ("advise" and "ckpt advise" in ckpt).
func New(use, prog string) *cobra.Command {
	var r advise.AskRequest
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use + " --model FILE --user U [--nodes N] [--time T]",
		Short: "The site's walltime advisor: the --time to ask for a job about to be submitted",
		Long: `Answer, from a model learnt on the site's job log (ckpt advise learn), with the
walltime to ask: the first reservation of the sequence of least expected
turnaround (waits + runs under the site's fitted wait model), --time-min, the
rest of the sequence if the job is killed, or the advice to keep the user's
request (too little history, or a group whose past advice did worse). See
docs/advise.md.`,
		Example: `  ckpt advise learn ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --model kth.model
  ` + prog + ` --model kth.model --user 12 --nodes 4 --time 15h
  ckpt advise replay ../shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz`,
		Args: func(c *cobra.Command, a []string) error { return usage.Wrap(cobra.NoArgs(c, a)) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := advise.AskRun(cmd.Context(), r)
			switch {
			case err != nil:
				return flagNamed(cmd, err)
			case asJSON:
				return output.WriteJSON(cmd.OutOrStdout(), rep)
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&r.Model, "model", "", "the model file (ckpt advise learn)")
	fl.StringVar(&r.User, "user", "", "the user (SWF: the user number)")
	fl.StringVar(&r.Group, "account", "", "the account or group")
	fl.StringVar(&r.App, "job-name", "", "the job name (SWF: the executable number)")
	fl.StringVar(&r.Queue, "queue", "", "the queue (SWF: the queue number)")
	fl.StringVar(&r.Partition, "partition", "", "the partition")
	fl.Int64Var(&r.Nodes, "nodes", 1, "nodes (or processors, as the log counts them)")
	fl.Var(&seconds{dst: &r.Requested}, "time", "the user's own --time, if any (a duration: 3600, 90m, 01:30:00)")
	fl.BoolVar(&asJSON, "json", false, "print JSON on stdout (progress and warnings stay on stderr)")
	cmd.SetFlagErrorFunc(flagError)
	return cmd
}

// seconds is a duration flag (units.ParseSeconds) whose bad value is
// refused as "--time: error" (FlagError), as every ckpt duration flag's.
type seconds struct {
	text string
	dst  *float64
}

func (s *seconds) String() string { return s.text }
func (s *seconds) Type() string   { return "string" }
func (s *seconds) Set(v string) error {
	d, err := units.ParseSeconds(v)
	if err != nil {
		return usage.Errorf("--time: %v", err)
	}
	*s.dst, s.text = d, v
	return nil
}

// flagError is the command's flag error hook: every flag error is a usage
// error; a bad --time is "--time: error".
func flagError(_ *cobra.Command, err error) error {
	var ue *usage.Error
	if errors.As(err, &ue) {
		return ue
	}
	return usage.Wrap(err)
}

// flagNamed renames the field of a usage error after its flag (the
// request's fields are named as the flags), so that "user: ..." reads
// "--user: ...".
func flagNamed(cmd *cobra.Command, err error) error {
	var ue *usage.Error
	if errors.As(err, &ue) && ue.Field != "" && cmd.Flags().Lookup(ue.Field) != nil {
		ue.Field = "--" + ue.Field
	}
	return err
}

// Execute runs cmd with args and streams and returns the exit status: 0, 2
// for a usage error, 1 for a runtime failure, the error printed on stderr
// in one line after "ckpt: ", as ckpt prints it.
func Execute(ctx context.Context, cmd *cobra.Command, args []string, stdout, stderr io.Writer) int {
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "ckpt:", err)
	if usage.Is(err) {
		return 2
	}
	return 1
}
