package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

// The paper's neuroscience example (Section 4.4, Fig. 7): a LogNormal with
// mean 21.4 h and standard deviation 19.7 h, C = R = 600 s.
const defaultDist = "lognormal:mean=21.4h,sd=19.7h"

type reserveFlags struct {
	distSpec, history, column, fit string
	ckpt, restart                  string
	alpha, beta, gamma             float64
	epsilon                        float64
	n, maxN, maxTau                int
	tailMass                       float64
	strategy, evaluate             string
	json, noBaselines, all         bool
	sbatch, jobName                string
	profile, tasks                 string
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
  ckpt reserve --dist weibull:k=0.5,lambda=1h --ckpt 6m --restart 6m
  ckpt reserve --history runs.txt --fit empirical --ckpt 2m --restart 1m
  sacct -j 1234 --parsable2 --format JobID,State,ElapsedRaw | ckpt reserve --history - --json
  ckpt reserve --evaluate "20h:ckpt,40h,80h,1000h" --dist lognormal:mean=21.4h,sd=19.7h`,
		Args: cobra.NoArgs,
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
	fl.BoolVar(&f.all, "all", false, "list every reservation (by default the table stops once P(needed) < 0.001)")
	return cmd
}

// addLawAndCostFlags defines the flags ckpt reserve and ckpt reserve sweep
// share: the walltime law, the cost model and the search limits.
func (f *reserveFlags) addLawAndCostFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.distSpec, "dist", "", "walltime law, e.g. lognormal:mean=21.4h,sd=19.7h (families: "+strings.Join(distribution.Families(), ", ")+")")
	fl.StringVar(&f.history, "history", "", "file of past walltimes (one per line, CSV, or sacct --parsable2); - for stdin")
	fl.StringVar(&f.column, "column", "", "CSV column holding the walltimes (default: detected)")
	fl.StringVar(&f.fit, "fit", "auto", "how to turn --history into a law: auto (the family of least BIC), empirical (the runs themselves), or one of "+strings.Join(distribution.FitFamilies(), ", "))
	fl.Float64Var(&f.alpha, "alpha", 1, "cost per second reserved (> 0)")
	fl.Float64Var(&f.beta, "beta", 0, "cost per second used (>= 0)")
	fl.Float64Var(&f.gamma, "gamma", 0, "fixed cost per reservation (>= 0)")
	fl.IntVar(&f.maxN, "max-n", reservation.DefaultMaxN, fmt.Sprintf("cap on the number of points derived from --epsilon (at most %d)", reservation.MaxGridPoints))
	fl.IntVar(&f.maxTau, "max-tau", 1000, "largest number of chunks tried by the periodic strategies")
	fl.Float64Var(&f.tailMass, "tail-mass", distribution.DefaultTailMass, "probability cut off above Q(1-tail-mass) for unbounded laws")
}

func runReserve(cmd *cobra.Command, f reserveFlags) error {
	f.nSet = cmd.Flags().Changed("n")
	if err := checkSbatchFlags(cmd, f.sbatch); err != nil {
		return err
	}
	if f.profile != "" || f.tasks != "" {
		return runProfile(cmd, f)
	}
	opts, err := f.options()
	if err != nil {
		return usage(err)
	}
	law, source, err := f.law(cmd, &opts)
	if err != nil {
		return usage(err)
	}
	var res *reservation.Result
	if f.evaluate != "" {
		s, err := reservation.ParseStrategy(f.evaluate)
		if err != nil {
			return usage(fmt.Errorf("--evaluate: %w", err))
		}
		res, err = reservation.Evaluate(law, s, opts)
		if err != nil {
			return usage(err)
		}
	} else {
		res, err = reservation.Plan(law, opts)
		if err != nil {
			return usage(err)
		}
	}
	warnings := append(source.Warnings, planWarnings(res, law, opts)...)
	for _, w := range warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ckpt: warning:", w)
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

func (f reserveFlags) options() (reservation.Options, error) {
	c, err := units.ParseSeconds(f.ckpt)
	if err != nil {
		return reservation.Options{}, fmt.Errorf("--ckpt: %w", err)
	}
	r, err := units.ParseSeconds(f.restart)
	if err != nil {
		return reservation.Options{}, fmt.Errorf("--restart: %w", err)
	}
	for _, v := range []struct {
		flag, in string
		sec      float64
	}{{"--ckpt", f.ckpt, c}, {"--restart", f.restart, r}} {
		if v.sec < 0 {
			return reservation.Options{}, fmt.Errorf("%s %s: must be >= 0", v.flag, v.in)
		}
		if v.sec > reservation.MaxWalltime {
			return reservation.Options{}, fmt.Errorf("%s %s: %.3g s is beyond the limit of %.0e s on durations", v.flag, v.in, v.sec, reservation.MaxWalltime)
		}
	}
	costs := reservation.Costs{Alpha: f.alpha, Beta: f.beta, Gamma: f.gamma, C: c, R: r}
	if err := costs.Validate(); err != nil {
		return reservation.Options{}, fmt.Errorf("--%w", err)
	}
	if !(f.epsilon > 0) || math.IsInf(f.epsilon, 0) {
		return reservation.Options{}, fmt.Errorf("--epsilon must be > 0, got %v", f.epsilon)
	}
	if f.n < 0 || f.nSet && f.n < 1 {
		return reservation.Options{}, fmt.Errorf("--n must be >= 1, got %d", f.n)
	}
	if f.n > reservation.MaxGridPoints {
		return reservation.Options{}, fmt.Errorf("--n must be <= %d, got %d", reservation.MaxGridPoints, f.n)
	}
	if f.maxN < 1 || f.maxN > reservation.MaxGridPoints {
		return reservation.Options{}, fmt.Errorf("--max-n must be in [1, %d], got %d", reservation.MaxGridPoints, f.maxN)
	}
	if f.maxTau < 1 {
		return reservation.Options{}, fmt.Errorf("--max-tau must be >= 1, got %d", f.maxTau)
	}
	if !(f.tailMass > 0 && f.tailMass < 1) {
		return reservation.Options{}, fmt.Errorf("--tail-mass must be in (0, 1), got %v", f.tailMass)
	}
	if f.fit != "auto" && f.fit != "empirical" && !slices.Contains(distribution.FitFamilies(), f.fit) {
		return reservation.Options{}, fmt.Errorf("--fit %q is not auto, empirical or one of %s", f.fit, strings.Join(distribution.FitFamilies(), ", "))
	}
	known := false
	for _, a := range reservation.Algorithms {
		known = known || a == f.strategy
	}
	if !known {
		return reservation.Options{}, fmt.Errorf("--strategy %q is not one of %s", f.strategy, strings.Join(reservation.Algorithms, ", "))
	}
	return reservation.Options{
		Costs: costs, Algorithm: f.strategy, Epsilon: f.epsilon, N: f.n, MaxN: f.maxN,
		TailMass: f.tailMass, MaxTau: f.maxTau, Baselines: !f.noBaselines, LowerBound: true,
	}, nil
}

// lawSource describes where the walltime law came from, for the report.
type lawSource struct {
	Spec    string    `json:"spec"`
	Mean    *float64  `json:"mean"` // nil when infinite (Pareto, alpha <= 1)
	Median  *float64  `json:"median"`
	History string    `json:"history,omitempty"`
	Runs    int       `json:"runs,omitempty"`
	Fit     string    `json:"fit,omitempty"`
	Fits    []fitInfo `json:"fits,omitempty"`
	// KS is the Kolmogorov-Smirnov statistic of the fitted law against the
	// runs and KSCritical its 1% critical value 1.63/sqrt(runs) (absent
	// for --fit empirical).
	KS         *float64 `json:"ks,omitempty"`
	KSCritical *float64 `json:"ks_critical,omitempty"`
	// Warnings about the law, printed on stderr.
	Warnings []string `json:"-"`
}

type fitInfo struct {
	Family string  `json:"family"`
	Spec   string  `json:"spec,omitempty"`
	AIC    float64 `json:"aic,omitempty"`
	BIC    float64 `json:"bic,omitempty"`
	KS     float64 `json:"ks,omitempty"`
	Note   string  `json:"note,omitempty"`
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
	in, name := cmd.InOrStdin(), "stdin"
	if f.history != "-" {
		file, err := os.Open(f.history)
		if err != nil {
			return nil, lawSource{}, fmt.Errorf("--history: %w", err)
		}
		defer file.Close()
		in, name = file, f.history
	}
	h, err := trace.ReadHistory(in, name, trace.HistoryOptions{Column: f.column})
	if err != nil {
		return nil, lawSource{}, err
	}
	values := h.Values
	for _, v := range values {
		if v > reservation.MaxWalltime {
			return nil, lawSource{}, fmt.Errorf("%s: a walltime of %.3g s is beyond the limit of %.0e s; check the units (seconds)", name, v, reservation.MaxWalltime)
		}
	}
	opts.History = values
	src := lawSource{History: name, Runs: len(values), Fit: f.fit}
	d, fits, ks, err := fitHistory(values, f.fit)
	if err != nil {
		return nil, lawSource{}, fmt.Errorf("%s: %w", name, err)
	}
	if !math.IsNaN(ks) {
		crit := ksCritical(len(values))
		src.KS, src.KSCritical = &ks, &crit
		if ks > crit {
			src.Warnings = append(src.Warnings, fmt.Sprintf("the fitted law %v fails the Kolmogorov-Smirnov check on the %d runs of %s: KS statistic %.3g > %.3g, the 1%% critical value 1.63/sqrt(%d); the runs may be bimodal or from another family, and --fit empirical plans on the runs themselves",
				d, len(values), name, ks, crit, len(values)))
		}
	}
	src.Spec, src.Fits, src.Mean, src.Median = d.String(), fits, finite(d.Mean()), finite(d.Quantile(0.5))
	if _, isDiscrete := d.(*distribution.Discrete); isDiscrete {
		src.Spec = fmt.Sprintf("empirical law of %d runs (%d distinct values)", len(values), len(d.(*distribution.Discrete).Values))
	}
	return d, src, nil
}
