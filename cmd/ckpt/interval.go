package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

type intervalFlags struct {
	te, ckpt, restart, mtbf string
	failures                float64
	traceFile, lanlFile     string
	priority, system        int
	maxLength               string
	memory                  float64
	blcr                    string
	local, shared           string
	systemGiven             bool
	json                    bool
}

func newIntervalCmd() *cobra.Command {
	var f intervalFlags
	cmd := &cobra.Command{
		Use:   "interval",
		Short: "Plan checkpoint intervals for a failure-prone task (Young, Daly, E(Y) of Di et al.)",
		Long: `Plan how many checkpoints a task should take and how far apart, given its
work Te (time without failure nor checkpoint), the checkpoint cost C, the
restart cost R, and either the expected number of failures during the task
E(Y) (--failures) or the MTBF (--mtbf). The missing one follows from
Corollary 1 (E(Y) = Te/MTBF). Both can also be estimated from history: a
GloudSim Google task trace (--trace, MNOF and MTBF of the tasks of one
--priority shorter than --max-length) or the LANL failure log (--lanl, the
MTBF of one --system).

For each method it prints the number of intervals, the period (work between
checkpoints) and the expected wall-clock time and overhead under Eq. (4) of
Di et al. (SC'13): young = sqrt(2 C MTBF), daly = Daly's higher-order period,
mnof = Theorem 1, x* = sqrt(Te E(Y) / 2C) rounded to the integer minimising
Eq. (4).

It also chooses between local and shared checkpoint storage (Section 4.2.2):
give the costs of each with --local C,R and --shared C,R, or the task's
memory with --memory MB to interpolate them from the measured BLCR tables
(checkpoint to a local ramdisk or to NFS; restart after migrating the local
image, or from NFS). The tables are read from --blcr DIR, by default
$CKPT_DATA/checkpoint-costs/blcr, else the first checkpoint-costs/blcr found
under ../shared/data, ../../shared/data, ../../../shared/data or
/work/shared/data. Each storage is priced by C(x-1) + R E(Y) + Te E(Y)/2x at
the integer x of Theorem 1 and at the real x* of Eq. (3), the paper's form;
without --ckpt the method table uses the cheaper storage's C and R.
Plain numbers are seconds; durations like 90m, 2h or 1.5d are accepted.`,
		Example: `  ckpt interval --te 18 --ckpt 2 --failures 2
  ckpt interval --te 441 --ckpt 1 --failures 2 --json
  ckpt interval --te 2h --ckpt 30s --restart 1m --mtbf 6h
  ckpt interval --te 900 --ckpt 2 --trace ../shared/data/google2011/gloudsim-task-traces/mix-jobTrace-dec.dat --priority 1 --max-length 1000
  ckpt interval --te 1d --ckpt 5m --lanl ../shared/data/failures/LA-UR-05-7318-failure-data-1996-2005.csv --system 20
  ckpt interval --te 200 --failures 2 --local 0.632,3.22 --shared 1.67,1.45
  ckpt interval --te 200 --failures 2 --memory 160`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInterval(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.te, "te", "", "work of the task Te, without failures nor checkpoints (required)")
	fl.StringVar(&f.ckpt, "ckpt", "", "checkpoint cost C (> 0; required unless --memory gives it)")
	fl.StringVar(&f.restart, "restart", "0", "restart cost R (>= 0)")
	fl.Float64Var(&f.failures, "failures", math.NaN(), "expected number of failures during the task E(Y) (MNOF, >= 0)")
	fl.StringVar(&f.mtbf, "mtbf", "", "mean time between failures (> 0)")
	fl.StringVar(&f.traceFile, "trace", "", "GloudSim task trace (*.dat) to estimate MNOF and MTBF from")
	fl.IntVar(&f.priority, "priority", -1, "with --trace: priority group as in the file, 0-11 (the paper prints 1-12); -1 = all tasks")
	fl.StringVar(&f.maxLength, "max-length", "", "with --trace: only tasks whose work is below this (default: no limit)")
	fl.StringVar(&f.lanlFile, "lanl", "", "LANL failure log (CSV) to estimate the MTBF from")
	fl.IntVar(&f.system, "system", 0, "with --lanl: system number (required; a wrong one lists the systems)")
	fl.Float64Var(&f.memory, "memory", 0, "task memory in MB: choose local or shared checkpoint storage from the BLCR costs")
	fl.StringVar(&f.blcr, "blcr", "", "folder of the BLCR cost tables for --memory (default: $CKPT_DATA/checkpoint-costs/blcr, else found from the working directory or /work/shared/data)")
	fl.StringVar(&f.local, "local", "", "checkpoint and restart costs C,R on local storage (with --shared; Section 4.2.2)")
	fl.StringVar(&f.shared, "shared", "", "checkpoint and restart costs C,R on shared storage (with --local)")
	fl.BoolVar(&f.json, "json", false, "print JSON on stdout")
	return cmd
}

type intervalMethodJSON struct {
	Intervals         int      `json:"intervals"`
	Checkpoints       int      `json:"checkpoints"`
	Period            float64  `json:"period"`
	ExpectedWallclock *float64 `json:"expected_wallclock"`
	Overhead          *float64 `json:"overhead"`
}

type intervalStorageJSON struct {
	Name      string  `json:"name"`
	C         float64 `json:"c"`
	R         float64 `json:"r"`
	Intervals float64 `json:"intervals"`
	Cost      float64 `json:"cost"`
	// XReal and CostReal are the paper's form: the real x* of Eq. (3).
	XReal    float64 `json:"x_real"`
	CostReal float64 `json:"cost_real"`
}

type intervalJSON struct {
	Te               float64               `json:"te"`
	C                float64               `json:"c"`
	R                float64               `json:"r"`
	ExpectedFailures *float64              `json:"expected_failures"`
	MTBF             *float64              `json:"mtbf"`
	Source           string                `json:"source"`
	Young            intervalMethodJSON    `json:"young"`
	Daly             intervalMethodJSON    `json:"daly"`
	MNOF             intervalMethodJSON    `json:"mnof"`
	Storage          []intervalStorageJSON `json:"storage,omitempty"`
	StorageChoice    string                `json:"storage_choice,omitempty"`
}

func runInterval(cmd *cobra.Command, f intervalFlags) error {
	if f.te == "" {
		return usagef("--te is required (the work of the task)")
	}
	te, err := units.ParseSeconds(f.te)
	if err != nil {
		return usagef("--te: %v", err)
	}
	if !(te > 0) {
		return usagef("--te must be > 0, got %v", f.te)
	}
	r, err := units.ParseSeconds(f.restart)
	if err != nil {
		return usagef("--restart: %v", err)
	}
	if !(r >= 0) {
		return usagef("--restart must be >= 0, got %v", f.restart)
	}
	c := math.NaN()
	if f.ckpt != "" {
		if c, err = units.ParseSeconds(f.ckpt); err != nil {
			return usagef("--ckpt: %v", err)
		}
		if !(c > 0) {
			return usagef("--ckpt must be > 0, got %v", f.ckpt)
		}
	}
	task := interval.Task{Te: te, C: c, R: r, EY: f.failures, MTBF: math.NaN()}
	given := cmd.Flags().Changed
	if given("failures") && (math.IsNaN(f.failures) || !(f.failures >= 0) || math.IsInf(f.failures, 0)) {
		return usagef("--failures must be a finite number >= 0, got %v", f.failures)
	}
	if f.mtbf != "" {
		m, err := units.ParseSeconds(f.mtbf)
		if err != nil {
			return usagef("--mtbf: %v", err)
		}
		if !(m > 0) {
			return usagef("--mtbf must be > 0, got %v", f.mtbf)
		}
		task.MTBF = m
	}
	if f.traceFile != "" && f.lanlFile != "" {
		return usagef("give --trace or --lanl, not both")
	}
	source := "given"
	if f.traceFile != "" {
		if given("failures") || f.mtbf != "" {
			return usagef("--trace estimates E(Y) and the MTBF: do not give --failures or --mtbf too")
		}
		if source, err = estimateFromTrace(f, &task); err != nil {
			return err
		}
	} else if f.lanlFile != "" {
		f.systemGiven = given("system")
		if f.mtbf != "" {
			return usagef("--lanl estimates the MTBF: do not give --mtbf too")
		}
		if source, err = estimateFromLANL(f, &task); err != nil {
			return err
		}
	} else if !given("failures") && f.mtbf == "" {
		return usagef("give --failures E(Y), --mtbf, --trace or --lanl")
	}

	if given("system") && f.lanlFile == "" {
		return usagef("--system goes with --lanl FILE")
	}
	if given("blcr") && !given("memory") {
		return usagef("--blcr goes with --memory MB")
	}
	var storage, storageReal []interval.StorageCost
	best := -1
	var stores []interval.Storage
	switch {
	case given("memory") && (f.local != "" || f.shared != ""):
		return usagef("give --memory or --local/--shared, not both")
	case given("memory"):
		if !(f.memory > 0) || math.IsInf(f.memory, 0) {
			return usagef("--memory must be > 0 MB, got %v", f.memory)
		}
		dir, err := blcrDir(f.blcr)
		if err != nil {
			return usage(err)
		}
		b, err := interval.LoadBLCR(dir)
		if err != nil {
			return usagef("--blcr: %v", err)
		}
		stores = b.Storages(f.memory)
	case f.local != "" || f.shared != "":
		if f.local == "" || f.shared == "" {
			return usagef("give both --local C,R and --shared C,R")
		}
		for _, x := range []struct{ name, v string }{{"local", f.local}, {"shared", f.shared}} {
			c, r, err := parseCostPair(x.v)
			if err != nil {
				return usagef("--%s: %v", x.name, err)
			}
			stores = append(stores, interval.Storage{Name: x.name, C: c, R: r})
		}
	}
	if stores != nil {
		ey := task.Resolved().EY
		var err error
		if storage, best, err = interval.ChooseStorage(te, ey, stores, false); err != nil {
			return usage(err)
		}
		if storageReal, _, err = interval.ChooseStorage(te, ey, stores, true); err != nil {
			return usage(err)
		}
		if math.IsNaN(task.C) { // C and R of the chosen storage
			task.C = storage[best].C
			if !given("restart") {
				task.R = storage[best].R
			}
		}
	}
	if math.IsNaN(task.C) {
		return usagef("--ckpt is required (or --memory to take it from the BLCR tables, or --local C,R --shared C,R)")
	}
	methods, err := interval.Plan(task)
	if err != nil {
		return usage(err)
	}
	task = task.Resolved()
	out := cmd.OutOrStdout()
	if f.json {
		j := intervalJSON{Te: te, C: task.C, R: task.R, ExpectedFailures: finite(task.EY), MTBF: finite(task.MTBF), Source: source}
		for _, m := range methods {
			mj := intervalMethodJSON{Intervals: m.Intervals, Checkpoints: m.Intervals - 1, Period: m.Period, ExpectedWallclock: finite(m.ExpectedWallclock), Overhead: finite(m.Overhead)}
			switch m.Name {
			case interval.MethodYoung:
				j.Young = mj
			case interval.MethodDaly:
				j.Daly = mj
			case interval.MethodMNOF:
				j.MNOF = mj
			}
		}
		for i, s := range storage {
			j.Storage = append(j.Storage, intervalStorageJSON{Name: s.Name, C: s.C, R: s.R, Intervals: s.X, Cost: s.Cost,
				XReal: storageReal[i].X, CostReal: storageReal[i].Cost})
		}
		if best >= 0 {
			j.StorageChoice = storage[best].Name
		}
		return writeJSON(out, j)
	}
	return writeIntervalText(out, task, source, methods, storage, storageReal, best)
}

// parseCostPair reads "C,R": checkpoint cost > 0 and restart cost ≥ 0,
// each a number of seconds or a duration.
func parseCostPair(v string) (c, r float64, err error) {
	parts := strings.Split(v, ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("want C,R (checkpoint and restart costs), got %q", v)
	}
	if c, err = units.ParseSeconds(strings.TrimSpace(parts[0])); err != nil || !(c > 0) || math.IsInf(c, 0) {
		return 0, 0, fmt.Errorf("checkpoint cost must be a finite duration > 0, got %q", parts[0])
	}
	if r, err = units.ParseSeconds(strings.TrimSpace(parts[1])); err != nil || !(r >= 0) || math.IsInf(r, 0) {
		return 0, 0, fmt.Errorf("restart cost must be a finite duration >= 0, got %q", parts[1])
	}
	return c, r + 0, nil // + 0 turns −0 into 0
}

// blcrDir is the folder of the BLCR cost tables: dir when given, else
// $CKPT_DATA/checkpoint-costs/blcr, else the first that exists of the
// shared data folders the reproductions look in.
func blcrDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	rel := filepath.Join("checkpoint-costs", "blcr")
	if d := os.Getenv("CKPT_DATA"); d != "" {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(filepath.Join(p, interval.BLCRLocalCkpt)); err != nil {
			return "", fmt.Errorf("--memory: no BLCR cost tables in $CKPT_DATA/%s (%s); give --blcr DIR or --local/--shared", rel, p)
		}
		return p, nil
	}
	for _, d := range []string{"../shared/data", "../../shared/data", "../../../shared/data", "/work/shared/data"} {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(filepath.Join(p, interval.BLCRLocalCkpt)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("--memory: BLCR cost tables not found; set CKPT_DATA to the folder holding %s, or give --blcr DIR or --local/--shared", rel)
}

func estimateFromTrace(f intervalFlags, task *interval.Task) (string, error) {
	maxLen := math.Inf(1)
	if f.maxLength != "" {
		v, err := units.ParseSeconds(f.maxLength)
		if err != nil {
			return "", usagef("--max-length: %v", err)
		}
		if !(v > 0) {
			return "", usagef("--max-length must be > 0, got %v", f.maxLength)
		}
		maxLen = v
	}
	fh, err := os.Open(f.traceFile)
	if err != nil {
		return "", usage(err)
	}
	defer fh.Close()
	tr, err := trace.ReadGloudSim(fh, f.traceFile)
	if err != nil {
		return "", usage(err)
	}
	var tasks []interval.TraceTask
	for _, t := range interval.TasksFromGloudSim(tr) {
		if (f.priority < 0 || t.Priority == f.priority) && t.Te < maxLen {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		return "", usagef("--trace %s: no task of priority %d shorter than %s", f.traceFile, f.priority, units.FormatSeconds(maxLen))
	}
	s := interval.Estimate(tasks)
	task.EY = s.MNOF
	task.MTBF = s.MTBF
	if s.Failures == 0 {
		task.MTBF = math.Inf(1)
	}
	group := "all priorities"
	if f.priority >= 0 {
		group = fmt.Sprintf("priority %d", f.priority)
	}
	return fmt.Sprintf("%s: %d tasks (%s, work < %s), %d failures: MNOF %.4g, MTBF %.4g s",
		f.traceFile, s.Tasks, group, units.FormatSeconds(maxLen), s.Failures, s.MNOF, s.MTBF), nil
}

func estimateFromLANL(f intervalFlags, task *interval.Task) (string, error) {
	fh, err := os.Open(f.lanlFile)
	if err != nil {
		return "", usage(err)
	}
	defer fh.Close()
	recs, err := trace.ReadLANL(fh, f.lanlFile)
	if err != nil {
		return "", usage(err)
	}
	var known []string
	var mine []trace.LANLFailure
	for _, s := range trace.GroupLANLBySystem(recs) {
		if len(s.Failures) < 2 {
			continue
		}
		known = append(known, strconv.Itoa(s.System))
		if s.System == f.system {
			mine = s.Failures
		}
	}
	if len(known) == 0 {
		return "", usagef("--lanl %s: no system with at least 2 failures", f.lanlFile)
	}
	if !f.systemGiven || mine == nil {
		what := "give --system N"
		if f.systemGiven {
			what = fmt.Sprintf("no system %d with at least 2 failures", f.system)
		}
		return "", usagef("--lanl %s: %s (systems: %s)", f.lanlFile, what, strings.Join(known, ", "))
	}
	for _, s := range interval.LANLSystems(mine, 2) {
		task.MTBF = s.MTBF
		best := "none"
		if len(s.Fits) > 0 && s.Fits[0].Dist != nil {
			best = s.Fits[0].Dist.String()
		}
		return fmt.Sprintf("%s: system %d, %d failures, MTBF %.4g s; best fit of the inter-event times (AIC): %s",
			f.lanlFile, s.System, s.Failures, s.MTBF, best), nil
	}
	return "", usagef("--lanl %s: no system %d with at least 2 failures", f.lanlFile, f.system)
}

func writeIntervalText(w io.Writer, t interval.Task, source string, ms []interval.Method, st, stReal []interval.StorageCost, best int) error {
	fmt.Fprintf(w, "task: Te = %s (%g s), C = %.6g s, R = %.6g s\n", units.FormatSeconds(t.Te), t.Te, t.C, t.R)
	fmt.Fprintf(w, "failures: E(Y) = %.6g, MTBF = %s (a value not given is Te/E(Y) or Te/MTBF, Corollary 1)\n", t.EY, fmtSec(t.MTBF))
	fmt.Fprintf(w, "source: %s\n\n", source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tintervals\tcheckpoints\tperiod (s)\texpected wall-clock (s)\toverhead\t")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.6g\t%.6g\t%.3f%%\t\n", m.Name, m.Intervals, m.Intervals-1, m.Period, m.ExpectedWallclock, 100*m.Overhead/t.Te)
	}
	tw.Flush()
	if len(st) > 0 {
		fmt.Fprintln(w, "\nstorage (Section 4.2.2; cost = C(x-1) + R E(Y) + Te E(Y)/2x at the integer x, and at the real x* of Eq. (3)):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "storage\tC (s)\tR (s)\tintervals\tcost (s)\tx*\tcost at x* (s)\tchoice\t")
		for i, s := range st {
			mark := ""
			if i == best {
				mark = "best"
			}
			fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%g\t%.2f\t%.2f\t%.2f\t%s\t\n", s.Name, s.C, s.R, s.X, s.Cost, stReal[i].X, stReal[i].Cost, mark)
		}
		tw.Flush()
	}
	return nil
}

func fmtSec(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strings.TrimSpace(fmt.Sprintf("%.6g s", v))
}
