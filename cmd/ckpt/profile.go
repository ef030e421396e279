package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// tasksFlag is the flag of ckpt reserve naming a folder of traces,
// profileSources the two flags that give a model, and withSource the start
// of the help of the flags that need one.
const (
	tasksFlag      = "task-dir"
	profileSources = "--profile/--" + tasksFlag
	withSource     = "with " + profileSources + ": "
)

func addProfileFlags(cmd *cobra.Command) {
	fl, d := cmd.Flags(), memplan.DefaultRequest()
	fl.String("mem-strategy", d.Strategy, withSource+""+strings.Join(memplan.AppStrategies, "|"))
	fl.Float64("mem-tau", d.MemTau, withSource+"request the largest memory of the tasks running with probability > tau (given the job still runs)")
	fl.Float64("ckpt-tau", d.CkptTau, withSource+"the checkpoint at t saves M_tau(t) of memory (Eq. (2))")
	fl.String("ckpt-latency", "", withSource+"checkpoint latency l of C(V) = l + V/b (default: the profile's, else CRIU's 4.1s)")
	fl.Float64("ckpt-bandwidth", 0, withSource+"checkpoint bandwidth b in GB/s (default: the profile's, else CRIU's 0.207)")
	fl.Float64("mem-margin", d.MemMargin, withSource+"add this fraction to every memory request (headroom, e.g. 0.1)")
	fl.Float64("v2-eps", d.V2Eps, withSource+"probability that mem-all-ckpt-v2's first reservation reaches the memory-hungry task")
	fl.String("transfer-runs", "", withSource+"a file of the phase walltimes of runs on another machine (one run per line); the plan is moved there with one slowdown per phase (Section 4.5)")
	fl.Int("phases", d.Phases, "with --"+tasksFlag+" of whole-run traces: keep the runs segmented into this many phases (default: the most common count; the others are dropped with a warning)")
	// The flags above mean nothing without --profile/--tasks: refuse them
	// there rather than ignore them (chained after any other PreRunE).
	prev, prevPlain := cmd.PreRunE, cmd.PreRun
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if prev != nil {
			if err := prev(c, args); err != nil {
				return err
			}
		} else if prevPlain != nil {
			prevPlain(c, args)
		}
		return checkProfileOnlyFlags(c)
	}
	cmd.Example += `
  ckpt reserve --profile slant
  ckpt reserve --profile app.yaml --json
  ckpt reserve --tasks runs/ --mem-strategy mem-all-ckpt-v2 --sbatch job.sh > submit.sh
  ckpt reserve --profile slant --transfer-runs knl-phase-times.csv`
}

// profileOnlyFlags are the flags addProfileFlags defines.
var profileOnlyFlags = []string{"mem-strategy", "mem-tau", "ckpt-tau", "ckpt-latency", "ckpt-bandwidth", "mem-margin", "v2-eps", "phases", "transfer-runs"}

// checkProfileOnlyFlags refuses the flags of --profile/--tasks without them.
func checkProfileOnlyFlags(cmd *cobra.Command) error {
	fl := cmd.Flags()
	p, _ := fl.GetString("profile")
	t, _ := fl.GetString(tasksFlag)
	if p != "" || t != "" {
		return nil
	}
	for _, name := range profileOnlyFlags {
		if fl.Changed(name) {
			with := "--profile or --" + tasksFlag
			if name == "phases" {
				with = "--" + tasksFlag
			}
			return usagef("--%s applies only with %s", name, with)
		}
	}
	return nil
}

// singleJobFlags are the flags of ckpt reserve that only the single-job
// planner reads, with the reason they do not apply to --profile/--tasks.
var singleJobFlags = []struct{ name, why string }{
	{"epsilon", "the walltime law is discretised on --n points (default 1000)"},
	{"max-n", "the walltime law is discretised on --n points (default 1000)"},
	{"max-tau", "the multi-phase strategies are not periodic"},
	{"column", "it selects the column of --history"},
}

func runProfile(cmd *cobra.Command, f reserveFlags) error {
	req, err := profileRequest(cmd, f)
	if err != nil {
		return err
	}
	rep, err := memplan.Run(cmd.Context(), req)
	if err != nil {
		return profileFlagError(cmd.Flags(), err)
	}
	if err := writeProfilePictures(f.plotPath, f.htmlPath, rep); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.sbatch != "" {
		return writeProfileSbatch(cmd, out, f, rep.Plan)
	}
	if f.json {
		return rep.WriteJSON(out)
	}
	return rep.WriteText(out, f.all)
}

// profileRequest maps the flags of ckpt reserve --profile/--tasks to a
// memplan.Request, after refusing the flags that do not apply.
func profileRequest(cmd *cobra.Command, f reserveFlags) (memplan.Request, error) {
	fl := cmd.Flags()
	if err := checkProfileFlags(cmd, f); err != nil {
		return memplan.Request{}, err
	}
	req := memplan.DefaultRequest()
	req.Profile, req.Tasks, req.Others = f.profile, f.tasks, !f.noBaselines
	req.Warn = func(w string) {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: %s (--phases N keeps another count)\n", w)
	}
	if fl.Changed("fit") {
		req.Fit = f.fit
	}
	req.Phases, _ = fl.GetInt("phases")
	req.TransferRuns, _ = fl.GetString("transfer-runs")
	req.Strategy, _ = fl.GetString("mem-strategy")
	if fl.Changed("strategy") {
		req.Strategy = memplan.StrategyAllCkpt
	}
	req.MemTau, _ = fl.GetFloat64("mem-tau")
	req.CkptTau, _ = fl.GetFloat64("ckpt-tau")
	req.V2Eps, _ = fl.GetFloat64("v2-eps")
	req.MemMargin, _ = fl.GetFloat64("mem-margin")
	req.TailMass, _ = fl.GetFloat64("tail-mass")
	if fl.Changed("n") {
		req.N, _ = fl.GetInt("n")
	}
	if fl.Changed("ckpt-bandwidth") {
		b, _ := fl.GetFloat64("ckpt-bandwidth")
		req.CkptBandwidthGBps = &b
	}
	for _, d := range []struct {
		flag string
		to   **float64
	}{{"ckpt-latency", &req.CkptLatencyS}, {"restart", &req.RestartS}} {
		if !fl.Changed(d.flag) {
			continue
		}
		v, err := durationFlag(d.flag, fl.Lookup(d.flag).Value.String())
		if err != nil {
			return req, err
		}
		*d.to = &v
	}
	return req, nil
}

// writeProfileSbatch prints the plan as a chain of sbatch jobs, each
// asking for its reservation's memory (writeChain, as without --profile).
func writeProfileSbatch(cmd *cobra.Command, w io.Writer, f reserveFlags, plan *memplan.MemPlan) error {
	rs := make([]reservation.Reservation, len(plan.Reservations))
	mem := make([]float64, len(plan.Reservations))
	for k, r := range plan.Reservations {
		rs[k], mem[k] = r.Reservation, r.Mem
	}
	steps, err := slurm.StepsOf(rs, mem)
	if err != nil {
		return usage(err)
	}
	return writeChain(cmd, w, steps, f.sbatch, f.jobName)
}

// checkProfileFlags refuses the flags of ckpt reserve that do not apply to
// --profile/--tasks (the Request's own fields are validated by
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
	case f.sbatch != "" && f.json:
		return usagef("give --sbatch or --json, not both")
	case fl.Changed("strategy") && f.strategy != reservation.AlgoAllCkpt:
		return usagef("--strategy %s does not apply to "+profileSources+"; use --mem-strategy %s", f.strategy, strings.Join(memplan.AppStrategies, "|"))
	}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if fl.Changed(name) {
			return usagef("--%s does not apply to "+profileSources+": they minimise the reservation time (alpha=1, beta=gamma=0)", name)
		}
	}
	for _, sf := range singleJobFlags {
		if fl.Changed(sf.name) {
			return usagef("--%s does not apply to "+profileSources+": %s", sf.name, sf.why)
		}
	}
	return nil
}

// profileRequestFlags names the flag of each memplan.Request field.
var profileRequestFlags = map[string]string{"Profile": "profile", "Tasks": tasksFlag, "Fit": "fit", "Phases": "phases", "TransferRuns": "transfer-runs",
	"Strategy": "mem-strategy", "CkptLatencyS": "ckpt-latency", "CkptBandwidthGBps": "ckpt-bandwidth", "RestartS": "restart",
	"MemTau": "mem-tau", "CkptTau": "ckpt-tau", "V2Eps": "v2-eps", "MemMargin": "mem-margin", "TailMass": "tail-mass", "N": "n"}

// profileFlagError names the flag of the Request field an error of
// memplan.Run names: "--mem-margin 1e+300: want a value in [0, 10]" for an
// option out of range, "--transfer-runs: ..." otherwise.
func profileFlagError(fl *pflag.FlagSet, err error) error {
	var ue *inputerr.Error
	if !errors.As(err, &ue) || ue.Field == "" {
		return err
	}
	name, ok := profileRequestFlags[ue.Field]
	if !ok {
		return err
	}
	var oe *memplan.OptionError
	if errors.As(err, &oe) {
		return usagef("--%s %s: %s", name, fl.Lookup(name).Value, oe.Want)
	}
	return usagef("--%s: %v", name, ue.Err)
}
