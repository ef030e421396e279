package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/units"
)

// intervalFlags are the flags of ckpt interval: most read straight into
// the request, the others mapped by intervalRequest.
type intervalFlags struct {
	req                interval.Request
	storages           [2]*interval.Storage // --local, --shared
	json               bool
	plotPath, htmlPath string
}

const intervalLong = `Plan how many checkpoints a task should take and how far apart, given its
work Te (time without failure nor checkpoint), the checkpoint cost C, the
restart cost R, and either the expected number of failures during the task
E(Y) (--failures) or the MTBF (--mtbf). The missing one follows from
Corollary 1 (E(Y) = Te/MTBF). Both can also be estimated from history: a
GloudSim Google task trace (--trace, MNOF and MTBF of the tasks of one
--priority shorter than --max-length), the LANL failure log (--lanl, the
MTBF of one --system), or a Failure Trace Archive data set (--fta, e.g. the
Grid'5000 event trace: E(Y) = nodes x Te / node MTBF for a task on --nodes
nodes), or Google cluster task events (--google, MNOF and MTBF of one
--priority).

For each method it prints the number of intervals, the period (work between
checkpoints) and the expected wall-clock time and overhead under Eq. (4) of
Di et al. (SC'13): young = sqrt(2 C MTBF), daly = Daly's higher-order period,
mnof = Theorem 1, x* = sqrt(Te E(Y) / 2C) rounded to the integer minimising
Eq. (4). The overhead is E(Tw)/Te - 1, in percent.

It also chooses between local and shared checkpoint storage (Section 4.2.2):
give the costs of each with --local C,R and --shared C,R, or the task's
memory with --memory MB to interpolate them from the measured BLCR tables
(checkpoint to a local ramdisk or to NFS; restart after migrating the local
image, or from NFS). The tables are checkpoint-costs/blcr in the data folder
(--data DIR, else $CKPT_DATA, else ../shared/data beside the checkout), or
--blcr DIR. They were measured from 10 to 248 MB: outside that range the
costs are extrapolated along a straight line, with a warning on stderr (and
"extrapolated": true in the JSON). Each storage is priced by
C(x-1) + R E(Y) + Te E(Y)/2x at the integer x of Theorem 1 and at the real x*
of Eq. (3), the paper's form; without --ckpt the method table uses the
cheaper storage's C and R.

Durations (--te, --ckpt, --restart, --mtbf, --max-length, the costs of
--local and --shared) are seconds or durations: 90m, 1.5h, 2d, 01:30:00, at
most 1e10 s; a plan of 2^53 intervals or more, or whose expected wall-clock
time overflows for every method, is refused.
Nothing here is random: the same input gives the same output.`

func newIntervalCmd() *cobra.Command {
	var f intervalFlags
	cmd := &cobra.Command{
		Use:   "interval",
		Short: "Plan checkpoint intervals for a failure-prone task (Young, Daly, E(Y) of Di et al.)",
		Long:  intervalLong,
		Example: `  ckpt interval --te 18 --ckpt 2 --failures 2
  ckpt interval --te 441 --ckpt 1 --failures 2 --json
  ckpt interval --te 01:30:00 --ckpt 30s --restart 1m --mtbf 6h
  ckpt interval --te 900 --ckpt 2 --trace mix-jobTrace-dec.dat --priority 1 --max-length 1000
  ckpt interval --te 1d --ckpt 5m --lanl LA-UR-05-7318-failure-data-1996-2005.csv --system 20
  ckpt interval --te 1h --ckpt 1m --fta failures/ --nodes 64
  ckpt interval --te 200 --failures 2 --local 0.632,3.22 --shared 1.67,1.45
  ckpt interval --te 200 --failures 2 --memory 160
  ckpt interval --te 1d --ckpt 5m --lanl LA-UR-05-7318-failure-data-1996-2005.csv --system 20 --html plan.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.CheckPictures(f.plotPath, f.htmlPath); err != nil {
				return err
			}
			req, err := intervalRequest(f, cmd.Flags().Changed)
			if err != nil {
				return err
			}
			rep, err := interval.Run(cmd.Context(), req)
			if err != nil {
				return namedFlag(cmd, err, intervalFlagOf)
			}
			if w := rep.Warning(); w != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: --%s\n", w)
			}
			err = report.WritePictures(f.plotPath, f.htmlPath, rep)
			return printer(cmd, f.json, nil)(rep, err)
		},
	}
	addIntervalFlags(cmd.Flags(), &f)
	cmd.AddCommand(newIntervalSimulateCmd())
	return cmd
}

func addIntervalFlags(fl *pflag.FlagSet, f *intervalFlags) {
	r, fs := &f.req, &f.req.Failures
	durationVar(fl, &r.Te, "te", "", "work of the task Te, without failures nor checkpoints (required)")
	parsedVar(fl, &r.C, "ckpt", "", "checkpoint cost C (> 0; required unless --memory or --local/--shared gives it)", positive)
	parsedVar(fl, &r.R, "restart", "", "restart cost R (>= 0; default 0, or the chosen storage's with --memory or --local/--shared)", optional(units.ParseSeconds))
	parsedVar(fl, &fs.ExpectedFailures, "failures", "", "expected number of failures during the task `E(Y)` (MNOF, >= 0)", optional(interval.ParseExpectedFailures))
	parsedVar(fl, &fs.MTBF, "mtbf", "", "mean time between failures (> 0)", positive)
	fl.StringVar(&fs.GloudSim, "trace", "", "GloudSim task trace (*.dat) to estimate MNOF and MTBF from")
	fl.IntVar(&fs.Priority, "priority", -1, "with --trace or --google: priority group as in the file, 0-11 (the paper prints 1-12); -1 = all tasks")
	durationVar(fl, &fs.MaxLength, "max-length", "", "with --trace: only tasks whose work is below this (default: no limit)")
	fl.StringVar(&fs.LANL, "lanl", "", "LANL failure log (CSV) to estimate the MTBF from")
	fl.IntVar(&fs.System, "system", 0, "with --lanl: system number (required; a wrong one lists the systems)")
	fl.StringVar(&fs.FTA, "fta", "", "Failure Trace Archive event trace (or its folder) to estimate E(Y) and the MTBF from, for a task on --nodes nodes")
	fl.IntVar(&fs.Nodes, "nodes", 1, "with --fta: number of nodes the task runs on (E(Y) = nodes·Te/node MTBF)")
	fl.StringVar(&fs.Google, "google", "", "Google cluster trace task_events table (.csv, .csv.gz) to estimate MNOF and MTBF from (one --priority)")
	fl.Float64Var(&r.MemoryMB, "memory", 0, "task memory in MB: choose local or shared checkpoint storage from the BLCR costs")
	fl.StringVar(&r.BLCR, "blcr", "", "with --memory: folder of the BLCR cost tables (default: checkpoint-costs/blcr in the data folder)")
	fl.StringVar(&r.Data, "data", "", "with --memory: data folder (default: $CKPT_DATA, else ../shared/data beside the checkout)")
	parsedVar(fl, &f.storages[0], "local", "", "checkpoint and restart costs C,R on local storage (with --shared; Section 4.2.2)", storage("local"))
	parsedVar(fl, &f.storages[1], "shared", "", "checkpoint and restart costs C,R on shared storage (with --local)", storage("shared"))
	addJSONFlag(fl, &f.json)
	addPictureFlags(fl, &f.plotPath, &f.htmlPath, "E(Tw) against the number of intervals, the methods' choices marked (and, with --trace, --lanl or --fta, the fitted failure law over the data)")
}

// storage reads the costs C,R of storage name (--local, --shared).
func storage(name string) func(string) (*interval.Storage, error) {
	return optional(func(v string) (interval.Storage, error) { return interval.ParseStorage(name, v) })
}

// intervalRequest completes the request the flags were read into; it
// validates itself in interval.Run.
func intervalRequest(f intervalFlags, given func(string) bool) (interval.Request, error) {
	for _, n := range []struct{ flag, with string }{{"priority", "trace"}, {"system", "lanl"}, {"max-length", "trace"}, {"nodes", "fta"}} {
		if given(n.flag) && !given(n.with) && !(n.flag == "priority" && given("google")) {
			return interval.Request{}, usagef("--%s goes with --%s", n.flag, n.with)
		}
	}
	if given("local") != given("shared") {
		return interval.Request{}, usagef("give both --local C,R and --shared C,R")
	}
	r := f.req
	r.Fits = f.plotPath != "" || f.htmlPath != ""
	if !given("system") {
		r.Failures.System = -1
	}
	if !given("nodes") && r.Failures.FTA == "" {
		r.Failures.Nodes = 0
	}
	for _, s := range f.storages {
		if s != nil {
			r.Storages = append(r.Storages, *s)
		}
	}
	return r, nil
}

// intervalFlagOf names the flag of each field of an interval.Request.
var intervalFlagOf = map[string]string{
	"te_s": "te", "c_s": "ckpt", "r_s": "restart", "memory_mb": "memory", "failures.expected_failures": "failures",
	"failures.mtbf_s": "mtbf", "failures.gloudsim": "trace", "failures.max_length_s": "max-length", "failures.lanl": "lanl",
	"failures.fta": "fta", "failures.nodes": "nodes", "failures.priority": "priority", "failures.google": "google",
	"failures.dist": "dist", "failures.failure_times": "failure-times", "failures.system": "system",
}
