package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
)

// tasksFlag is the flag of ckpt reserve naming a folder of traces,
// profileSources the two flags that give a model, and withSource the start
// of the help of the flags that need one.
const (
	tasksFlag      = "task-dir"
	profileSources = "--profile/--" + tasksFlag
	withSource     = "with " + profileSources + ": "
)

// addProfileFlags defines the flags of --profile/--task-dir, bound to the
// memplan.Request f.mem (with its defaults) but for the two costs whose
// default is the model's.
func (f *reserveFlags) addProfileFlags(cmd *cobra.Command) {
	fl, m := cmd.Flags(), &f.mem
	*m = memplan.DefaultRequest()
	fl.StringVar(&m.Strategy, "mem-strategy", m.Strategy, withSource+""+strings.Join(memplan.AppStrategies, "|"))
	fl.Float64Var(&m.MemTau, "mem-tau", m.MemTau, withSource+"request the largest memory of the tasks running with probability > tau (given the job still runs)")
	fl.Float64Var(&m.CkptTau, "ckpt-tau", m.CkptTau, withSource+"the checkpoint at t saves M_tau(t) of memory (Eq. (2))")
	parsedVar(fl, &m.CkptLatencyS, "ckpt-latency", "", withSource+"checkpoint latency l of C(V) = l + V/b (default: the profile's, else CRIU's 4.1s)", optional(units.ParseSeconds))
	parsedVar(fl, &f.ckptBandwidth, "ckpt-bandwidth", "", withSource+"checkpoint bandwidth b with its unit, e.g. 500MB/s or 1GB/s (default: the profile's, else CRIU's 0.207GB/s)", units.ParseGBps)
	fl.Float64Var(&m.MemMargin, "mem-margin", m.MemMargin, withSource+"add this fraction to every memory request (headroom, e.g. 0.1)")
	fl.Float64Var(&m.V2Eps, "v2-eps", m.V2Eps, withSource+"probability that mem-all-ckpt-v2's first reservation reaches the memory-hungry task")
	fl.StringVar(&m.TransferRuns, "transfer-runs", "", withSource+"a file of the phase walltimes of runs on another machine (one run per line); the plan is moved there with one slowdown per phase (Section 4.5)")
	fl.IntVar(&m.Phases, "phases", m.Phases, "with --"+tasksFlag+" of whole-run traces: keep the runs segmented into this many phases (default: the most common count; the others are dropped with a warning)")
	cmd.Example += `
  ckpt reserve --profile slant
  ckpt reserve --profile app.yaml --json
  ckpt reserve --task-dir runs/ --mem-strategy mem-all-ckpt-v2 --sbatch job.sh > submit.sh
  ckpt reserve --profile slant --transfer-runs knl-phase-times.csv`
}

// profileOnlyFlags are the flags addProfileFlags defines.
var profileOnlyFlags = []string{"mem-strategy", "mem-tau", "ckpt-tau", "ckpt-latency", "ckpt-bandwidth", "mem-margin", "v2-eps", "phases", "transfer-runs"}

// checkProfileOnlyFlags refuses the flags of --profile/--task-dir without
// them, rather than ignore them.
func (f reserveFlags) checkProfileOnlyFlags(fl *pflag.FlagSet) error {
	if f.mem.Profile != "" || f.mem.Tasks != "" {
		return nil
	}
	for _, name := range profileOnlyFlags {
		if fl.Changed(name) { // --phases is --task-dir's only
			return usagef("--%s applies only with %s%s", name, map[bool]string{false: "--profile or --", true: "--"}[name == "phases"], tasksFlag)
		}
	}
	return nil
}

// singleJobFlags are the flags of ckpt reserve that only the single-job
// planner reads, with the reason they do not apply to --profile/--tasks.
var singleJobFlags = []struct{ name, why string }{
	{"alpha", costsWhy}, {"beta", costsWhy}, {"gamma", costsWhy},
	{"epsilon", "the walltime law is discretised on --n points (default 1000)"},
	{"max-n", "the walltime law is discretised on --n points (default 1000)"},
	{"max-tau", "the multi-phase strategies are not periodic"},
	{"column", "it selects the column of --history"},
	{"slurm", "the multi-phase planner plans in continuous time"},
	{"margin", "the multi-phase planner plans in continuous time"},
}

// costsWhy is why the cost model's flags do not apply to --profile/--tasks.
const costsWhy = "they minimise the reservation time (alpha=1, beta=gamma=0)"

func runProfile(cmd *cobra.Command, f reserveFlags) error {
	req, err := profileRequest(cmd, f)
	if err != nil {
		return err
	}
	rep, err := memplan.Run(cmd.Context(), req)
	if err != nil {
		return profileFlagError(cmd.Flags(), f.partitionError(cmd.Flags(), err, req.MaxRequest))
	}
	return f.writePlan(cmd, rep, func() ([]slurm.Step, error) { return slurm.MemPlanSteps(rep.Plan) })
}

// profileRequest maps the flags of ckpt reserve --profile/--task-dir to a
// memplan.Request, after refusing the flags that do not apply.
func profileRequest(cmd *cobra.Command, f reserveFlags) (memplan.Request, error) {
	fl := cmd.Flags()
	if err := checkProfileFlags(cmd, f); err != nil {
		return memplan.Request{}, err
	}
	req := f.mem
	req.Others, req.TailMass = !f.req.NoBaselines, f.req.TailMass
	req.Warn = func(w string) {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: %s (--phases N keeps another count)\n", w)
	}
	if fl.Changed("fit") {
		req.Fit = f.fit
	}
	if fl.Changed("strategy") {
		req.Strategy = memplan.StrategyAllCkpt
	}
	if fl.Changed("n") {
		req.N = f.req.N
	}
	if fl.Changed("ckpt-bandwidth") {
		req.CkptBandwidthGBps = &f.ckptBandwidth
	}
	if fl.Changed("restart") {
		req.RestartS = &f.req.Costs.R
	}
	var err error
	req.MaxRequest, err = f.maxRequestOf(cmd)
	return req, err
}

// checkProfileFlags refuses the flags of ckpt reserve that do not apply to
// --profile/--task-dir (the Request's own fields are validated by
// memplan.Request.Validate).
func checkProfileFlags(cmd *cobra.Command, f reserveFlags) error {
	fl := cmd.Flags()
	switch {
	case f.distSpec != "" || f.history != "":
		return usagef("--dist and --history do not apply to " + profileSources + ": the walltime law is the sum of the tasks'")
	case f.evaluate != "" || fl.Changed("evaluate"):
		return usagef("--evaluate does not apply to " + profileSources)
	case fl.Changed("ckpt"):
		return usagef("--ckpt does not apply to " + profileSources + ": the checkpoint cost is C(V) = l + V/b (--ckpt-latency, --ckpt-bandwidth)")
	case fl.Changed("strategy") && f.req.Algorithm != reservation.AlgoAllCkpt:
		return usagef("--strategy %s does not apply to "+profileSources+"; use --mem-strategy %s", f.req.Algorithm, strings.Join(memplan.AppStrategies, "|"))
	}
	for _, sf := range singleJobFlags {
		if fl.Changed(sf.name) {
			return usagef("--%s does not apply to "+profileSources+": %s", sf.name, sf.why)
		}
	}
	return report.CheckPictures(f.plotPath, f.htmlPath)
}

// profileRequestFlags names the flag of each memplan.Request field.
var profileRequestFlags = map[string]string{"Profile": "profile", "Tasks": tasksFlag, "Fit": "fit", "Phases": "phases", "TransferRuns": "transfer-runs",
	"Strategy": "mem-strategy", "CkptLatencyS": "ckpt-latency", "CkptBandwidthGBps": "ckpt-bandwidth", "RestartS": "restart",
	"MemTau": "mem-tau", "CkptTau": "ckpt-tau", "V2Eps": "v2-eps", "MemMargin": "mem-margin", "TailMass": "tail-mass", "N": "n", "MaxRequest": "max-request"}

// profileFlagError names the flag of the Request field an error of
// memplan.Run names: "--mem-margin 1e+300: want a value in [0, 10]" for an
// option out of range, "--transfer-runs: ..." otherwise.
func profileFlagError(fl *pflag.FlagSet, err error) error {
	name, ue := flagOfField(err, profileRequestFlags)
	if name == "" {
		return err
	}
	var oe *memplan.OptionError
	if errors.As(err, &oe) {
		return usagef("--%s %s: %s", name, fl.Lookup(name).Value, oe.Want)
	}
	return usagef("--%s: %v", name, ue.Err)
}
