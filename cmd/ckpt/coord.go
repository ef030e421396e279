package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/units"
)

// coordFlags are the flags every `ckpt coord` verb shares.
type coordFlags struct {
	url, tokenFile, id, jobToken string
	json                         bool
	timeout                      time.Duration
}

func newCoordCmd() *cobra.Command {
	var f coordFlags
	cmd := &cobra.Command{
		Use:   "coord",
		Short: "Talk to a checkpoint coordinator (ckpt serve) from a shell job",
		Long: `coord registers a job with a running coordinator, asks when to checkpoint
next, acquires and releases the file system, and ends the job. The server
is --server or $CKPT_COORD_URL; the bearer token is the first of
--token-file or $CKPT_COORD_TOKEN; the job's own token is --job-token or
$CKPT_JOB_TOKEN (register prints it when it issues one). A request is retried
(transport error, 429, 503) within --timeout: a verb that gets no answer exits
1 after at most --timeout; acquire's wait for the grant has no bound (--no-wait).`,
		Example: `  export CKPT_COORD_TOKEN=$(head -1 tokens)
  eval "$(ckpt coord register --id sim-42 --nodes 128 --size 2TB --mtbf 12h --end-in 23:50:00 --export)"
  ckpt coord next --id sim-42
  ckpt coord acquire --id sim-42 --json     # waits for the grant
  ckpt coord release --id sim-42 --token 7 --duration 95s
  ckpt coord done --id sim-42`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.url, "server", "", "coordinator URL (if not given: $CKPT_COORD_URL, else "+client.DefaultURL+")")
	pf.StringVar(&f.tokenFile, "token-file", "", "file of bearer tokens, one per line, whose first is used (if not given: the token in $CKPT_COORD_TOKEN)")
	pf.StringVar(&f.id, "id", "", "job id (required)")
	pf.StringVar(&f.jobToken, "job-token", "", "the job's own token (if not given: $CKPT_JOB_TOKEN)")
	addJSONFlag(pf, &f.json)
	parsedVar(pf, &f.timeout, "timeout", "30s", "longest one request to the coordinator takes, retries included (0: no bound but 4 attempts of 10 s, 21 with several URLs)", wallclock(nonNeg))
	cmd.AddCommand(newCoordRegisterCmd(&f), newCoordNextCmd(&f), newCoordAcquireCmd(&f),
		newCoordRenewCmd(&f), newCoordReleaseCmd(&f), newCoordDoneCmd(&f), newCoordLoadgenCmd(&f), newCoordSimulateCmd(&f), newCoordGateCmd(&f), newCoordMembersCmd(&f))
	return cmd
}

// client builds the client and checks --id (and the job token if needed).
func (f *coordFlags) client(needJob bool) (*client.Client, error) {
	return client.ForJob(f.url, f.tokenFile, f.id, &f.jobToken, needJob, f.timeout)
}

// print prints v as JSON with --json, else text.
func (f *coordFlags) print(cmd *cobra.Command, v any, text string) error {
	if f.json {
		return writeJSON(cmd.OutOrStdout(), v)
	}
	w := output.NewWriter(cmd.OutOrStdout())
	w.Println(text)
	return w.Err()
}

func newCoordRegisterCmd(f *coordFlags) *cobra.Command {
	var req api.RegisterRequest
	var endIn float64
	var export bool
	cmd := f.verb("register", "Register a job", "  eval \"$(ckpt coord register --id sim-42 --nodes 128 --size 2TB --mtbf 12h --end-in 23:50:00 --export)\"\n  ckpt coord register --id sim-43 --nodes 64 --ckpt 90s --method ey --ey 3 --work 20h", false, func(ctx context.Context, cl *client.Client) (any, string, error) {
		req.ID, req.JobToken = f.id, f.jobToken
		res, err := cl.RegisterIn(ctx, req, endIn)
		if export {
			return res, "export CKPT_JOB_TOKEN=" + res.JobToken, err
		}
		return res, res.Text(), err
	})
	fl := cmd.Flags()
	fl.IntVar(&req.Nodes, "nodes", 1, "nodes of the job")
	parsedVar(fl, &req.Bytes, "size", "", "checkpoint size, e.g. 2TB (or give --ckpt)", units.ParseSize)
	parsedVar(fl, &req.C, "ckpt", "", "measured checkpoint duration C", positive)
	parsedVar(fl, &req.R, "restart", "", "restart (recovery) duration R (default C)", positive)
	hiddenAlias(fl, "c", "ckpt")
	hiddenAlias(fl, "r", "restart")
	parsedVar(fl, &req.MTBF, "mtbf", "", "the job's MTBF (default: from --ey, else the platform's observed failures)", positive)
	fl.Float64Var(&req.EY, "ey", 0, "expected number of failures over --work")
	parsedVar(fl, &req.Work, "work", "", "the job's work Te (for --method ey)", positive)
	parsedVar(fl, &endIn, "end-in", "", "time left in the allocation (Slurm's squeue -o %L works), if known", positive)
	fl.StringVar(&req.Method, "method", "daly", "period: daly, young or ey (ey needs the work: --work or --end-in)")
	fl.BoolVar(&export, "export", false, "print shell export lines (CKPT_JOB_TOKEN)")
	return cmd
}

// verb is a coord verb that asks the coordinator (needJob: acting for
// the job, with its token): call's answer is printed as JSON or as text.
func (f *coordFlags) verb(use, short, example string, needJob bool, call func(ctx context.Context, cl *client.Client) (any, string, error)) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Example: example, Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		cl, err := f.client(needJob)
		if err != nil {
			return err
		}
		v, text, err := call(cmd.Context(), cl)
		if err != nil {
			return client.Refused(err)
		}
		return f.print(cmd, v, text)
	}}
}

func newCoordNextCmd(f *coordFlags) *cobra.Command {
	return f.verb("next", "When should the job checkpoint next?", "  ckpt coord next --id sim-42 --json", false, func(ctx context.Context, cl *client.Client) (any, string, error) {
		a, err := cl.Next(ctx, f.id, nil)
		return a, a.Text(), err
	})
}

func newCoordAcquireCmd(f *coordFlags) *cobra.Command {
	var req api.AcquireRequest
	var noWait bool
	cmd := f.verb("acquire", "Ask for the file system (waits for the grant)", "  ckpt coord acquire --id sim-42 --json   # waits for the grant: its token, expiry and share\n  ckpt coord acquire --id sim-42 --no-wait --request-id ck-3   # asks once (again: polls), granted or waiting", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		g, err := cl.AcquireWith(ctx, f.id, f.jobToken, req, !noWait)
		return g, fmt.Sprintf("%s %d (request %s)", g.Status, g.Token, g.RequestID), err
	})
	fl := cmd.Flags()
	parsedVar(fl, &req.Kind, "kind", "checkpoint", "transfer kind: input, recovery, regular-io, checkpoint, output", arbiter.ParseKind)
	parsedVar(fl, &req.Bytes, "size", "", "bytes to transfer (default: the job's checkpoint size)", units.ParseSize)
	parsedVar(fl, &req.TTL, "ttl", "", "lease TTL (default: the server's)", positive)
	fl.StringVar(&req.RequestID, "request-id", "", "request id, to retry or poll a request (default: a new one)")
	fl.BoolVar(&noWait, "no-wait", false, "ask once and print granted or waiting")
	return cmd
}

func newCoordRenewCmd(f *coordFlags) *cobra.Command {
	var token uint64
	cmd := f.verb("renew", "Renew a granted lease (heartbeat)", "  ckpt coord renew --id sim-42 --token 7", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		g, err := cl.Renew(ctx, f.id, f.jobToken, token, nil)
		return g, fmt.Sprintf("%s %d", g.Status, g.Token), err
	})
	cmd.Flags().Uint64Var(&token, "token", 0, "the lease's fencing token")
	return cmd
}

func newCoordReleaseCmd(f *coordFlags) *cobra.Command {
	var token uint64
	var d float64
	cmd := f.verb("release", "Release a granted lease, reporting the checkpoint's duration", "  ckpt coord release --id sim-42 --token 7 --duration 95s", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		g, err := cl.Release(ctx, f.id, f.jobToken, token, d, nil)
		return g, fmt.Sprintf("%s %d", g.Status, g.Token), err
	})
	cmd.Flags().Uint64Var(&token, "token", 0, "the lease's fencing token")
	parsedVar(cmd.Flags(), &d, "duration", "", "measured checkpoint duration (default: time since the grant)", nonNeg)
	return cmd
}

func newCoordDoneCmd(f *coordFlags) *cobra.Command {
	var failed bool
	cmd := f.verb("done", "End the job (its run time and failure join the platform's statistics)", "  ckpt coord done --id sim-42\n  ckpt coord done --id sim-42 --failed   # ended by a node failure", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		res, err := cl.Done(ctx, f.id, f.jobToken, failed, nil)
		return res, "done " + f.id, err
	})
	cmd.Flags().BoolVar(&failed, "failed", false, "the job ended by a node failure")
	return cmd
}
