package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord"
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
$CKPT_JOB_TOKEN (register prints it when it issues one).`,
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
	cmd.AddCommand(newCoordRegisterCmd(&f), newCoordNextCmd(&f), newCoordAcquireCmd(&f),
		newCoordRenewCmd(&f), newCoordReleaseCmd(&f), newCoordDoneCmd(&f), newCoordLoadgenCmd(&f), newCoordSimulateCmd(&f), newCoordGateCmd(&f))
	return cmd
}

// remote reports whether a coordinator was named (--server or
// $CKPT_COORD_URL).
func (f *coordFlags) remote() bool { return client.Named(f.url) }

// client builds the client and checks --id (and the job token if needed).
func (f *coordFlags) client(needJob bool) (*client.Client, error) {
	if f.id == "" {
		return nil, usagef("--id: required")
	}
	if f.jobToken == "" {
		f.jobToken = os.Getenv("CKPT_JOB_TOKEN")
	}
	if needJob && f.jobToken == "" {
		return nil, usagef("--job-token: required (or $CKPT_JOB_TOKEN)")
	}
	return client.FromEnv(f.url, f.tokenFile)
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

type registerFlags struct {
	nodes                                 int
	size, c, r, mtbf, work, endIn, method string
	ey                                    float64
	export                                bool
}

func newCoordRegisterCmd(f *coordFlags) *cobra.Command {
	var rf registerFlags
	cmd := &cobra.Command{Use: "register", Short: "Register a job", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCoordRegister(cmd, f, rf) }}
	fl := cmd.Flags()
	fl.IntVar(&rf.nodes, "nodes", 1, "nodes of the job")
	fl.StringVar(&rf.size, "size", "", "checkpoint size, e.g. 2TB (or give --ckpt)")
	fl.StringVar(&rf.c, "ckpt", "", "measured checkpoint duration C")
	fl.StringVar(&rf.r, "restart", "", "restart (recovery) duration R (default C)")
	fl.StringVar(&rf.c, "c", "", "old name of --ckpt")
	fl.StringVar(&rf.r, "r", "", "old name of --restart")
	fl.MarkHidden("c")
	fl.MarkHidden("r")
	fl.StringVar(&rf.mtbf, "mtbf", "", "the job's MTBF (default: from --ey, else the platform's observed failures)")
	fl.Float64Var(&rf.ey, "ey", 0, "expected number of failures over --work")
	fl.StringVar(&rf.work, "work", "", "the job's work Te (for --method ey)")
	fl.StringVar(&rf.endIn, "end-in", "", "time left in the allocation (Slurm's squeue -o %L works), if known")
	fl.StringVar(&rf.method, "method", "daly", "period: daly, young or ey")
	fl.BoolVar(&rf.export, "export", false, "print shell export lines (CKPT_JOB_TOKEN)")
	return cmd
}

func runCoordRegister(cmd *cobra.Command, f *coordFlags, rf registerFlags) error {
	cl, err := f.client(false)
	if err != nil {
		return err
	}
	req := api.RegisterRequest{ID: f.id, Nodes: rf.nodes, EY: rf.ey, Method: rf.method, JobToken: f.jobToken}
	if req.JobToken == "" {
		req.JobToken = client.NewJobToken()
	}
	if rf.size != "" {
		if req.Bytes, err = sizeFlag("size", rf.size); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name, v string
		p       *float64
	}{{"ckpt", rf.c, &req.C}, {"restart", rf.r, &req.R}, {"mtbf", rf.mtbf, &req.MTBF}, {"work", rf.work, &req.Work}} {
		if d.v != "" {
			if *d.p, err = positiveDurationFlag(d.name, d.v); err != nil {
				return err
			}
		}
	}
	if rf.endIn != "" {
		left, err := positiveDurationFlag("end-in", rf.endIn)
		if err != nil {
			return err
		}
		req.End = float64(time.Now().UnixNano())/1e9 + left
	}
	res, err := cl.Register(cmd.Context(), req)
	if err != nil {
		return client.Refused(err)
	}
	res.JobToken = req.JobToken
	text := res.Text()
	if rf.export {
		text = "export CKPT_JOB_TOKEN=" + req.JobToken
	}
	return f.print(cmd, res, text)
}

// sizeFlag reads a size in bytes ("2TB", "40e9").
func sizeFlag(name, v string) (float64, error) {
	b, err := units.ParseBandwidth(v)
	if err != nil || strings.HasSuffix(strings.TrimSpace(v), "/s") || !(b > 0) {
		return 0, usagef("--%s: bad size %q (want bytes > 0, e.g. 40e9 or 2TB)", name, v)
	}
	return b, nil
}

// verb is a coord verb that asks the coordinator (needJob: acting for
// the job, with its token): call's answer is printed as JSON or as text.
func (f *coordFlags) verb(use, short string, needJob bool, call func(ctx context.Context, cl *client.Client) (any, string, error)) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
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
	return f.verb("next", "When should the job checkpoint next?", false, func(ctx context.Context, cl *client.Client) (any, string, error) {
		a, err := cl.Next(ctx, f.id, nil)
		return a, a.Text(), err
	})
}

func newCoordAcquireCmd(f *coordFlags) *cobra.Command {
	var kind, size, ttl, rid string
	var noWait bool
	cmd := f.verb("acquire", "Ask for the file system (waits for the grant)", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		req := api.AcquireRequest{RequestID: rid}
		var err error
		if req.Kind, err = arbiter.ParseKind(kind); err != nil {
			return nil, "", usagef("--kind: %v", err)
		}
		if size != "" {
			if req.Bytes, err = sizeFlag("size", size); err != nil {
				return nil, "", err
			}
		}
		if ttl != "" {
			if req.TTL, err = positiveDurationFlag("ttl", ttl); err != nil {
				return nil, "", err
			}
		}
		var g coord.Grant
		if noWait {
			req.RequestID = cmp.Or(req.RequestID, client.NewRequestID())
			g, err = cl.Acquire(ctx, f.id, f.jobToken, req)
		} else {
			g, err = cl.WaitGrant(ctx, f.id, f.jobToken, req)
		}
		return g, fmt.Sprintf("%s %d (request %s)", g.Status, g.Token, g.RequestID), err
	})
	fl := cmd.Flags()
	fl.StringVar(&kind, "kind", "checkpoint", "transfer kind: input, recovery, regular-io, checkpoint, output")
	fl.StringVar(&size, "size", "", "bytes to transfer (default: the job's checkpoint size)")
	fl.StringVar(&ttl, "ttl", "", "lease TTL (default: the server's)")
	fl.StringVar(&rid, "request-id", "", "request id, to retry or poll a request (default: a new one)")
	fl.BoolVar(&noWait, "no-wait", false, "ask once and print granted or waiting")
	return cmd
}

func newCoordRenewCmd(f *coordFlags) *cobra.Command {
	var token uint64
	cmd := f.verb("renew", "Renew a granted lease (heartbeat)", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		g, err := cl.Renew(ctx, f.id, f.jobToken, token, nil)
		return g, fmt.Sprintf("%s %d", g.Status, g.Token), err
	})
	cmd.Flags().Uint64Var(&token, "token", 0, "the lease's fencing token")
	return cmd
}

func newCoordReleaseCmd(f *coordFlags) *cobra.Command {
	var token uint64
	var dur string
	cmd := f.verb("release", "Release a granted lease, reporting the checkpoint's duration", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		d := 0.0
		if dur != "" {
			var err error
			if d, err = nonNegDurationFlag("duration", dur); err != nil {
				return nil, "", err
			}
		}
		g, err := cl.Release(ctx, f.id, f.jobToken, token, d, nil)
		return g, fmt.Sprintf("%s %d", g.Status, g.Token), err
	})
	cmd.Flags().Uint64Var(&token, "token", 0, "the lease's fencing token")
	cmd.Flags().StringVar(&dur, "duration", "", "measured checkpoint duration (default: time since the grant)")
	return cmd
}

func newCoordDoneCmd(f *coordFlags) *cobra.Command {
	var failed bool
	cmd := f.verb("done", "End the job (its run time and failure join the platform's statistics)", true, func(ctx context.Context, cl *client.Client) (any, string, error) {
		res, err := cl.Done(ctx, f.id, f.jobToken, failed, nil)
		return res, "done " + f.id, err
	})
	cmd.Flags().BoolVar(&failed, "failed", false, "the job ended by a node failure")
	return cmd
}
