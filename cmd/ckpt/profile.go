package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
)

func addProfileFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("mem-strategy", memplan.StrategyMemAllCkpt, "with --profile/--tasks: "+strings.Join(memplan.AppStrategies, "|"))
	fl.Float64("mem-tau", 0.01, "with --profile/--tasks: request the largest memory of the tasks running with probability > tau (given the job still runs)")
	fl.Float64("ckpt-tau", 0.1, "with --profile/--tasks: the checkpoint at t saves M_tau(t) of memory (Eq. (2))")
	fl.String("ckpt-latency", "", "with --profile/--tasks: checkpoint latency l of C(V) = l + V/b (default: the profile's, else CRIU's 4.1s)")
	fl.Float64("ckpt-bandwidth", 0, "with --profile/--tasks: checkpoint bandwidth b in GB/s (default: the profile's, else CRIU's 0.207)")
	fl.Float64("mem-margin", 0, "with --profile/--tasks: add this fraction to every memory request (headroom, e.g. 0.1)")
	fl.Float64("v2-eps", 0.02, "with --profile/--tasks: probability that mem-all-ckpt-v2's first reservation reaches the memory-hungry task")
	fl.String("transfer-runs", "", "with --profile/--tasks: a file of the phase walltimes of runs on another machine (one run per line); the plan is moved there with one slowdown per phase (Section 4.5)")
	fl.Int("phases", 0, "with --tasks of whole-run traces: keep the runs segmented into this many phases (default: the most common count; the others are dropped with a warning)")
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
	t, _ := fl.GetString("tasks")
	if p != "" || t != "" {
		return nil
	}
	for _, name := range profileOnlyFlags {
		if fl.Changed(name) {
			with := "--profile or --tasks"
			if name == "phases" {
				with = "--tasks"
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

// profilePlan is the --json output of ckpt reserve --profile/--tasks.
type profilePlan struct {
	Application            string           `json:"application"`
	Source                 string           `json:"source"`
	Runs                   int              `json:"runs,omitempty"`
	Dropped                []string         `json:"dropped_runs,omitempty"`
	Tasks                  []profileTask    `json:"tasks"`
	MeanMemory             float64          `json:"mean_memory"`
	PeakMemory             float64          `json:"peak_memory"`
	Total                  string           `json:"total_walltime_law"`
	Checkpoint             string           `json:"checkpoint_cost"`
	Restart                float64          `json:"restart"`
	Algorithm              string           `json:"algorithm"`
	ExpectedReservation    float64          `json:"expected_reservation_time"`
	ExpectedWeightedMemory float64          `json:"expected_weighted_memory"`
	Reservations           []profileReserve `json:"reservations"`
	Others                 []profileOther   `json:"others,omitempty"`
	// TransferFactors are the per-phase slowdowns of --transfer-runs.
	TransferFactors []float64 `json:"transfer_factors,omitempty"`
}

type profileTask struct {
	Name     string  `json:"name"`
	Walltime string  `json:"walltime"`
	Mem      float64 `json:"mem"`
}

type profileReserve struct {
	memplan.MemReservation
	Time      string `json:"sbatch_time"`
	SbatchMem string `json:"sbatch_mem"`
}

type profileOther struct {
	Name                   string  `json:"name"`
	ExpectedReservation    float64 `json:"expected_reservation_time"`
	ExpectedWeightedMemory float64 `json:"expected_weighted_memory"`
	Reservations           int     `json:"reservations"`
}

// sbatchMem renders GB as an sbatch --mem value in MiB, rounded up
// (memplan.PlanApp bounds every request by memplan.MaxMemory, so that it
// fits an int64).
func sbatchMem(gb float64) string { return slurm.MemArg(gb) }

func runProfile(cmd *cobra.Command, f reserveFlags) error {
	strategy, err := checkProfileFlags(cmd, f)
	if err != nil {
		return err
	}
	src, err := openProfileSource(cmd, f)
	if err != nil {
		return err
	}
	src, factors, err := transferProfile(cmd, src)
	if err != nil {
		return err
	}
	if (strategy == memplan.StrategyNeuro || strategy == memplan.StrategyNeuroAvg) && src.History == nil {
		return usagef("--mem-strategy %s needs past runs: use --tasks", strategy)
	}
	o, err := profileOptions(cmd, f, src)
	if err != nil {
		return err
	}
	ps, err := memplan.PlanApp(src.App, src.History, o)
	if err != nil {
		return usage(fmt.Errorf("%s: %w", src.Desc, err))
	}
	plan := ps.Plans[strategy]
	if plan == nil {
		return usagef("%s is not defined for %s: its memory-hungry task is its first", strategy, src.App.Name)
	}
	if err := writeProfilePictures(f.plotPath, f.htmlPath, src, plan, o.MemTau); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.sbatch != "" {
		return writeProfileSbatch(cmd, out, f, plan)
	}
	res := newProfileReport(src, ps, plan, o, !f.noBaselines)
	res.TransferFactors = factors
	if f.json {
		return writeJSON(out, res)
	}
	return writeProfileText(out, res, f.all)
}

// checkProfileFlags refuses the flags that do not apply to --profile/--tasks
// and returns the strategy to print.
func checkProfileFlags(cmd *cobra.Command, f reserveFlags) (string, error) {
	fl := cmd.Flags()
	switch {
	case f.profile != "" && f.tasks != "":
		return "", usagef("give --profile or --tasks, not both")
	case f.distSpec != "" || f.history != "":
		return "", usagef("--dist and --history do not apply to --profile/--tasks: the walltime law is the sum of the tasks'")
	case f.evaluate != "" || fl.Changed("evaluate"):
		return "", usagef("--evaluate does not apply to --profile/--tasks")
	case fl.Changed("ckpt"):
		return "", usagef("--ckpt does not apply to --profile/--tasks: the checkpoint cost is C(V) = l + V/b (--ckpt-latency, --ckpt-bandwidth)")
	case f.sbatch != "" && f.json:
		return "", usagef("give --sbatch or --json, not both")
	case f.profile != "" && fl.Changed("fit"):
		return "", usagef("--fit applies to --tasks (the fit of the past runs' phases), not to --profile, whose laws are given")
	case f.profile != "" && fl.Changed("phases"):
		return "", usagef("--phases applies to --tasks (whole-run traces), not to --profile")
	}
	for _, sf := range singleJobFlags {
		if fl.Changed(sf.name) {
			return "", usagef("--%s does not apply to --profile/--tasks: %s", sf.name, sf.why)
		}
	}
	if phases, _ := fl.GetInt("phases"); fl.Changed("phases") && phases < 1 {
		return "", usagef("--phases must be >= 1, got %d", phases)
	}
	strategy, _ := fl.GetString("mem-strategy")
	if fl.Changed("strategy") {
		if f.strategy != reservation.AlgoAllCkpt {
			return "", usagef("--strategy %s does not apply to --profile/--tasks; use --mem-strategy %s", f.strategy, strings.Join(memplan.AppStrategies, "|"))
		}
		strategy = memplan.StrategyAllCkpt
	}
	if err := memplan.CheckAppStrategy(strategy); err != nil {
		return "", usagef("--mem-strategy: %w", err)
	}
	return strategy, nil
}

// openProfileSource reads the application model of --profile or --tasks,
// warning on stderr about the runs left out.
func openProfileSource(cmd *cobra.Command, f reserveFlags) (*profile.Source, error) {
	if f.tasks == "" {
		src, err := profile.OpenProfile(f.profile)
		return src, usage(err)
	}
	// The paper fits a Normal per task (the default here, whatever
	// --fit's default for --history); --fit FAMILY imposes another.
	family := "normal"
	if cmd.Flags().Changed("fit") {
		family = f.fit
	}
	if err := profile.CheckTaskFamily(family); err != nil {
		return nil, usage(fmt.Errorf("--fit %s does not apply to --tasks: %w", family, err))
	}
	phases, _ := cmd.Flags().GetInt("phases")
	set, err := profile.ReadRuns(f.tasks, profile.ReadOptions{Phases: phases})
	if errors.Is(err, profile.ErrPhaseTie) {
		return nil, usagef("%w; choose one with --phases N", err)
	}
	if err != nil {
		return nil, usage(err)
	}
	if w := set.DroppedSummary(f.tasks); w != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: %s (--phases N keeps another count)\n", w)
	}
	src, err := profile.FitSource(f.tasks, set, family)
	return src, usage(err)
}

// profileOptions are the paper's planning options for src, overridden by
// the flags.
func profileOptions(cmd *cobra.Command, f reserveFlags, src *profile.Source) (memplan.AppPlanOptions, error) {
	fl := cmd.Flags()
	opts, err := f.options()
	if err != nil {
		return memplan.AppPlanOptions{}, usage(err)
	}
	if c := opts.Costs; c.Alpha != 1 || c.Beta != 0 || c.Gamma != 0 {
		return memplan.AppPlanOptions{}, usagef("--profile/--tasks minimise the reservation time (alpha=1, beta=gamma=0), got alpha=%g beta=%g gamma=%g", c.Alpha, c.Beta, c.Gamma)
	}
	o := memplan.DefaultAppPlanOptions(src.App)
	if src.Checkpoint != nil {
		o.Ckpt = *src.Checkpoint
	}
	if src.Restart != nil {
		o.Restart = *src.Restart
	}
	if s, _ := fl.GetString("ckpt-latency"); s != "" {
		if o.Ckpt.Latency, err = nonNegDurationFlag("ckpt-latency", s); err != nil {
			return o, err
		}
	}
	if fl.Changed("ckpt-bandwidth") {
		o.Ckpt.Bandwidth, _ = fl.GetFloat64("ckpt-bandwidth")
	}
	if fl.Changed("restart") {
		o.Restart = opts.Costs.R
	}
	o.MemTau, _ = fl.GetFloat64("mem-tau")
	o.CkptTau, _ = fl.GetFloat64("ckpt-tau")
	o.V2Eps, _ = fl.GetFloat64("v2-eps")
	o.MemMargin, _ = fl.GetFloat64("mem-margin")
	o.TailMass = opts.TailMass
	if f.nSet {
		o.N = f.n
	}
	return o, optionFlagError(fl, o.Validate())
}

// optionFlags names the flag of each memplan.AppPlanOptions field.
var optionFlags = map[string]string{"N": "n", "TailMass": "tail-mass", "CkptTau": "ckpt-tau", "MemTau": "mem-tau", "V2Eps": "v2-eps",
	"MemMargin": "mem-margin", "Restart": "restart", "Ckpt.Latency": "ckpt-latency", "Ckpt.Bandwidth": "ckpt-bandwidth"}

// optionFlagError is err as a usage error that names the flag of the field
// out of range ("--mem-margin 1e+300: want a value in [0, 10]") when the
// value came from that flag, not from the profile.
func optionFlagError(fl *pflag.FlagSet, err error) error {
	var oe *memplan.OptionError
	if errors.As(err, &oe) {
		if name, ok := optionFlags[oe.Field]; ok && fl.Changed(name) {
			return usagef("--%s %s: %s", name, fl.Lookup(name).Value, oe.Want)
		}
	}
	return usage(err)
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

// newProfileReport assembles the report of plan, with the other strategies'
// expectations when others is set.
func newProfileReport(src *profile.Source, ps *memplan.AppPlans, plan *memplan.MemPlan, o memplan.AppPlanOptions, others bool) profilePlan {
	app := src.App
	res := profilePlan{Application: app.Name, Source: src.Desc, Runs: src.Runs, MeanMemory: app.MeanMemory(), PeakMemory: app.PeakMemory(),
		Total: memplan.DescribeTotal(ps.Total), Checkpoint: fmt.Sprintf("%.4g s + V / %.4g GB/s", o.Ckpt.Latency, o.Ckpt.Bandwidth), Restart: o.Restart,
		Algorithm: plan.Name, ExpectedReservation: plan.ExpectedTime, ExpectedWeightedMemory: plan.ExpectedWeightedMemory}
	for _, d := range src.Dropped {
		res.Dropped = append(res.Dropped, d.ID)
	}
	for _, t := range app.Tasks {
		res.Tasks = append(res.Tasks, profileTask{Name: t.Name, Walltime: t.Walltime.String(), Mem: t.Mem})
	}
	for _, r := range plan.Reservations {
		res.Reservations = append(res.Reservations, profileReserve{MemReservation: r, Time: units.SlurmTime(r.Length), SbatchMem: sbatchMem(r.Mem)})
	}
	if !others {
		return res
	}
	for _, s := range memplan.AppStrategies {
		if p := ps.Plans[s]; p != nil && s != plan.Name && !math.IsNaN(p.ExpectedTime) {
			res.Others = append(res.Others, profileOther{Name: s, ExpectedReservation: p.ExpectedTime, ExpectedWeightedMemory: p.ExpectedWeightedMemory, Reservations: len(p.Reservations)})
		}
	}
	return res
}

func writeProfileText(w io.Writer, r profilePlan, all bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "application: %s (%s)\n", r.Application, r.Source)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  task\twalltime law\tpeak memory")
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "  %s\t%s\t%.3g GB\n", t.Name, t.Walltime, t.Mem)
	}
	tw.Flush()
	fmt.Fprintf(&b, "total walltime: %s; average memory %.3g GB, peak %.3g GB\n", r.Total, r.MeanMemory, r.PeakMemory)
	fmt.Fprintf(&b, "checkpoint C(V) = %s, restart R = %s\n", r.Checkpoint, units.FormatSeconds(r.Restart))
	fmt.Fprintf(&b, "strategy: %s\n\n", r.Algorithm)
	rows := make([]reservation.TableRow, len(r.Reservations))
	for i, rv := range r.Reservations {
		rows[i] = reservation.TableRow{Length: rv.Length, Extra: []string{fmt.Sprintf("%.3g GB", rv.Mem), rv.SbatchMem},
			Checkpoint: rv.Checkpoint, Saved: rv.Saved, ProbNeeded: rv.ProbNeeded}
	}
	if err := reservation.WriteTable(&b, []string{"memory", "sbatch --mem"}, rows, all, "--all"); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nexpected reservation time: %s per run; expected weighted memory: %.3g GB\n", units.FormatSeconds(r.ExpectedReservation), r.ExpectedWeightedMemory)
	if len(r.Others) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "strategy\texpected reservation time\tweighted memory\treservations\t")
		for _, o := range r.Others {
			fmt.Fprintf(tw, "%s\t%s\t%.3g GB\t%d\t\n", o.Name, units.FormatSeconds(o.ExpectedReservation), o.ExpectedWeightedMemory, o.Reservations)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// transferProfile applies --transfer-runs: the model moved to the machine
// whose runs' phase walltimes the file gives (memplan.TransferSource).
func transferProfile(cmd *cobra.Command, src *profile.Source) (*profile.Source, []float64, error) {
	name, _ := cmd.Flags().GetString("transfer-runs")
	if name == "" {
		return src, nil, nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, usage(fmt.Errorf("--transfer-runs: %w", err))
	}
	defer fh.Close()
	runs, err := profile.ReadPhaseTimes(fh)
	if err != nil {
		return nil, nil, usage(fmt.Errorf("--transfer-runs %s: %w", name, err))
	}
	out, f, err := memplan.TransferSource(src, runs, name)
	if err != nil {
		return nil, nil, usage(fmt.Errorf("--transfer-runs %w", err))
	}
	return out, f, nil
}
