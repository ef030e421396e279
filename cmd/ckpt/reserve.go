package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
)

type reserveFlags struct {
	distSpec, history, column, fit string
	states, censored               string  // sacct states of lone jobs: complete, censored
	margin                         float64 // with --slurm, req.Costs.Margin
	forSlurm                       bool    // plan on Slurm's minutes with the runner's margin
	evaluate                       string
	json, all                      bool
	sbatch, jobName                string
	plotPath, htmlPath             string
	// req holds the flags that are fields of the Request as they are.
	req reservation.Request
	// mem are --profile/--task-dir and their options; ckptBandwidth its
	// cost, given only when the flag is.
	mem           memplan.Request
	ckptBandwidth float64
}

func newReserveCmd() *cobra.Command {
	var f reserveFlags
	cmd := &cobra.Command{
		Use:   "reserve",
		Short: "Plan reservations (with or without checkpoints) for a job of random walltime",
		Long: `Plan the sequence of reservations to request for a job whose walltime is random,
each ending with or without a checkpoint, so that the expected cost
alpha*W + beta*min(W, walltime) + gamma summed over reservations is minimal
(Gainaru et al., IPDPS 2020). The walltime law comes from --dist or from a
history of past runs (--history): --fit auto fits every family by maximum
likelihood and keeps the one of least BIC (Bayesian information criterion), and
warns when that law fails a Kolmogorov-Smirnov check. Unbounded laws are
truncated at Q(1 - tail-mass) as in the paper. Plain numbers are seconds;
durations like 90m, 2h or 1.5d are accepted. With no arguments it plans for the
paper's neuroscience example: LogNormal, mean 21.4h, sd 19.7h, C = R = 600s.`,
		Example: `  ckpt reserve
  ckpt reserve --history runs.txt --ckpt 10m --restart 10m --sbatch segment.sh > submit.sh && bash submit.sh
  ckpt reserve --history runs.txt --sbatch segment.sh -- --qos=long --account=lab --output=seg-%j.out
  ckpt reserve --dist weibull:k=0.5,lambda=1h --ckpt 6m --restart 6m
  ckpt reserve --history runs.txt --fit empirical --ckpt 2m --restart 1m
  sacct -j 1234 --parsable2 --format JobID,State,ElapsedRaw | ckpt reserve --history - --json
  ckpt reserve --evaluate "20h:ckpt,40h,80h,1000h" --dist lognormal:mean=21.4h,sd=19.7h
  ckpt reserve --dist lognormal:mean=21.4h,sd=19.7h --max-request 24h --slurm`,
		Args: sbatchPassThrough,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReserve(cmd, f) },
	}
	fl := cmd.Flags()
	f.addLawAndCostFlags(fl)
	def := reservation.DefaultRequest()
	parsedVar(fl, &f.req.Costs.C, "ckpt", fmt.Sprint(def.Costs.C), "checkpoint cost C (seconds or duration)", nonNeg)
	parsedVar(fl, &f.req.Costs.R, "restart", fmt.Sprint(def.Costs.R), "restart cost R (seconds or duration)", nonNeg)
	fl.Float64Var(&f.req.Epsilon, "epsilon", def.Epsilon, "approximation guarantee of Algorithm 1: plan cost <= (1+epsilon) x optimum (for epsilon <= 3; (1+epsilon/3)^2 beyond); the report gives the guarantee the grid achieves")
	fl.IntVar(&f.req.N, "n", 0, fmt.Sprintf("number of discretisation points (overrides --epsilon; at most %d)", reservation.MaxGridPoints))
	fl.StringVar(&f.req.Algorithm, "strategy", reservation.AlgoDynProgCount, "planning algorithm: "+strings.Join(reservation.Algorithms, "|"))
	fl.StringVar(&f.evaluate, "evaluate", "", `price this plan instead of optimising: milestones of work done, "t1[:ckpt],t2[:ckpt],..."`)
	fl.BoolVar(&f.json, "json", false, "print JSON on stdout")
	fl.BoolVar(&f.req.NoBaselines, "no-baselines", false, "skip pricing the other strategies")
	fl.StringVar(&f.mem.Profile, "profile", "", "plan time and memory for a multi-phase application: slant, macruise or a YAML/JSON profile file")
	fl.StringVar(&f.mem.Tasks, "task-dir", "", "plan time and memory from a folder of per-run traces: phase traces ID/taskK.csv, or whole-run memory traces ID.csv (segmented into phases)")
	fl.StringVar(&f.sbatch, "sbatch", "", "print a bash script that submits the plan to Slurm as a chain of sbatch jobs running this job script")
	fl.StringVar(&f.jobName, "job-name", "", "sbatch --job-name for --sbatch")
	parsedVar(fl, &f.req.MaxRequest, "max-request", "", "longest reservation allowed (duration); the plan is the optimum under it (default with --sbatch: the partition's MaxTime, from sinfo)", positive)
	fl.BoolVar(&f.forSlurm, "slurm", false, "plan as a chain runs on Slurm: requests in whole minutes and C + --margin per checkpoint (default with --sbatch; --slurm=false keeps the paper's continuous plan)")
	parsedVar(fl, &f.margin, "margin", fmt.Sprint(reservation.DefaultSlurmMargin), "with --slurm: time reserved after each checkpoint besides C: ckpt run's --margin (15s) plus 3s for the app's late start", nonNeg)
	cmd.AddCommand(newReserveSweepCmd())
	f.addProfileFlags(cmd)
	addSbatchFlags(cmd)
	addPictureFlags(fl, &f.plotPath, &f.htmlPath, "the walltime law with the reservation ends, P(needed) and the costs (with --profile/--tasks: memory over time with each reservation as a time × memory box)")
	fl.BoolVar(&f.all, "all", false, "list every reservation (by default the table stops once P(needed) < 0.001)")
	hiddenAlias(fl, "tasks", tasksFlag) // the old name: --tasks is a count in ckpt array
	return cmd
}

// addLawAndCostFlags defines the flags ckpt reserve and ckpt reserve sweep
// share: the walltime law, the cost model and the search limits.
func (f *reserveFlags) addLawAndCostFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.distSpec, "dist", "", "walltime law, e.g. lognormal:mean=21.4h,sd=19.7h (families: "+strings.Join(distribution.Families(), ", ")+")")
	fl.StringVar(&f.history, "history", "", "file of past walltimes (one per line, CSV, or sacct --parsable2); - for stdin")
	fl.StringVar(&f.column, "column", "", "CSV column holding the walltimes (default: detected)")
	fl.StringVar(&f.fit, "fit", "auto", "how to turn --history into a law: auto (the family of least BIC), empirical (the runs themselves; Kaplan-Meier when runs are censored), or one of "+strings.Join(distribution.FitFamilies(), ", "))
	fl.StringVar(&f.states, "states", "COMPLETED", "sacct --history: states of lone jobs that are complete runs")
	fl.StringVar(&f.censored, "censored", "TIMEOUT", "sacct --history: states of lone jobs that are censored runs (still running at their elapsed time)")
	def := reservation.DefaultRequest()
	fl.Float64Var(&f.req.Costs.Alpha, "alpha", def.Costs.Alpha, "cost per second reserved (> 0)")
	fl.Float64Var(&f.req.Costs.Beta, "beta", def.Costs.Beta, "cost per second used (>= 0)")
	fl.Float64Var(&f.req.Costs.Gamma, "gamma", def.Costs.Gamma, "fixed cost per reservation (>= 0)")
	fl.IntVar(&f.req.MaxN, "max-n", def.MaxN, fmt.Sprintf("cap on the number of points derived from --epsilon (at most %d)", reservation.MaxGridPoints))
	fl.IntVar(&f.req.MaxTau, "max-tau", def.MaxTau, fmt.Sprintf("largest number of chunks tried by the periodic strategies (at most %d: the search takes O(tau²) time)", reservation.MaxTauLimit))
	fl.Float64Var(&f.req.TailMass, "tail-mass", def.TailMass, "probability cut off above Q(1-tail-mass) for unbounded laws")
}

func runReserve(cmd *cobra.Command, f reserveFlags) error {
	if err := f.checkProfileOnlyFlags(cmd.Flags()); err != nil {
		return err
	}
	if err := checkSbatchFlags(cmd, f.sbatch); err != nil {
		return err
	}
	if f.sbatch != "" && f.json {
		return usagef("give --sbatch or --json, not both")
	}
	if f.mem.Profile != "" || f.mem.Tasks != "" {
		return runProfile(cmd, f)
	}
	if err := f.checkApplicable(cmd); err != nil {
		return err
	}
	req, err := f.request(cmd)
	if err != nil {
		return err
	}
	rep, err := reservation.Run(cmd.Context(), req)
	if err != nil {
		return f.fieldError(cmd.Flags(), f.partitionError(cmd.Flags(), err, req.MaxRequest))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ckpt: warning:", w)
	}
	return f.writePlan(cmd, rep, func() ([]slurm.Step, error) { return slurm.PlanSteps(rep.Result) })
}

// planReport is the report of a plan, with or without --profile.
type planReport interface {
	report.Pictured
	WriteText(w io.Writer, all bool) error
}

// writePlan renders a plan: its pictures, then with --sbatch the chain of
// its steps, with --json its JSON, else its text (--all: every row).
func (f reserveFlags) writePlan(cmd *cobra.Command, rep planReport, steps func() ([]slurm.Step, error)) error {
	if err := report.WritePictures(f.plotPath, f.htmlPath, rep); err != nil {
		return err
	}
	switch {
	case f.sbatch != "":
		s, err := steps()
		if err != nil {
			return err
		}
		return writeChain(cmd, s, f.sbatch, f.jobName)
	case f.json:
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return rep.WriteText(cmd.OutOrStdout(), f.all)
}

// checkApplicable refuses flags that would be ignored.
func (f reserveFlags) checkApplicable(cmd *cobra.Command) error {
	fl := cmd.Flags()
	for _, c := range []struct {
		flag, when string
		ok         bool
	}{
		{"column", "without --history", f.history != ""},
		{"fit", "without --history", f.history != ""},
		{"states", "without --history", f.history != ""},
		{"censored", "without --history", f.history != ""},
		{"epsilon", "with --n, which fixes the grid", !fl.Changed("n")},
		{"max-n", "with --n, which fixes the grid", !fl.Changed("n")},
		{"strategy", "with --evaluate, which prices the plan given", !fl.Changed("evaluate")},
		{"all", "with --json or --sbatch (it lists the text report's rows)", !f.json && f.sbatch == ""},
		{"margin", "without --slurm or --sbatch", f.slurmPlan(fl)},
	} {
		if fl.Changed(c.flag) && !c.ok {
			return usagef("--%s does not apply %s", c.flag, c.when)
		}
	}
	return report.CheckPictures(f.plotPath, f.htmlPath)
}

// request maps the flags to a reservation.Request (checked by its
// Validate, in reservation.Run), with --slurm's granularity and margin and
// the bound of --max-request or the partition's.
func (f reserveFlags) request(cmd *cobra.Command) (reservation.Request, error) {
	switch {
	case f.distSpec != "" && f.history != "":
		return reservation.Request{}, usagef("give --dist or --history, not both")
	case cmd.Flags().Changed("n") && f.req.N == 0:
		return reservation.Request{}, usagef("--n must be >= 1, got 0 (leave it out to size the grid by --epsilon)")
	}
	req := f.req
	var err error
	if cmd.Flags().Changed("evaluate") {
		if req.Evaluate, err = reservation.ParseStrategy(f.evaluate); err != nil {
			return req, usage(fmt.Errorf("--evaluate: %w", err))
		}
		req.Algorithm = ""
	}
	if f.slurmPlan(cmd.Flags()) {
		req.Costs.Granularity, req.Costs.Margin = reservation.SlurmGranularity, f.margin
	}
	req.Progress = reservation.ProgressBars(cmd.ErrOrStderr())
	if req.Walltime, err = f.walltime(cmd); err != nil {
		return req, err
	}
	req.MaxRequest, err = f.maxRequestOf(cmd)
	return req, err
}

// maxRequestOf maps --max-request or, with --sbatch, the MaxTime of the
// partition the chain goes to (0: no bound).
func (f reserveFlags) maxRequestOf(cmd *cobra.Command) (float64, error) {
	fl := cmd.Flags()
	if !f.partitionBound(fl) {
		return f.req.MaxRequest, nil
	}
	extra, _ := fl.GetStringArray("sbatch-arg")
	return slurm.SbatchMaxRequest(cmd.Context(), append(extra, fl.Args()...))
}

// slurmPlan says whether the plan is made for Slurm: --slurm, or --sbatch
// unless --slurm=false.
func (f reserveFlags) slurmPlan(fl *pflag.FlagSet) bool {
	if fl.Changed("slurm") {
		return f.forSlurm
	}
	return f.sbatch != ""
}

// partitionBound says whether the plan's bound is the partition's MaxTime
// (--sbatch without --max-request).
func (f reserveFlags) partitionBound(fl *pflag.FlagSet) bool {
	return f.sbatch != "" && !fl.Changed("max-request")
}

// partitionError words a plan's error under the partition's MaxTime
// (slurm.PartitionError); other errors are returned as they are.
func (f reserveFlags) partitionError(fl *pflag.FlagSet, err error, maxTime float64) error {
	if !f.partitionBound(fl) {
		return err
	}
	return slurm.PartitionError(err, maxTime)
}

// walltime maps --dist or --history (with --column, --fit, --states and
// --censored) to the walltime source.
func (f reserveFlags) walltime(cmd *cobra.Command) (reservation.WalltimeSource, error) {
	if f.history == "" {
		if f.distSpec == "" {
			return nil, nil // reservation.DefaultLaw
		}
		return reservation.LawSpec(f.distSpec), nil
	}
	src := slurm.HistorySource{Path: f.history, Stdin: cmd.InOrStdin(), Column: f.column, Fit: f.fit}
	return withStates(cmd.Flags(), src, f.states, f.censored)
}

// withStates is src with the sacct states of --states and --censored,
// when given (ckpt reserve --history and ckpt chain history).
func withStates(fl *pflag.FlagSet, src slurm.HistorySource, states, censored string) (slurm.HistorySource, error) {
	for _, l := range []struct {
		flag, list string
		to         *[]string
	}{{"states", states, &src.States}, {"censored", censored, &src.Censored}} {
		if !fl.Changed(l.flag) {
			continue
		}
		var err error
		if *l.to, err = listFlag(l.flag, l.list); err != nil {
			return src, err
		}
	}
	return src, nil
}

// requestFlags names the flag of each reservation.Request field (and of
// the history source's).
var requestFlags = map[string]string{
	"Costs.Alpha": "alpha", "Costs.Beta": "beta", "Costs.Gamma": "gamma", "Costs.C": "ckpt", "Costs.R": "restart",
	"Epsilon": "epsilon", "N": "n", "MaxN": "max-n", "MaxTau": "max-tau", "TailMass": "tail-mass",
	"Algorithm": "strategy", "Evaluate": "evaluate", "MaxRequest": "max-request", "Costs.Margin": "margin", "States": "states", "Complete": "states", "Censored": "censored", "Path": "history",
}

// fieldError renders a usage error that names a Request field with the
// flag's name ("--epsilon must be > 0, got NaN"; a duration with its value
// as typed); the walltime source's errors are prefixed by --dist or
// --history. Other errors are returned as they are.
func (f reserveFlags) fieldError(fl *pflag.FlagSet, err error) error {
	name, ue := flagOfField(err, requestFlags)
	switch {
	case ue != nil && ue.Field == "Walltime" && f.history != "":
		return usagef("--history: %v", ue.Err)
	case ue != nil && ue.Field == "Walltime":
		return usagef("--dist: %v", ue.Err)
	case name == "":
		return err
	case (name == "ckpt" || name == "restart") && fl != nil && fl.Changed(name):
		// the duration as typed, the message has seconds: "--ckpt 400y: 1.26e+10 s is …"
		return usagef("--%s %s: %v", name, fl.Lookup(name).Value, ue.Err)
	}
	return usagef("--%s %v", name, ue.Err)
}
