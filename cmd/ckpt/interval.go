package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

type intervalFlags struct {
	te, ckpt, restart, mtbf string
	failures                float64
	traceFile, lanlFile     string
	ftaPath                 string
	priority, system, nodes int
	maxLength               string
	memory                  float64
	blcr, data              string
	local, shared           string
	json                    bool
	plotPath, htmlPath      string
}

// pictures reports whether --plot or --html asks for a picture.
func (f intervalFlags) pictures() bool { return f.plotPath != "" || f.htmlPath != "" }

const intervalLong = `Plan how many checkpoints a task should take and how far apart, given its
work Te (time without failure nor checkpoint), the checkpoint cost C, the
restart cost R, and either the expected number of failures during the task
E(Y) (--failures) or the MTBF (--mtbf). The missing one follows from
Corollary 1 (E(Y) = Te/MTBF). Both can also be estimated from history: a
GloudSim Google task trace (--trace, MNOF and MTBF of the tasks of one
--priority shorter than --max-length), the LANL failure log (--lanl, the
MTBF of one --system), or a Failure Trace Archive data set (--fta, e.g. the
Grid'5000 event trace: E(Y) = nodes x Te / node MTBF for a task on --nodes
nodes).

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
--local and --shared) are seconds or durations: 90m, 1.5h, 2d, 01:30:00.
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runInterval(cmd, f) },
	}
	addIntervalFlags(cmd.Flags(), &f)
	cmd.AddCommand(newIntervalSimulateCmd())
	return cmd
}

func addIntervalFlags(fl *pflag.FlagSet, f *intervalFlags) {
	fl.StringVar(&f.te, "te", "", "work of the task Te, without failures nor checkpoints (required)")
	fl.StringVar(&f.ckpt, "ckpt", "", "checkpoint cost C (> 0; required unless --memory or --local/--shared gives it)")
	fl.StringVar(&f.restart, "restart", "", "restart cost R (>= 0; default 0, or the chosen storage's with --memory or --local/--shared)")
	fl.Float64Var(&f.failures, "failures", math.NaN(), "expected number of failures during the task E(Y) (MNOF, >= 0)")
	fl.StringVar(&f.mtbf, "mtbf", "", "mean time between failures (> 0)")
	fl.StringVar(&f.traceFile, "trace", "", "GloudSim task trace (*.dat) to estimate MNOF and MTBF from")
	fl.IntVar(&f.priority, "priority", -1, "with --trace: priority group as in the file, 0-11 (the paper prints 1-12); -1 = all tasks")
	fl.StringVar(&f.maxLength, "max-length", "", "with --trace: only tasks whose work is below this (default: no limit)")
	fl.StringVar(&f.lanlFile, "lanl", "", "LANL failure log (CSV) to estimate the MTBF from")
	fl.IntVar(&f.system, "system", 0, "with --lanl: system number (required; a wrong one lists the systems)")
	fl.StringVar(&f.ftaPath, "fta", "", "Failure Trace Archive event trace (or its folder) to estimate E(Y) and the MTBF from, for a task on --nodes nodes")
	fl.IntVar(&f.nodes, "nodes", 1, "with --fta: number of nodes the task runs on (E(Y) = nodes·Te/node MTBF)")
	fl.Float64Var(&f.memory, "memory", 0, "task memory in MB: choose local or shared checkpoint storage from the BLCR costs")
	fl.StringVar(&f.blcr, "blcr", "", "with --memory: folder of the BLCR cost tables (default: checkpoint-costs/blcr in the data folder)")
	fl.StringVar(&f.data, "data", "", "with --memory: data folder (default: $CKPT_DATA, else ../shared/data beside the checkout)")
	fl.StringVar(&f.local, "local", "", "checkpoint and restart costs C,R on local storage (with --shared; Section 4.2.2)")
	fl.StringVar(&f.shared, "shared", "", "checkpoint and restart costs C,R on shared storage (with --local)")
	addJSONFlag(fl, &f.json)
	addPictureFlags(fl, &f.plotPath, &f.htmlPath, "E(Tw) against the number of intervals, the methods' choices marked (and, with --trace, --lanl or --fta, the fitted failure law over the data)")
}

func runInterval(cmd *cobra.Command, f intervalFlags) error {
	given := cmd.Flags().Changed
	if err := checkIntervalFlags(f, given); err != nil {
		return err
	}
	if err := checkPictureFlags(f.plotPath); err != nil {
		return err
	}
	task, err := intervalTask(f, given)
	if err != nil {
		return err
	}
	source := "given"
	var fd *interval.FailureData
	switch {
	case f.traceFile != "":
		source, fd, err = estimateFromTrace(f, &task)
	case f.lanlFile != "":
		source, fd, err = estimateFromLANL(f, given("system"), &task)
	case f.ftaPath != "":
		source, fd, err = estimateFromFTA(f, &task)
	}
	if err != nil {
		return err
	}
	stores, mem, err := intervalStorages(f, given)
	if err != nil {
		return err
	}
	if mem != nil && mem.Extrapolated {
		fmt.Fprintf(cmd.ErrOrStderr(), "ckpt: warning: --memory %g MB is outside the measured BLCR range %.4g-%.4g MB: its costs are extrapolated\n",
			f.memory, mem.MeasuredMB[0], mem.MeasuredMB[1])
	}
	adv, err := interval.Advise(task, stores)
	if err != nil {
		return usage(err)
	}
	if err := writeAdvicePictures(f.plotPath, f.htmlPath, adv, source, fd); err != nil {
		return err
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), intervalJSONOf(adv, source, mem))
	}
	w := output.NewWriter(cmd.OutOrStdout())
	writeIntervalText(w, adv, source)
	return w.Err()
}

// checkIntervalFlags refuses flags that do not apply and pairs that
// contradict each other.
func checkIntervalFlags(f intervalFlags, given func(string) bool) error {
	needs := []struct{ flag, with string }{
		{"priority", "trace"}, {"max-length", "trace"}, {"system", "lanl"}, {"blcr", "memory"}, {"data", "memory"}, {"nodes", "fta"},
	}
	for _, n := range needs {
		if given(n.flag) && !given(n.with) {
			return usagef("--%s goes with --%s", n.flag, n.with)
		}
	}
	switch {
	case f.priority < -1:
		return usagef("--priority must be a priority group >= 0, or -1 for all, got %d", f.priority)
	case f.system < 0:
		return usagef("--system must be a system number >= 0, got %d", f.system)
	case f.te == "":
		return usagef("--te is required (the work of the task)")
	case f.nodes < 1:
		return usagef("--nodes must be >= 1, got %d", f.nodes)
	case countSet(f.traceFile, f.lanlFile, f.ftaPath) > 1:
		return usagef("give one of --trace, --lanl and --fta")
	case f.ftaPath != "" && (given("failures") || given("mtbf")):
		return usagef("--fta estimates E(Y) and the MTBF: do not give --failures or --mtbf too")
	case f.traceFile != "" && (given("failures") || given("mtbf")):
		return usagef("--trace estimates E(Y) and the MTBF: do not give --failures or --mtbf too")
	case f.lanlFile != "" && given("mtbf"):
		return usagef("--lanl estimates the MTBF: do not give --mtbf too")
	case countSet(f.traceFile, f.lanlFile, f.ftaPath) == 0 && !given("failures") && !given("mtbf"):
		return usagef("give --failures E(Y), --mtbf, --trace, --lanl or --fta")
	case given("memory") && (given("local") || given("shared")):
		return usagef("give --memory or --local/--shared, not both")
	case given("local") != given("shared"):
		return usagef("give both --local C,R and --shared C,R")
	case given("blcr") && given("data"):
		return usagef("give --blcr DIR or --data DIR, not both")
	}
	return nil
}

// intervalTask reads the task's durations and failure model; C and R are
// NaN when not given (a storage may supply them).
func intervalTask(f intervalFlags, given func(string) bool) (interval.Task, error) {
	t := interval.Task{C: math.NaN(), R: math.NaN(), EY: math.NaN(), MTBF: math.NaN()}
	var err error
	if t.Te, err = positiveDurationFlag("te", f.te); err != nil {
		return t, err
	}
	if given("ckpt") {
		if t.C, err = positiveDurationFlag("ckpt", f.ckpt); err != nil {
			return t, err
		}
	}
	if given("restart") {
		if t.R, err = nonNegDurationFlag("restart", f.restart); err != nil {
			return t, err
		}
	}
	if given("failures") {
		if !(f.failures >= 0) || math.IsInf(f.failures, 0) {
			return t, usagef("--failures must be a finite number >= 0, got %v", f.failures)
		}
		t.EY = f.failures
	}
	if given("mtbf") {
		if t.MTBF, err = positiveDurationFlag("mtbf", f.mtbf); err != nil {
			return t, err
		}
	}
	if !given("ckpt") && !given("memory") && !given("local") {
		return t, usagef("--ckpt is required (or --memory to take it from the BLCR tables, or --local C,R --shared C,R)")
	}
	return t, nil
}

// memoryJSON says where --memory's costs come from.
type memoryJSON struct {
	MB           float64    `json:"mb"`
	MeasuredMB   [2]float64 `json:"measured_mb"`
	Extrapolated bool       `json:"extrapolated"`
}

// intervalStorages reads --local/--shared, or the BLCR tables at --memory.
func intervalStorages(f intervalFlags, given func(string) bool) ([]interval.Storage, *memoryJSON, error) {
	if given("local") {
		var stores []interval.Storage
		for _, x := range []struct{ name, v string }{{"local", f.local}, {"shared", f.shared}} {
			s, err := interval.ParseStorage(x.name, x.v)
			if err != nil {
				return nil, nil, usagef("--%s: %v", x.name, err)
			}
			stores = append(stores, s)
		}
		return stores, nil, nil
	}
	if !given("memory") {
		return nil, nil, nil
	}
	if !(f.memory > 0) || math.IsInf(f.memory, 0) {
		return nil, nil, usagef("--memory must be a finite number of MB > 0, got %v", f.memory)
	}
	dir := f.blcr
	if dir == "" {
		var err error
		if dir, err = datadir.Path(f.data, interval.BLCRDir...); err != nil {
			return nil, nil, usagef("--memory: BLCR cost tables: %v; or give --blcr DIR, or --local C,R --shared C,R", err)
		}
	}
	b, err := interval.LoadBLCR(dir)
	if err != nil {
		return nil, nil, usagef("--memory: BLCR cost tables: %v", err)
	}
	lo, hi := b.Range()
	return b.Storages(f.memory), &memoryJSON{MB: f.memory, MeasuredMB: [2]float64{lo, hi}, Extrapolated: b.Extrapolated(f.memory)}, nil
}

// estimateFromTrace takes E(Y) and the MTBF from a GloudSim task trace;
// with pictures asked for, it also fits the failure laws to the selected
// tasks' failure intervals.
func estimateFromTrace(f intervalFlags, task *interval.Task) (string, *interval.FailureData, error) {
	filter := interval.TraceFilter{Priority: f.priority, MaxLength: math.Inf(1)}
	if f.maxLength != "" {
		var err error
		if filter.MaxLength, err = positiveDurationFlag("max-length", f.maxLength); err != nil {
			return "", nil, err
		}
	}
	tr, err := trace.ReadGloudSimFile(f.traceFile)
	if err != nil {
		return "", nil, usage(err)
	}
	tasks := interval.TasksFromGloudSim(tr)
	s, err := interval.EstimateFiltered(tasks, filter)
	if err != nil {
		return "", nil, usagef("--trace %s: %v", f.traceFile, err)
	}
	task.EY, task.MTBF = s.Model()
	var fd *interval.FailureData
	if f.pictures() {
		iv := interval.FailureIntervals(filter.Select(tasks))
		fits, _ := interval.FitInterFailure(iv)
		fd = &interval.FailureData{Source: fmt.Sprintf("%s (%s)", filepath.Base(f.traceFile), filter), Intervals: iv, Fits: fits, MTBF: s.MTBF}
	}
	return fmt.Sprintf("%s: %d tasks (%s), %d failures: MNOF %.4g, MTBF %.4g s",
		f.traceFile, s.Tasks, filter, s.Failures, s.MNOF, s.MTBF), fd, nil
}

func estimateFromLANL(f intervalFlags, systemGiven bool, task *interval.Task) (string, *interval.FailureData, error) {
	recs, err := trace.ReadLANLFile(f.lanlFile)
	if err != nil {
		return "", nil, usage(err)
	}
	system := f.system
	if !systemGiven {
		system = -1
	}
	s, err := interval.LANLSystem(recs, system, 2)
	if err != nil {
		what := ""
		if !systemGiven {
			what = "give --system N; "
		}
		return "", nil, usagef("--lanl %s: %s%v", f.lanlFile, what, err)
	}
	task.MTBF = s.MTBF
	best := "none"
	if len(s.Fits) > 0 && s.Fits[0].Dist != nil {
		best = s.Fits[0].Dist.String()
	}
	fd := &interval.FailureData{Source: fmt.Sprintf("LANL system %d", s.System), Intervals: s.Intervals, Fits: s.Fits, MTBF: s.MTBF}
	return fmt.Sprintf("%s: system %d, %d failures, MTBF %.4g s; best fit of the inter-event times (AIC): %s",
		f.lanlFile, s.System, s.Failures, s.MTBF, best), fd, nil
}

// intervalMethodJSON is one plan; every key names its unit (_s: seconds).
type intervalMethodJSON struct {
	Intervals         int           `json:"intervals"`
	Checkpoints       int           `json:"checkpoints"`
	Period            output.Number `json:"period_s"`
	ExpectedWallclock output.Number `json:"expected_wallclock_eq4_s"`
	// OverheadPercent is 100·(E(Tw) − Te)/Te, as the text table prints it.
	OverheadPercent  output.Number `json:"overhead_percent"`
	ExactExponential output.Number `json:"expected_wallclock_exact_exp_s"`
	ExactReplay      output.Number `json:"expected_wallclock_exact_replay_s"`
	// Eq4GapPercent is 100·max |Eq. (4) − exact|/exact.
	Eq4GapPercent output.Number `json:"eq4_gap_percent"`
}

type intervalStorageJSON struct {
	Name      string        `json:"name"`
	C         output.Number `json:"c_s"`
	R         output.Number `json:"r_s"`
	Intervals output.Number `json:"intervals"`
	Cost      output.Number `json:"cost_s"`
	// XReal and CostReal are the paper's form: the real x* of Eq. (3).
	XReal    output.Number `json:"x_real"`
	CostReal output.Number `json:"cost_real_s"`
}

type intervalJSON struct {
	Te               output.Number         `json:"te_s"`
	C                output.Number         `json:"c_s"`
	R                output.Number         `json:"r_s"`
	ExpectedFailures output.Number         `json:"expected_failures"`
	MTBF             output.Number         `json:"mtbf_s"`
	Source           string                `json:"source"`
	Young            intervalMethodJSON    `json:"young"`
	Daly             intervalMethodJSON    `json:"daly"`
	MNOF             intervalMethodJSON    `json:"mnof"`
	Storage          []intervalStorageJSON `json:"storage,omitempty"`
	StorageChoice    string                `json:"storage_choice,omitempty"`
	Memory           *memoryJSON           `json:"memory,omitempty"`
}

func intervalJSONOf(a interval.Advice, source string, mem *memoryJSON) intervalJSON {
	t := a.Task
	j := intervalJSON{Te: output.Number(t.Te), C: output.Number(t.C), R: output.Number(t.R), ExpectedFailures: output.Number(t.EY),
		MTBF: output.Number(t.MTBF), Source: source, Memory: mem}
	for _, m := range a.Methods {
		mj := intervalMethodJSON{Intervals: m.Intervals, Checkpoints: m.Intervals - 1, Period: output.Number(m.Period),
			ExpectedWallclock: output.Number(m.ExpectedWallclock), OverheadPercent: output.Number(100 * m.Overhead / t.Te),
			ExactExponential: output.Number(m.ExactExponential), ExactReplay: output.Number(m.ExactReplay), Eq4GapPercent: output.Number(100 * m.Eq4Gap())}
		switch m.Name {
		case interval.MethodYoung:
			j.Young = mj
		case interval.MethodDaly:
			j.Daly = mj
		case interval.MethodMNOF:
			j.MNOF = mj
		}
	}
	if p := a.Storage; p != nil {
		for i, s := range p.Costs {
			j.Storage = append(j.Storage, intervalStorageJSON{Name: s.Name, C: output.Number(s.C), R: output.Number(s.R),
				Intervals: output.Number(s.X), Cost: output.Number(s.Cost), XReal: output.Number(p.Real[i].X), CostReal: output.Number(p.Real[i].Cost)})
		}
		j.StorageChoice = p.Chosen().Name
	}
	return j
}

func writeIntervalText(w io.Writer, a interval.Advice, source string) {
	t := a.Task
	fmt.Fprintf(w, "task: Te = %s (%g s), C = %.6g s, R = %.6g s\n", units.FormatSeconds(t.Te), t.Te, t.C, t.R)
	fmt.Fprintf(w, "failures: E(Y) = %.6g, MTBF = %s (a value not given is Te/E(Y) or Te/MTBF, Corollary 1)\n", t.EY, fmtSec(t.MTBF))
	fmt.Fprintf(w, "source: %s\n\n", source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tintervals\tcheckpoints\tperiod (s)\tE(Tw) Eq. (4) (s)\toverhead\texact exp. (s)\texact replay (s)\t")
	for _, m := range a.Methods {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.6g\t%.6g\t%.3f%%\t%.6g\t%.6g\t\n", m.Name, m.Intervals, m.Intervals-1, m.Period,
			m.ExpectedWallclock, 100*m.Overhead/t.Te, m.ExactExponential, m.ExactReplay)
	}
	tw.Flush()
	writeEq4Notes(w, a.Methods)
	p := a.Storage
	if p == nil {
		return
	}
	fmt.Fprintln(w, "\nstorage (Section 4.2.2; cost = C(x-1) + R E(Y) + Te E(Y)/2x at the integer x, and at the real x* of Eq. (3)):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "storage\tC (s)\tR (s)\tintervals\tcost (s)\tx*\tcost at x* (s)\tchoice\t")
	for i, s := range p.Costs {
		mark := ""
		if i == p.Best {
			mark = "best"
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%g\t%.2f\t%.2f\t%.2f\t%s\t\n", s.Name, s.C, s.R, s.X, s.Cost, p.Real[i].X, p.Real[i].Cost, mark)
	}
	tw.Flush()
}

// writeEq4Notes explains the columns and names the plans whose Eq. (4)
// value is more than interval.Eq4GapThreshold away from an exact one.
func writeEq4Notes(w io.Writer, ms []interval.Method) {
	fmt.Fprintln(w, "Eq. (4) is first order; exact exp.: exponential failures at the MTBF, also during checkpoints and restarts;")
	fmt.Fprintln(w, "exact replay: the same without failures during restarts (the trace replay's model)")
	for _, m := range ms {
		if g := m.Eq4Gap(); !(g <= interval.Eq4GapThreshold) {
			fmt.Fprintf(w, "note: for %s, Eq. (4) is %.1f%% off the exact expectation (exact exp. %.6g s, exact replay %.6g s)\n",
				m.Name, 100*g, m.ExactExponential, m.ExactReplay)
		}
	}
}

func fmtSec(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strings.TrimSpace(fmt.Sprintf("%.6g s", v))
}

// countSet counts the non-empty strings.
func countSet(s ...string) int {
	n := 0
	for _, v := range s {
		if v != "" {
			n++
		}
	}
	return n
}

// estimateFromFTA takes E(Y) and the MTBF of a task on f.nodes typical
// nodes from a Failure Trace Archive data set: E(Y) = nodes·Te/node MTBF.
// The picture draws the laws fitted to one node's inter-failure times
// and the exponential law at the node MTBF (trace.FTAStats keeps no
// sample to draw).
func estimateFromFTA(f intervalFlags, task *interval.Task) (string, *interval.FailureData, error) {
	s, err := trace.ReadFTAFile(f.ftaPath, trace.FTAOptions{})
	if err != nil {
		return "", nil, usage(err)
	}
	if s.Failures == 0 {
		return "", nil, usagef("--fta %s: no failure in the trace, no MTBF to estimate", f.ftaPath)
	}
	task.EY = s.ExpectedFailuresOn(task.Te, f.nodes)
	task.MTBF = float64(s.NodeMTBF) / float64(f.nodes)
	fd := &interval.FailureData{Source: "FTA " + filepath.Base(f.ftaPath) + ", one node (fits only)", MTBF: float64(s.NodeMTBF)}
	for _, c := range s.Fits {
		fd.Fits = append(fd.Fits, interval.Fit{Family: c.Family, Dist: c.Dist, LogLik: c.LogLikelihood, AIC: c.AIC, KS: c.KS})
	}
	return fmt.Sprintf("%s: %d nodes, %d failures, node MTBF %.4g s; on %d node(s): E(Y) %.4g, MTBF %.4g s",
		f.ftaPath, len(s.Nodes), s.Failures, float64(s.NodeMTBF), f.nodes, task.EY, task.MTBF), fd, nil
}
