package main

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/capacity"
)

func newConvertCmd() *cobra.Command {
	var req capacity.ConvertRequest
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert job lists between SWF, Batsim JSON workloads and ckpt job lists",
		Long: `Convert a job list between the Standard Workload Format (.swf, .swf.gz), a
Batsim JSON workload (.json) and ckpt's own job list (.jobs.json: a JSON array of
{p, c, r, release, length}). Formats come from the extensions; --from and --to
override them (needed for "-", stdin or stdout). SWF has no checkpoint costs:
jobs read from SWF into a ckpt list get --ckpt and --restart. Jobs that cannot be
written (unknown width; unknown run time into Batsim) are skipped and counted.
OUT is written whole or not at all (an existing OUT survives a failure); OUT
cannot be IN.`,
		Example: `  ckpt convert ../shared/data/swf/NASA-iPSC-1993-3.1-cln.swf.gz nasa.json
  ckpt convert nasa.json nasa.jobs.json --ckpt 60 --restart 60
  ckpt convert --from batsim --to swf - - < w.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.In, req.Out, req.Stdin, req.Stdout = args[0], args[1], cmd.InOrStdin(), cmd.OutOrStdout()
			rep, err := capacity.RunConvert(cmd.Context(), req)
			if err != nil {
				return namedFlag(cmd, err, nil)
			}
			return rep.WriteText(cmd.ErrOrStderr()) // stdout may be OUT
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&req.From, "from", "", "input format: swf, batsim or ckpt (default: from IN's extension)")
	fl.StringVar(&req.To, "to", "", "output format: swf, batsim or ckpt (default: from OUT's extension)")
	parsedVar(fl, &req.Checkpoint, "ckpt", "", "checkpoint time C of jobs read from SWF or Batsim into a ckpt list (a duration)", positive)
	parsedVar(fl, &req.Restart, "restart", "", "recovery time R of those jobs (default: --ckpt)", positive)
	fl.IntVar(&req.NbRes, "nb-res", 0, "nb_res of a Batsim output (default: the widest job)")
	return cmd
}

// newCapacityExportCmd writes one generated instance for Batsim.
func newCapacityExportCmd() *cobra.Command {
	var req capacity.ExportRequest
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a generated instance as a Batsim workload, events and platform, and as SWF",
		Long: `Draw the instance that "ckpt capacity simulate" simulates with the same flags
(the first workload) and write PREFIX.json (a Batsim workload: one delay job per
ckpt job, of length R + L, or R + the rest of the horizon for an infinite job;
C, R, L and the sections are kept in ckpt_* fields), PREFIX_events.jsonl (P(t)
as Batsim machine_unavailable/machine_available events on resources
0..P_max-1), PREFIX_platform.xml (P_max hosts and a master) and PREFIX.swf (the
jobs in SWF v2.2, with the generator, parameters and seed in the header).
Replay with Batsim 3.1 to 4.x: batsim -p PREFIX_platform.xml -w PREFIX.json
--events PREFIX_events.jsonl -e out_, then score out_jobs.csv with
"ckpt capacity batsim-score".`,
		Example: `  ckpt capacity export --p-max 16 --sections 4 --load 1 --out inst`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printer(cmd, false, nil)(capacity.RunExport(cmd.Context(), req))
		},
	}
	setupFlags(cmd, &req.Setup)
	cmd.Flags().StringVar(&req.Out, "out", "", "prefix of the files written (a name, as dir/inst: not a folder)")
	cmd.Flags().IntVar(&req.Instance, "instance", 0, "replicate number of the instance (as in capacity sweep)")
	return cmd
}

// newCapacityBatsimScoreCmd measures a Batsim schedule of an exported instance.
func newCapacityBatsimScoreCmd() *cobra.Command {
	var req capacity.ScoreRequest
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "batsim-score",
		Short: "Goodput and yields of a Batsim schedule of an exported instance",
		Long: `Read an instance written by "ckpt capacity export" (--workload PREFIX.json) and
Batsim's PREFIX_jobs.csv of its replay (--schedule), and measure the schedule
with ckpt's metrics: goodput (Eq. 1) and minimum yield (Eq. 3). A job's useful
work is its run time minus R (capped at its length) when it completed or was
still running at the horizon; a job killed earlier loses its work (Batsim's
delay jobs do not checkpoint). Jobs that used a resource P(t) had removed are
counted as violations and earn nothing.`,
		Example: `  ckpt capacity batsim-score --workload inst.json --schedule out_jobs.csv`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printer(cmd, asJSON, nil)(capacity.RunScore(cmd.Context(), req))
		},
	}
	cmd.Flags().StringVar(&req.Workload, "workload", "", "Batsim workload written by ckpt capacity export")
	cmd.Flags().StringVar(&req.Schedule, "schedule", "", "Batsim's PREFIX_jobs.csv")
	// --jobs is a count elsewhere in ckpt (coord loadgen, repro slurm).
	hiddenAlias(cmd.Flags(), "jobs", "schedule")
	addJSONFlag(cmd.Flags(), &asJSON)
	return cmd
}
