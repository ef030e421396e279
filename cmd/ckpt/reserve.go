package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/trace"
)

// The paper's neuroscience example (Section 4.4, Fig. 7): a LogNormal with
// mean 21.4 h and standard deviation 19.7 h, C = R = 600 s.
const defaultDist = "lognormal:mean=21.4h,sd=19.7h"

type reserveFlags struct {
	distSpec, history, column, fit string
	states, censored               string // sacct states of lone jobs: complete, censored
	ckpt, restart                  string
	alpha, beta, gamma             float64
	epsilon                        float64
	n, maxN, maxTau                int
	tailMass                       float64
	strategy, evaluate             string
	json, noBaselines, all         bool
	sbatch, jobName                string
	profile, tasks                 string
	plotPath, htmlPath             string
	nSet                           bool // --n given explicitly
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
  ckpt reserve --evaluate "20h:ckpt,40h,80h,1000h" --dist lognormal:mean=21.4h,sd=19.7h`,
		Args: sbatchPassThrough,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReserve(cmd, f) },
	}
	fl := cmd.Flags()
	f.addLawAndCostFlags(fl)
	fl.StringVar(&f.ckpt, "ckpt", "600", "checkpoint cost C (seconds or duration)")
	fl.StringVar(&f.restart, "restart", "600", "restart cost R (seconds or duration)")
	fl.Float64Var(&f.epsilon, "epsilon", 1, "approximation guarantee of Algorithm 1: plan cost <= (1+epsilon) x optimum (for epsilon <= 3; (1+epsilon/3)^2 beyond); the report gives the guarantee the grid achieves")
	fl.IntVar(&f.n, "n", 0, fmt.Sprintf("number of discretisation points (overrides --epsilon; at most %d)", reservation.MaxGridPoints))
	fl.StringVar(&f.strategy, "strategy", reservation.AlgoDynProgCount, "planning algorithm: "+strings.Join(reservation.Algorithms, "|"))
	fl.StringVar(&f.evaluate, "evaluate", "", `price this plan instead of optimising: milestones of work done, "t1[:ckpt],t2[:ckpt],..."`)
	fl.BoolVar(&f.json, "json", false, "print JSON on stdout")
	fl.BoolVar(&f.noBaselines, "no-baselines", false, "skip pricing the other strategies")
	fl.StringVar(&f.profile, "profile", "", "plan time and memory for a multi-phase application: slant, macruise or a YAML/JSON profile file")
	fl.StringVar(&f.tasks, "tasks", "", "plan time and memory from a folder of per-run traces: phase traces ID/taskK.csv, or whole-run memory traces ID.csv (segmented into phases)")
	fl.StringVar(&f.sbatch, "sbatch", "", "print a bash script that submits the plan to Slurm as a chain of sbatch jobs running this job script")
	fl.StringVar(&f.jobName, "job-name", "", "sbatch --job-name for --sbatch")
	cmd.AddCommand(newReserveSweepCmd())
	addProfileFlags(cmd)
	addSbatchFlags(cmd)
	addPictureFlags(fl, &f.plotPath, &f.htmlPath, "the walltime law with the reservation ends, P(needed) and the costs (with --profile/--tasks: memory over time with each reservation as a time × memory box)")
	fl.BoolVar(&f.all, "all", false, "list every reservation (by default the table stops once P(needed) < 0.001)")
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
	fl.Float64Var(&f.alpha, "alpha", 1, "cost per second reserved (> 0)")
	fl.Float64Var(&f.beta, "beta", 0, "cost per second used (>= 0)")
	fl.Float64Var(&f.gamma, "gamma", 0, "fixed cost per reservation (>= 0)")
	fl.IntVar(&f.maxN, "max-n", reservation.DefaultMaxN, fmt.Sprintf("cap on the number of points derived from --epsilon (at most %d)", reservation.MaxGridPoints))
	fl.IntVar(&f.maxTau, "max-tau", reservation.DefaultMaxTau, fmt.Sprintf("largest number of chunks tried by the periodic strategies (at most %d: the search takes O(tau²) time)", reservation.MaxTauLimit))
	fl.Float64Var(&f.tailMass, "tail-mass", distribution.DefaultTailMass, "probability cut off above Q(1-tail-mass) for unbounded laws")
}

func runReserve(cmd *cobra.Command, f reserveFlags) error {
	f.nSet = cmd.Flags().Changed("n")
	if err := checkSbatchFlags(cmd, f.sbatch); err != nil {
		return err
	}
	if f.profile != "" || f.tasks != "" {
		if err := checkPictureFlags(f.plotPath); err != nil {
			return err
		}
		return runProfile(cmd, f) // draws with writeProfilePictures
	}
	if err := f.checkApplicable(cmd); err != nil {
		return err
	}
	if err := checkPictureFlags(f.plotPath); err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return usage(err)
	}
	law, source, err := f.law(cmd, &opts)
	if err != nil {
		return usage(err)
	}
	opts.Progress = planProgress(cmd.ErrOrStderr())
	res, err := f.planOrEvaluate(cmd, law, opts)
	if err != nil {
		return err
	}
	warnings := append(source.Warnings, reservation.Warnings(res, law, opts)...)
	for _, w := range warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ckpt: warning:", w)
	}
	if err := writePlanPictures(f.plotPath, f.htmlPath, law, res); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.sbatch != "" {
		return writeSbatchChain(cmd, out, res, f.sbatch, f.jobName)
	}
	if f.json {
		js := reserveJSON(res, source, opts)
		js.Warnings = warnings
		return writeJSON(out, js)
	}
	return writeReserveText(out, res, source, opts, f.all)
}

// planOrEvaluate plans (or prices the --evaluate plan) under the command's
// context: Ctrl-C stops it within a row of the dynamic program.
func (f reserveFlags) planOrEvaluate(cmd *cobra.Command, law distribution.Distribution, opts reservation.Options) (*reservation.Result, error) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var res *reservation.Result
	var err error
	if cmd.Flags().Changed("evaluate") {
		s, perr := reservation.ParseStrategy(f.evaluate)
		if perr != nil {
			return nil, usage(fmt.Errorf("--evaluate: %w", perr))
		}
		res, err = reservation.EvaluateContext(ctx, law, s, opts)
	} else {
		res, err = reservation.PlanContext(ctx, law, opts)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, usage(err)
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
		{"epsilon", "with --n, which fixes the grid", !f.nSet},
		{"max-n", "with --n, which fixes the grid", !f.nSet},
		{"strategy", "with --evaluate, which prices the plan given", !fl.Changed("evaluate")},
		{"all", "with --json or --sbatch (it lists the text report's rows)", !f.json && f.sbatch == ""},
	} {
		if fl.Changed(c.flag) && !c.ok {
			return usagef("--%s does not apply %s", c.flag, c.when)
		}
	}
	return nil
}

// planProgress draws a progress bar of the dynamic program's rows on w
// when w is a terminal and a solve has at least longPlanRows rows (a few
// seconds); otherwise it returns nil and nothing is drawn.
func planProgress(w io.Writer) func(step string, done, total int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var mu sync.Mutex
	bars := map[string]*progressbar.ProgressBar{}
	return func(step string, done, total int) {
		if total < longPlanRows {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		b := bars[step]
		if b == nil {
			b = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(step),
				progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			bars[step] = b
		}
		_ = b.Set(done)
	}
}

// longPlanRows is the grid size from which reserve draws a progress bar.
const longPlanRows = 20000

func (f reserveFlags) options() (reservation.Options, error) {
	c, err := nonNegDurationFlag("ckpt", f.ckpt)
	if err != nil {
		return reservation.Options{}, err
	}
	r, err := nonNegDurationFlag("restart", f.restart)
	if err != nil {
		return reservation.Options{}, err
	}
	for _, v := range []struct {
		flag, in string
		sec      float64
	}{{"--ckpt", f.ckpt, c}, {"--restart", f.restart, r}} {
		if v.sec > reservation.MaxWalltime {
			return reservation.Options{}, fmt.Errorf("%s %s: %.3g s is beyond the limit of %.0e s on durations", v.flag, v.in, v.sec, reservation.MaxWalltime)
		}
	}
	costs := reservation.Costs{Alpha: f.alpha, Beta: f.beta, Gamma: f.gamma, C: c, R: r}
	if err := costs.Validate(); err != nil {
		return reservation.Options{}, fmt.Errorf("--%w", err)
	}
	if err := f.checkLimits(); err != nil {
		return reservation.Options{}, err
	}
	if err := distribution.CheckFitMethod(f.fit); err != nil {
		return reservation.Options{}, err
	}
	if err := reservation.CheckAlgorithm(f.strategy); err != nil {
		return reservation.Options{}, fmt.Errorf("--strategy: %w", err)
	}
	return reservation.Options{
		Costs: costs, Algorithm: f.strategy, Epsilon: f.epsilon, N: f.n, MaxN: f.maxN,
		TailMass: f.tailMass, MaxTau: f.maxTau, Baselines: !f.noBaselines, LowerBound: true,
	}, nil
}

// checkLimits checks the numeric flags against their ranges and caps.
func (f reserveFlags) checkLimits() error {
	switch {
	case !(f.epsilon > 0) || math.IsInf(f.epsilon, 0):
		return fmt.Errorf("--epsilon must be > 0, got %v", f.epsilon)
	case f.n < 0 || f.nSet && f.n < 1:
		return fmt.Errorf("--n must be >= 1, got %d", f.n)
	case f.n > reservation.MaxGridPoints:
		return fmt.Errorf("--n must be <= %d (the planner takes O(n²) time), got %d", reservation.MaxGridPoints, f.n)
	case f.maxN < 1 || f.maxN > reservation.MaxGridPoints:
		return fmt.Errorf("--max-n must be in [1, %d], got %d", reservation.MaxGridPoints, f.maxN)
	case f.maxTau < 1 || f.maxTau > reservation.MaxTauLimit:
		return fmt.Errorf("--max-tau must be in [1, %d] (the periodic search takes O(tau²) time), got %d", reservation.MaxTauLimit, f.maxTau)
	case !(f.tailMass > 0 && f.tailMass < 1):
		return fmt.Errorf("--tail-mass must be in (0, 1), got %v", f.tailMass)
	}
	return nil
}

// lawSource describes where the walltime law came from, for the report.
type lawSource struct {
	Spec    string   `json:"spec"`
	Mean    *float64 `json:"mean"` // nil when infinite (Pareto, alpha <= 1)
	Median  *float64 `json:"median"`
	History string   `json:"history,omitempty"`
	Runs    int      `json:"runs,omitempty"`
	// Sacct counts, for a sacct history, the complete, censored and
	// skipped runs.
	Sacct *sacctCounts `json:"sacct,omitempty"`
	Fit   string       `json:"fit,omitempty"`
	Fits  []fitInfo    `json:"fits,omitempty"`
	// KS is the Kolmogorov-Smirnov statistic of the fitted law against the
	// runs and KSCritical its 1% critical value 1.63/sqrt(runs) (absent
	// for --fit empirical).
	KS         *float64 `json:"ks,omitempty"`
	KSCritical *float64 `json:"ks_critical,omitempty"`
	// Warnings about the law, printed on stderr.
	Warnings []string `json:"-"`
}

type fitInfo struct {
	Family string   `json:"family"`
	Spec   string   `json:"spec,omitempty"`
	AIC    float64  `json:"aic,omitempty"`
	BIC    float64  `json:"bic,omitempty"`
	KS     *float64 `json:"ks,omitempty"` // nil when runs are censored
	Note   string   `json:"note,omitempty"`
}

type sacctCounts struct {
	Complete int            `json:"complete"`
	Censored int            `json:"censored"`
	Skipped  map[string]int `json:"skipped"`
}

func (f reserveFlags) law(cmd *cobra.Command, opts *reservation.Options) (distribution.Distribution, lawSource, error) {
	if f.sbatch != "" && f.json {
		return nil, lawSource{}, fmt.Errorf("give --sbatch or --json, not both")
	}
	if f.distSpec != "" && f.history != "" {
		return nil, lawSource{}, fmt.Errorf("give --dist or --history, not both")
	}
	if f.history == "" {
		spec := f.distSpec
		if spec == "" {
			spec = defaultDist
		}
		d, err := distribution.Parse(spec)
		if err != nil {
			return nil, lawSource{}, fmt.Errorf("--dist: %w", err)
		}
		return d, lawSource{Spec: d.String(), Mean: finite(d.Mean()), Median: finite(d.Quantile(0.5))}, nil
	}
	return f.historyLaw(cmd, opts)
}

// historyLaw reads --history and learns the law it asks for (--fit):
// slurm.ReadHistory and slurm.Learn, as ckpt chain history does.
func (f reserveFlags) historyLaw(cmd *cobra.Command, opts *reservation.Options) (distribution.Distribution, lawSource, error) {
	h, name, err := readHistoryFlags(cmd, f.history, trace.HistoryAuto, f.column, f.states, f.censored)
	if err != nil {
		return nil, lawSource{}, err
	}
	var complete []float64
	for _, run := range h.Runs.Runs {
		if run.Walltime > reservation.MaxWalltime {
			return nil, lawSource{}, fmt.Errorf("%s: a walltime of %.3g s is beyond the limit of %.0e s; check the units (seconds)", name, run.Walltime, reservation.MaxWalltime)
		}
		if !run.Censored {
			complete = append(complete, run.Walltime)
		}
	}
	learned, err := slurm.Learn(h.Runs, f.fit)
	if err != nil {
		return nil, lawSource{}, fmt.Errorf("%s: %w", name, err)
	}
	opts.History = complete
	src := lawSource{History: name, Runs: len(h.Runs.Runs), Fit: f.fit}
	if h.Format == trace.HistorySacct {
		src.Sacct = &sacctCounts{Complete: h.Complete, Censored: h.Censored, Skipped: h.Skipped}
		if len(h.Skipped) > 0 {
			src.Warnings = append(src.Warnings, fmt.Sprintf("%s: skipped %s", name, h.SkippedSummary()))
		}
	}
	hf := learned.Result
	if !math.IsNaN(hf.KS) {
		src.KS, src.KSCritical = &hf.KS, &hf.KSCritical
		if w := hf.Warning(name); w != "" {
			src.Warnings = append(src.Warnings, w)
		}
	}
	d := hf.Law
	src.Spec, src.Fits, src.Mean, src.Median = d.String(), fitInfos(hf.Candidates), finite(d.Mean()), finite(d.Quantile(0.5))
	if disc, isDiscrete := d.(*distribution.Discrete); isDiscrete {
		src.Spec = fmt.Sprintf("empirical law of %d runs (%d distinct values)", len(h.Runs.Runs), len(disc.Values))
		if h.Censored > 0 {
			src.Spec = fmt.Sprintf("Kaplan-Meier estimate of %d runs, %d censored (%d distinct values)", len(h.Runs.Runs), h.Censored, len(disc.Values))
		}
	}
	return d, src, nil
}
