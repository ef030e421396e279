package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/dist"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/repro/profiles"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
)

func init() {
	profileRun = runProfile
	reproductions["profiles"] = reproduction{paper: "Profiles of upcoming HPC Applications and their Impact on Reservation Strategies (IEEE TPDS 2021)", run: profiles.Run}
	reserveFlagHooks = append(reserveFlagHooks, addProfileFlags)
}

func addProfileFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("mem-strategy", reservation.StrategyMemAllCkpt, "with --profile/--tasks: "+strings.Join(reservation.AppStrategies, "|"))
	fl.Float64("mem-tau", 0.01, "with --profile/--tasks: request the largest memory of the tasks running with probability > tau (given the job still runs)")
	fl.Float64("ckpt-tau", 0.1, "with --profile/--tasks: the checkpoint at t saves M_tau(t) of memory (Eq. (2))")
	fl.String("ckpt-latency", "", "with --profile/--tasks: checkpoint latency l of C(V) = l + V/b (default: the profile's, else CRIU's 4.1s)")
	fl.Float64("ckpt-bandwidth", 0, "with --profile/--tasks: checkpoint bandwidth b in GB/s (default: the profile's, else CRIU's 0.207)")
	fl.Float64("mem-margin", 0, "with --profile/--tasks: add this fraction to every memory request (headroom, e.g. 0.1)")
	fl.Float64("v2-eps", 0.02, "with --profile/--tasks: probability that mem-all-ckpt-v2's first reservation reaches the memory-hungry task")
	cmd.Example += `
  ckpt reserve --profile slant
  ckpt reserve --profile app.yaml --json
  ckpt reserve --tasks runs/ --mem-strategy mem-all-ckpt-v2 --sbatch job.sh > submit.sh`
}

// profilePlan is the --json output of ckpt reserve --profile/--tasks.
type profilePlan struct {
	Application            string           `json:"application"`
	Source                 string           `json:"source"`
	Runs                   int              `json:"runs,omitempty"`
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
}

type profileTask struct {
	Name     string  `json:"name"`
	Walltime string  `json:"walltime"`
	Mem      float64 `json:"mem"`
}

type profileReserve struct {
	reservation.MemReservation
	Time      string `json:"sbatch_time"`
	SbatchMem string `json:"sbatch_mem"`
}

type profileOther struct {
	Name                   string  `json:"name"`
	ExpectedReservation    float64 `json:"expected_reservation_time"`
	ExpectedWeightedMemory float64 `json:"expected_weighted_memory"`
	Reservations           int     `json:"reservations"`
}

// sbatchMem renders GB as an sbatch --mem value in MiB, rounded up.
func sbatchMem(gb float64) string {
	return fmt.Sprintf("%dM", int64(math.Ceil(gb*1e9/(1<<20))))
}

func runProfile(cmd *cobra.Command, f reserveFlags) error {
	fl := cmd.Flags()
	switch {
	case f.profile != "" && f.tasks != "":
		return usagef("give --profile or --tasks, not both")
	case f.distSpec != "" || f.history != "":
		return usagef("--dist and --history do not apply to --profile/--tasks: the walltime law is the sum of the tasks'")
	case f.evaluate != "":
		return usagef("--evaluate does not apply to --profile/--tasks")
	case fl.Changed("ckpt"):
		return usagef("--ckpt does not apply to --profile/--tasks: the checkpoint cost is C(V) = l + V/b (--ckpt-latency, --ckpt-bandwidth)")
	case f.sbatch != "" && f.json:
		return usagef("give --sbatch or --json, not both")
	}
	opts, err := f.options()
	if err != nil {
		return usage(err)
	}
	if c := opts.Costs; c.Alpha != 1 || c.Beta != 0 || c.Gamma != 0 {
		return usagef("--profile/--tasks minimise the reservation time (alpha=1, beta=gamma=0), got alpha=%g beta=%g gamma=%g", c.Alpha, c.Beta, c.Gamma)
	}
	strategy, _ := fl.GetString("mem-strategy")
	if fl.Changed("strategy") {
		if f.strategy != reservation.AlgoAllCkpt {
			return usagef("--strategy %s does not apply to --profile/--tasks; use --mem-strategy %s", f.strategy, strings.Join(reservation.AppStrategies, "|"))
		}
		strategy = reservation.StrategyAllCkpt
	}
	if !slices.Contains(reservation.AppStrategies, strategy) {
		return usagef("--mem-strategy %q is not one of %s", strategy, strings.Join(reservation.AppStrategies, ", "))
	}

	var app *profile.App
	var ckpt *profile.CheckpointCost
	var history []float64
	source, runs := "", 0
	switch {
	case f.tasks != "":
		rs, err := profile.ReadTasksDir(f.tasks)
		if err != nil {
			return usage(err)
		}
		family := f.fit
		if family == "auto" {
			family = "normal"
		}
		if family == "empirical" {
			return usagef("--fit empirical does not apply to --tasks: give a family (normal, the paper's choice, or %s)", strings.Join(dist.FitFamilies(), ", "))
		}
		if app, err = profile.FitApp(f.tasks, rs, family); err != nil {
			return usage(fmt.Errorf("%s: %w", f.tasks, err))
		}
		history = profile.Walltimes(rs)
		source, runs = fmt.Sprintf("%d runs in %s, %s fit per task", len(rs), f.tasks, family), len(rs)
	default:
		if b, ok := profile.Builtin(f.profile); ok {
			app, source = b, "built-in profile "+f.profile
		} else {
			p, err := profile.Load(f.profile)
			if err != nil {
				return usage(err)
			}
			app, ckpt, source = p.App, p.Checkpoint, "profile "+f.profile
			if app.Name == "" {
				app.Name = f.profile
			}
		}
	}
	if (strategy == reservation.StrategyNeuro || strategy == reservation.StrategyNeuroAvg) && history == nil {
		return usagef("--mem-strategy %s needs past runs: use --tasks", strategy)
	}

	o := reservation.DefaultAppPlanOptions(app)
	if ckpt != nil {
		o.Ckpt = *ckpt
	}
	if s, _ := fl.GetString("ckpt-latency"); s != "" {
		if o.Ckpt.Latency, err = units.ParseSeconds(s); err != nil {
			return usage(fmt.Errorf("--ckpt-latency: %w", err))
		}
	}
	if fl.Changed("ckpt-bandwidth") {
		o.Ckpt.Bandwidth, _ = fl.GetFloat64("ckpt-bandwidth")
	}
	if err := o.Ckpt.Validate(); err != nil {
		return usage(err)
	}
	if fl.Changed("restart") {
		o.Restart = opts.Costs.R
	}
	o.MemTau, _ = fl.GetFloat64("mem-tau")
	o.CkptTau, _ = fl.GetFloat64("ckpt-tau")
	o.V2Eps, _ = fl.GetFloat64("v2-eps")
	o.MemMargin, _ = fl.GetFloat64("mem-margin")
	if !(o.MemTau >= 0 && o.MemTau < 1) || !(o.CkptTau >= 0 && o.CkptTau < 1) {
		return usagef("--mem-tau and --ckpt-tau must be in [0, 1), got %v and %v", o.MemTau, o.CkptTau)
	}
	if !(o.V2Eps > 0 && o.V2Eps < 1) {
		return usagef("--v2-eps must be in (0, 1), got %v", o.V2Eps)
	}
	o.TailMass = opts.TailMass
	if f.nSet {
		o.N = f.n
	}
	if o.N < 2 {
		return usagef("--n must be >= 2 with --profile/--tasks, got %d", o.N)
	}
	ps, err := reservation.PlanApp(app, history, o)
	if err != nil {
		return usage(err)
	}
	plan := ps.Plans[strategy]
	if plan == nil {
		return usagef("%s is not defined for %s: its memory-hungry task is its first", strategy, app.Name)
	}

	out := cmd.OutOrStdout()
	if f.sbatch != "" {
		ch := slurm.Chain{Job: f.sbatch, Name: f.jobName}
		for _, r := range plan.Reservations {
			ch.Steps = append(ch.Steps, slurm.Step{Time: r.Length, Mem: sbatchMem(r.Mem), Checkpoint: r.Checkpoint,
				CheckpointTime: r.CheckpointTime, Restart: r.Restart > 0, Milestone: r.Milestone})
		}
		script, err := ch.Script()
		if err != nil {
			return usage(err)
		}
		_, err = io.WriteString(out, script)
		return err
	}
	res := profilePlan{Application: app.Name, Source: source, Runs: runs, MeanMemory: app.MeanMemory(), PeakMemory: app.PeakMemory(),
		Total: ps.Total.String(), Checkpoint: fmt.Sprintf("%.4g s + V / %.4g GB/s", o.Ckpt.Latency, o.Ckpt.Bandwidth), Restart: o.Restart,
		Algorithm: plan.Name, ExpectedReservation: plan.ExpectedTime, ExpectedWeightedMemory: plan.ExpectedWeightedMemory}
	for _, t := range app.Tasks {
		res.Tasks = append(res.Tasks, profileTask{Name: t.Name, Walltime: t.Walltime.String(), Mem: t.Mem})
	}
	for _, r := range plan.Reservations {
		res.Reservations = append(res.Reservations, profileReserve{MemReservation: r, Time: units.SlurmTime(r.Length), SbatchMem: sbatchMem(r.Mem)})
	}
	if !f.noBaselines {
		for _, s := range reservation.AppStrategies {
			if p := ps.Plans[s]; p != nil && s != strategy && !math.IsNaN(p.ExpectedTime) {
				res.Others = append(res.Others, profileOther{Name: s, ExpectedReservation: p.ExpectedTime, ExpectedWeightedMemory: p.ExpectedWeightedMemory, Reservations: len(p.Reservations)})
			}
		}
	}
	if f.json {
		return writeJSON(out, res)
	}
	return writeProfileText(out, res, f.all)
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
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\trequest\tsbatch --time\tmemory\tsbatch --mem\tcheckpoint\tprogress saved\tP(needed)\t")
	row := func(i int, rv profileReserve) {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3g GB\t%s\t%s\t%s\t%.4g\t\n", i, units.FormatSeconds(rv.Length), rv.Time, rv.Mem, rv.SbatchMem,
			yesNo(rv.Checkpoint), units.FormatSeconds(rv.Saved), rv.ProbNeeded)
	}
	for i, rv := range r.Reservations {
		if !all && rv.ProbNeeded < tableCutoff && len(r.Reservations)-i > 1 {
			fmt.Fprintf(tw, "...\t%d more\t\t\t\t\t\t< %g\t\n", len(r.Reservations)-i-1, tableCutoff)
			row(len(r.Reservations), r.Reservations[len(r.Reservations)-1])
			break
		}
		row(i+1, rv)
	}
	tw.Flush()
	if !all && r.Reservations[len(r.Reservations)-1].ProbNeeded < tableCutoff {
		b.WriteString("(--all lists every reservation)\n")
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
