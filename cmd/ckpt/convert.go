package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/output"
)

func newConvertCmd() *cobra.Command {
	var from, to, ckpt, restart string
	var nbRes int
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert job lists between SWF, Batsim JSON workloads and ckpt job lists",
		Long: `Convert a job list between the Standard Workload Format (.swf, .swf.gz), a
Batsim JSON workload (.json) and ckpt's own job list (.jobs.json: a JSON array of
{p, c, r, release, length}). Formats come from the extensions; --from and --to
override them (needed for "-", stdin or stdout). SWF has no checkpoint costs:
jobs read from SWF into a ckpt list get --ckpt and --restart. Jobs that cannot be
written (unknown width; unknown run time into Batsim) are skipped and counted.`,
		Example: `  ckpt convert ../shared/data/swf/NASA-iPSC-1993-3.1-cln.swf.gz nasa.json
  ckpt convert nasa.json nasa.jobs.json --ckpt 60 --restart 60
  ckpt convert --from batsim --to swf - - < w.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := convertOptions(args, from, to, ckpt, restart, nbRes)
			if err != nil {
				return err
			}
			n, skipped, err := runConvert(cmd, args[0], args[1], o)
			if err != nil {
				return err
			}
			w := output.NewWriter(cmd.ErrOrStderr())
			w.Printf("%d jobs %s → %s", n, o.From, o.To)
			if skipped > 0 {
				w.Printf(", %d skipped", skipped)
			}
			w.Printf("\n")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "input format: swf, batsim or ckpt (default: from IN's extension)")
	fl.StringVar(&to, "to", "", "output format: swf, batsim or ckpt (default: from OUT's extension)")
	fl.StringVar(&ckpt, "ckpt", "", "checkpoint time C of jobs read from SWF or Batsim into a ckpt list (a duration)")
	fl.StringVar(&restart, "restart", "", "recovery time R of those jobs (default: --ckpt)")
	fl.IntVar(&nbRes, "nb-res", 0, "nb_res of a Batsim output (default: the widest job)")
	return cmd
}

// convertOptions checks the flags: every error is a usage error.
func convertOptions(args []string, from, to, ckpt, restart string, nbRes int) (capacity.ConvertOptions, error) {
	o := capacity.ConvertOptions{Name: filepath.Base(args[0]), NbRes: nbRes}
	if args[0] == "-" {
		o.Name = "stdin"
	}
	var err error
	for _, f := range []struct {
		flag, v, path string
		p             *capacity.JobFormat
	}{{"from", from, args[0], &o.From}, {"to", to, args[1], &o.To}} {
		switch {
		case f.v != "":
			*f.p, err = capacity.ParseJobFormat(f.v)
		case f.path == "-":
			err = fmt.Errorf("give the format of %s with --%s", map[string]string{"from": "stdin", "to": "stdout"}[f.flag], f.flag)
		default:
			*f.p, err = capacity.FormatOf(f.path)
		}
		if err != nil {
			return o, usagef("--%s: %v", f.flag, err)
		}
	}
	if nbRes < 0 {
		return o, usagef("--nb-res %d: must be >= 0", nbRes)
	}
	if ckpt != "" {
		if o.C, err = positiveDurationFlag("ckpt", ckpt); err != nil {
			return o, err
		}
		o.R = o.C
	}
	if restart != "" {
		if o.R, err = positiveDurationFlag("restart", restart); err != nil {
			return o, err
		}
	}
	if o.To == capacity.FormatCkpt && o.From == capacity.FormatSWF && ckpt == "" {
		return o, usagef("--ckpt is required to convert SWF to a ckpt job list (SWF has no checkpoint costs)")
	}
	return o, nil
}

// runConvert opens IN and OUT ("-": stdin, stdout) and converts; a failed
// conversion removes the partial output file.
func runConvert(cmd *cobra.Command, in, out string, o capacity.ConvertOptions) (int, int, error) {
	var r io.Reader = cmd.InOrStdin()
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return 0, 0, usage(err)
		}
		defer f.Close()
		r = f
	}
	if out == "-" {
		return capacity.Convert(r, cmd.OutOrStdout(), o)
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	n, skipped, err := capacity.Convert(r, f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removePartial(out)
	}
	return n, skipped, err
}

// newCapacityExportCmd writes one generated instance for Batsim.
func newCapacityExportCmd() *cobra.Command {
	var f simFlags
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
			if err := req.Validate(); err != nil {
				return namedFlagErr(cmd, err)
			}
			s, err := f.setup(cmd)
			if err != nil {
				return err
			}
			req.Setup = s
			rep, err := capacity.RunExport(cmd.Context(), req)
			if err != nil {
				return namedFlagErr(cmd, err)
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	f.register(cmd)
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
			m, err := capacity.RunScore(cmd.Context(), req)
			if err != nil {
				return namedFlagErr(cmd, err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), m)
			}
			return m.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&req.Workload, "workload", "", "Batsim workload written by ckpt capacity export")
	cmd.Flags().StringVar(&req.Schedule, "schedule", "", "Batsim's PREFIX_jobs.csv")
	// --jobs is a count elsewhere in ckpt (coord loadgen, repro slurm).
	hiddenFlagAlias(cmd.Flags(), "schedule", "jobs")
	addJSONFlag(cmd.Flags(), &asJSON)
	return cmd
}
