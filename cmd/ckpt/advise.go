package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/advise/logs"
	"github.com/ckpt-hpc/ckpt/cmd/internal/askcmd"
	"github.com/ckpt-hpc/ckpt/report"
)

// adviseNames maps the advise requests' fields to their flags.
var adviseNames = map[string]string{"min_runs": "min-runs"}

func newAdviseCmd() *cobra.Command {
	cmd := askcmd.New("advise", "ckpt advise") // the ask form, shared with ckpt-advise
	for _, sub := range []*cobra.Command{newAdviseLearnCmd(), newAdviseReplayCmd()} {
		sub.SetFlagErrorFunc(flagError) // the root's, not the ask form's
		cmd.AddCommand(sub)
	}
	return cmd
}

// newAdviseLogCmd is learn or replay: LOG, the method's flags, run.
func newAdviseLogCmd(use, short, example string, model *string,
	run func(ctx context.Context, log string, p advise.Params) (textReport, error)) *cobra.Command {
	p := advise.DefaultParams()
	var wait, plotPath, htmlPath string
	var asJSON bool
	cmd := &cobra.Command{Use: use, Short: short, Example: example, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rep textReport
			m, err := advise.ParseWait(wait)
			if p.Wait = m; err == nil || wait == "" { // --plot, --html checked before the work
				if err = report.CheckPictures(plotPath, htmlPath); err == nil {
					rep, err = run(cmd.Context(), strings.Join(args, ""), p)
				}
			}
			if pic, ok := rep.(report.Pictured); ok && err == nil {
				err = report.WritePictures(plotPath, htmlPath, pic)
			}
			return printer(cmd, asJSON, adviseNames)(rep, err)
		}}
	fl := cmd.Flags()
	if model != nil {
		fl.StringVar(model, "model", "", "the model file to create or extend")
	} else {
		fl.StringVar(&plotPath, "plot", "", "write the picture (turnaround against kill rate) to this .svg or .png")
		fl.StringVar(&htmlPath, "html", "", "write the picture and the table to this HTML page")
	}
	fl.IntVar(&p.MinRuns, "min-runs", p.MinRuns, "ended runs a group needs before it is used")
	fl.IntVar(&p.Window, "window", p.Window, "last runs a group keeps")
	fl.Float64Var(&p.Prior, "prior", p.Prior, "pseudo-runs at the request added to a group's law")
	fl.BoolVar(&p.Abstain, "abstain", p.Abstain, "keep users' requests in groups where past advice did worse")
	fl.StringVar(&wait, "wait", "", "fix the wait model A,B (wait = A·t + B) instead of fitting the log's waits")
	addJSONFlag(fl, &asJSON)
	return cmd
}

func newAdviseLearnCmd() *cobra.Command {
	var r logs.LearnRequest
	cmd := newAdviseLogCmd("learn {LOG | --from-cluster [--since T] [--until T]} --model FILE",
		"Build or extend the advisor's model from a job log (SWF, gzip, CQSim .rst, sacct --parsable2) or the cluster's accounting",
		"  ckpt advise learn ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --model kth.model\n  ckpt advise learn --from-cluster --since 2026-01-01 --model /etc/slurm/ckpt-advise.model", &r.Model,
		func(ctx context.Context, log string, p advise.Params) (textReport, error) {
			r.Log, r.Params = log, p
			return logs.Learn(ctx, r)
		})
	cmd.Args = cobra.MaximumNArgs(1)
	cmd.Flags().BoolVar(&r.FromCluster, "from-cluster", false, "learn every user's jobs from the cluster's accounting (sacct -a), new ones only")
	cmd.Flags().StringVar(&r.Since, "since", "", "--from-cluster: window start, a date, a time or a duration back (default: where the model stopped, or 30d)")
	cmd.Flags().StringVar(&r.Until, "until", "", "--from-cluster: window end (default: now)")
	return cmd
}

func newAdviseReplayCmd() *cobra.Command {
	var priors []float64
	cmd := newAdviseLogCmd("replay LOG", "Replay a job log with no look-ahead: users' requests, last-two, max×k, p90 and ckpt side by side",
		"  ckpt advise replay ../shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz --plot sdsc.svg --priors 0.5,1,4,8", nil,
		func(ctx context.Context, log string, p advise.Params) (textReport, error) {
			return logs.ReplayRun(ctx, logs.ReplayRequest{Log: log, Params: p, Priors: priors})
		})
	cmd.Flags().Float64SliceVar(&priors, "priors", nil, "also replay ckpt with each of these priors (its operating points)")
	return cmd
}
