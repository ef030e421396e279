package profiles

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/rng"
)

// settings are the sizes --quick shrinks.
type settings struct {
	ks    []int
	reps  int
	n     int // discretisation of the total
	steps int // timeline grid
}

func settingsFor(quick bool) settings {
	if quick {
		return settings{ks: []int{5, 50}, reps: 2, n: 300, steps: 512}
	}
	return settings{ks: []int{5, 10, 20, 50}, reps: 10, n: 1000, steps: 1024}
}

// seed is the default root of every random stream of the reproduction
// (`ckpt repro profiles --seed` gives another).
const seed = 20201117

// Run performs the experiments of Section 4.3 and writes to cfg.Dir:
// fig14.csv (every strategy, k and repetition on the 88 DRD runs), the
// three panels of Fig. 14, fig15 (MEM-ALL-CKPT-V2 against ALL-CKPT),
// fig17.csv and its panels (MaCRUISE, runs generated from Table 3), fig11
// and fig12b (task status and M_0.1(t)), transfer.csv (Section 4.5: plans
// moved to a synthetic slower machine), table2.csv and comparisons.csv.
// Every figure is written as PNG and SVG.
func Run(ctx context.Context, cfg repro.Config) error {
	st := settingsFor(cfg.Quick)
	dir, err := cfg.DataPath("slant", "drd-tasks")
	if err != nil {
		return fmt.Errorf("DRD traces: %w", err)
	}
	runs, err := profile.ReadTasksDir(dir)
	if err != nil {
		return fmt.Errorf("DRD traces: %w", err)
	}
	var all []repro.Comparison

	fmt.Fprintln(cfg.Log, "== Table 2 and Fig. 9")
	cs, err := table2(cfg, runs)
	if err != nil {
		return err
	}
	all = append(all, cs...)

	fmt.Fprintln(cfg.Log, "== Fig. 14 and Fig. 15 (SLANT, 88 DRD runs)")
	rows, err := experiment(ctx, cfg, st, "slant", runs, 1, 0)
	if err != nil {
		return err
	}
	if err := writeRows(cfg, "fig14.csv", rows); err != nil {
		return err
	}
	if err := figures(cfg, "fig14", "SLANT", rows, memplan.AppStrategies); err != nil {
		return err
	}
	if err := fig15(cfg, rows); err != nil {
		return err
	}
	all = append(all, compareSLANT(rows)...)

	fmt.Fprintln(cfg.Log, "== Fig. 14 with a 10 % memory margin (kills enforced)")
	rowsM, err := experiment(ctx, cfg, st, "slant", runs, 1, 0.1)
	if err != nil {
		return err
	}
	if err := writeRows(cfg, "fig14-margin10.csv", rowsM); err != nil {
		return err
	}
	kills := func(r row) float64 { return float64(r.Kills) }
	memK := func(r row) float64 { return r.MemK }
	k0 := st.ks[0]
	all = append(all,
		repro.Comparison{Experiment: "Fig. 14 + 10 % margin", Quantity: fmt.Sprintf("memory kills over the 88 runs, MEM-ALL-CKPT (k=%d)", k0), Paper: math.NaN(), Ours: mean(rowsM, memplan.StrategyMemAllCkpt, k0, kills)},
		repro.Comparison{Experiment: "Fig. 14 + 10 % margin", Quantity: "MEM-ALL-CKPT memory gain over ALL-CKPT, kills enforced", Paper: math.NaN(),
			Ours: 1 - mean(rowsM, memplan.StrategyMemAllCkpt, 0, memK)/mean(rowsM, memplan.StrategyAllCkpt, 0, memK)},
		repro.Comparison{Experiment: "Fig. 14 + 10 % margin", Quantity: "MEM-ALL-CKPT-V2 memory gain over ALL-CKPT, kills enforced", Paper: math.NaN(),
			Ours: 1 - mean(rowsM, memplan.StrategyMemAllCkptV2, 0, memK)/mean(rowsM, memplan.StrategyAllCkpt, 0, memK)})

	fmt.Fprintln(cfg.Log, "== Fig. 17 (MaCRUISE, 46 runs generated from Table 3)")
	mac := macruiseRuns(46, rng.Stream(cfg.BaseSeed(seed), 17))
	rows17, err := experiment(ctx, cfg, st, "macruise", mac, 2, 0)
	if err != nil {
		return err
	}
	if err := writeRows(cfg, "fig17.csv", rows17); err != nil {
		return err
	}
	if err := figures(cfg, "fig17", "MaCRUISE", rows17, []string{memplan.StrategyAllCkpt, memplan.StrategyMemAllCkpt, memplan.StrategyNeuro}); err != nil {
		return err
	}
	all = append(all, compareMaCRUISE(rows17)...)

	fmt.Fprintln(cfg.Log, "== Sec. 4.5 (SLANT plans transferred to a synthetic slower machine)")
	rowsT, err := transferExperiment(ctx, cfg, st, runs)
	if err != nil {
		return err
	}
	if err := writeTransfer(cfg, rowsT); err != nil {
		return err
	}
	all = append(all, compareTransfer(rowsT, runs, targetRuns(runs, rng.Stream(cfg.BaseSeed(seed), transferStream)))...)

	p, err := cfg.Path("comparisons.csv")
	if err != nil {
		return err
	}
	if err := repro.WriteComparisons(p, all); err != nil {
		return err
	}
	repro.PrintComparisons(cfg.Log, "Profiles of upcoming HPC applications (TPDS 2021): paper vs ckpt", all)
	return nil
}

// row is one strategy trained on k runs (repetition rep) and evaluated on
// every run: the means of the Section 4.3.2 metrics. Time, Util and Mem
// follow the paper, which treats the memory request as a metric only (a
// run is never killed); TimeK, UtilK, MemK and Kills enforce the request:
// a run that exceeds it is killed and resubmitted (memplan.EvaluateRun).
type row struct {
	K, Rep             int
	Strategy           string
	Time               float64 // mean total reservation time (s)
	Util               float64 // mean utilisation
	Mem                float64 // mean weighted requested memory (GB)
	TimeK, UtilK, MemK float64 // the same with memory kills enforced
	Kills              int     // reservations killed for exceeding their memory
	Expected           float64 // the plan's expected reservation time under its model
}

// experiment trains every strategy on k runs drawn with replacement
// (repetition r of k uses the stream rng.Stream(base, stream, k, r), base
// being cfg.BaseSeed(seed)) and
// evaluates it on all runs.
func experiment(ctx context.Context, cfg repro.Config, st settings, name string, runs []profile.Run, stream uint64, margin float64) ([]row, error) {
	var out []row
	for _, k := range st.ks {
		for rep := range st.reps {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			g := rng.Stream(cfg.BaseSeed(seed), stream, uint64(k), uint64(rep))
			train := make([]profile.Run, k)
			for i := range train {
				train[i] = runs[g.IntN(len(runs))]
			}
			app, err := profile.FitApp(name, train, "normal")
			if err != nil {
				return nil, fmt.Errorf("k=%d rep %d: %w", k, rep, err)
			}
			o := memplan.DefaultAppPlanOptions(app)
			o.N, o.Steps, o.MemMargin = st.n, st.steps, margin
			ps, err := memplan.PlanApp(ctx, app, profile.Walltimes(train), o)
			if err != nil {
				return nil, fmt.Errorf("k=%d rep %d: %w", k, rep, err)
			}
			for _, s := range memplan.AppStrategies {
				plan := ps.Plans[s]
				if plan == nil {
					continue
				}
				r := row{K: k, Rep: rep, Strategy: s, Expected: plan.ExpectedTime}
				for _, run := range runs {
					d, pk := make([]float64, len(run.Phases)), make([]float64, len(run.Phases))
					for i, ph := range run.Phases {
						d[i], pk[i] = ph.Duration, ph.Peak
					}
					m, err := memplan.EvaluateRun(plan, d, make([]float64, len(d)))
					if err != nil {
						return nil, fmt.Errorf("k=%d rep %d %s run %s: %w", k, rep, s, run.ID, err)
					}
					r.Time += m.Time
					r.Util += m.Utilisation
					r.Mem += m.WeightedMemory
					if m, err = memplan.EvaluateRun(plan, d, pk); err != nil {
						return nil, fmt.Errorf("k=%d rep %d %s run %s: %w", k, rep, s, run.ID, err)
					}
					r.TimeK += m.Time
					r.UtilK += m.Utilisation
					r.MemK += m.WeightedMemory
					r.Kills += m.Kills
				}
				n := float64(len(runs))
				r.Time, r.Util, r.Mem = r.Time/n, r.Util/n, r.Mem/n
				r.TimeK, r.UtilK, r.MemK = r.TimeK/n, r.UtilK/n, r.MemK/n
				out = append(out, r)
			}
		}
		fmt.Fprintf(cfg.Log, "  k = %d done\n", k)
	}
	return out, nil
}

func writeRows(cfg repro.Config, name string, rows []row) error {
	t, err := cfg.NewTable(name, "k", "rep", "strategy", "reservation_time", "utilisation", "weighted_memory",
		"reservation_time_killing", "utilisation_killing", "weighted_memory_killing", "kills", "expected_reservation_time")
	if err != nil {
		return err
	}
	for _, r := range rows {
		t.Row(r.K, r.Rep, r.Strategy, r.Time, r.Util, r.Mem, r.TimeK, r.UtilK, r.MemK, r.Kills, r.Expected)
	}
	return t.Close()
}

func figures(cfg repro.Config, prefix, app string, rows []row, strategies []string) error {
	panels := []struct {
		file, ylabel string
		get          func(row) float64
	}{
		{"a-time", "total reservation time (min)", func(r row) float64 { return r.Time / 60 }},
		{"b-utilisation", "utilisation", func(r row) float64 { return r.Util }},
		{"c-memory", "weighted requested memory (GB)", func(r row) float64 { return r.Mem }},
	}
	for _, pn := range panels {
		var groups []plot.BoxGroup
		idx := map[[2]string]int{}
		for _, r := range rows {
			keep := false
			for _, s := range strategies {
				keep = keep || s == r.Strategy
			}
			if !keep {
				continue
			}
			key := [2]string{strconv.Itoa(r.K), r.Strategy}
			i, ok := idx[key]
			if !ok {
				i = len(groups)
				idx[key] = i
				groups = append(groups, plot.BoxGroup{Category: "k=" + key[0], Series: r.Strategy})
			}
			groups[i].Values = append(groups[i].Values, pn.get(r))
		}
		fig := plot.Figure{Title: app + ": " + pn.ylabel, XLabel: "number of training runs", YLabel: pn.ylabel, YRange: roomForLegend(groups)}
		if err := cfg.SavePlot(prefix+pn.file, func(p string) error { return plot.Box(p, fig, groups...) }); err != nil {
			return err
		}
	}
	return nil
}

func fig15(cfg repro.Config, rows []row) error {
	var groups []plot.BoxGroup
	idx := map[[2]string]int{}
	for _, r := range rows {
		if r.Strategy != memplan.StrategyAllCkpt && r.Strategy != memplan.StrategyMemAllCkptV2 {
			continue
		}
		key := [2]string{strconv.Itoa(r.K), r.Strategy}
		i, ok := idx[key]
		if !ok {
			i = len(groups)
			idx[key] = i
			groups = append(groups, plot.BoxGroup{Category: "k=" + key[0], Series: r.Strategy})
		}
		groups[i].Values = append(groups[i].Values, r.Mem)
	}
	fig := plot.Figure{Title: "SLANT: weighted memory, ALL-CKPT vs V2", XLabel: "number of training runs",
		YLabel: "weighted requested memory (GB)", YRange: roomForLegend(groups)}
	return cfg.SavePlot("fig15", func(p string) error { return plot.Box(p, fig, groups...) })
}

// roomForLegend is a y range that fits the data in its lower 65 %, leaving
// the top for the legend.
func roomForLegend(groups []plot.BoxGroup) [2]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range groups {
		for _, v := range g.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	span := hi - lo
	if !(span > 0) {
		span = math.Max(math.Abs(hi), 1) * 0.1
	}
	return [2]float64{lo - 0.05*span, hi + 0.55*span}
}

// mean of a metric over the rows of one strategy (and k, if k > 0).
func mean(rows []row, strategy string, k int, get func(row) float64) float64 {
	s, n := 0.0, 0
	for _, r := range rows {
		if r.Strategy == strategy && (k == 0 || r.K == k) {
			s += get(r)
			n++
		}
	}
	return s / float64(n)
}

func compareSLANT(rows []row) []repro.Comparison {
	tm := func(r row) float64 { return r.Time }
	mem := func(r row) float64 { return r.Mem }
	kills := func(r row) float64 { return float64(r.Kills) }
	ac, mac, v2 := mean(rows, memplan.StrategyAllCkpt, 0, mem), mean(rows, memplan.StrategyMemAllCkpt, 0, mem), mean(rows, memplan.StrategyMemAllCkptV2, 0, mem)
	return []repro.Comparison{
		{Experiment: "Fig. 14c", Quantity: "ALL-CKPT / NEURO weighted memory (GB)", Paper: 51, Ours: ac,
			Note: "the largest task-5 peak of the training runs: 47.99 GiB = 51.5 GB"},
		{Experiment: "Fig. 14c", Quantity: "MEM-ALL-CKPT memory gain over ALL-CKPT", Paper: 0.08, Ours: 1 - mac/ac},
		{Experiment: "Fig. 14a", Quantity: "ALL-CKPT / MEM-ALL-CKPT reservation time", Paper: 1.04, Ours: mean(rows, memplan.StrategyAllCkpt, 0, tm) / mean(rows, memplan.StrategyMemAllCkpt, 0, tm),
			Note: "paper: MEM-ALL-CKPT better, loss of ALL-CKPT within 4%"},
		{Experiment: "Fig. 14a", Quantity: "NEURO / MEM-ALL-CKPT reservation time", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyNeuro, 0, tm) / mean(rows, memplan.StrategyMemAllCkpt, 0, tm),
			Note: "paper: NEURO and NEURO-AVG clearly higher (figure only)"},
		{Experiment: "Fig. 15", Quantity: "MEM-ALL-CKPT-V2 memory gain over ALL-CKPT", Paper: 0.25, Ours: 1 - v2/ac,
			Note: "our first reservation asks the measured peak of tasks 1-4 (task 4: up to 13.9 GiB = 14.9 GB), the paper's model 10 GB"},
		{Experiment: "Fig. 15", Quantity: "MEM-ALL-CKPT-V2 / ALL-CKPT reservation time", Paper: 1, Ours: mean(rows, memplan.StrategyMemAllCkptV2, 0, tm) / mean(rows, memplan.StrategyAllCkpt, 0, tm),
			Note: "paper: 'at no cost reservation-wise'"},
		{Experiment: "Fig. 14", Quantity: "memory kills over the 88 runs, ALL-CKPT (k=5)", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyAllCkpt, 5, kills),
			Note: "not modelled by the paper: the task-5 peak varies by 0.2 GiB between runs, so a max over 5 runs is exceeded"},
		{Experiment: "Fig. 14", Quantity: "memory kills over the 88 runs, MEM-ALL-CKPT (k=5)", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyMemAllCkpt, 5, kills),
			Note: "tasks 3, 4, 6, 7 peaks vary between runs (task 6: 3.3-10.3 GiB): the model's input-independent peak is approximate"},
		{Experiment: "Fig. 14", Quantity: "memory kills over the 88 runs, MEM-ALL-CKPT (k=50)", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyMemAllCkpt, 50, kills)},
		{Experiment: "Fig. 14", Quantity: "ALL-CKPT / MEM-ALL-CKPT reservation time, kills enforced", Paper: math.NaN(),
			Ours: mean(rows, memplan.StrategyAllCkpt, 0, func(r row) float64 { return r.TimeK }) / mean(rows, memplan.StrategyMemAllCkpt, 0, func(r row) float64 { return r.TimeK })},
		{Experiment: "Fig. 15", Quantity: "MEM-ALL-CKPT-V2 memory gain over ALL-CKPT, kills enforced", Paper: math.NaN(),
			Ours: 1 - mean(rows, memplan.StrategyMemAllCkptV2, 0, func(r row) float64 { return r.MemK })/mean(rows, memplan.StrategyAllCkpt, 0, func(r row) float64 { return r.MemK })},
	}
}

func compareMaCRUISE(rows []row) []repro.Comparison {
	tm := func(r row) float64 { return r.Time }
	mem := func(r row) float64 { return r.Mem }
	return []repro.Comparison{
		{Experiment: "Fig. 17", Quantity: "MaCRUISE ALL-CKPT / MEM-ALL-CKPT reservation time", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyAllCkpt, 0, tm) / mean(rows, memplan.StrategyMemAllCkpt, 0, tm),
			Note: "paper: MEM-ALL-CKPT not significantly better (low memory)"},
		{Experiment: "Fig. 17", Quantity: "MaCRUISE MEM-ALL-CKPT memory gain over ALL-CKPT", Paper: math.NaN(), Ours: 1 - mean(rows, memplan.StrategyMemAllCkpt, 0, mem)/mean(rows, memplan.StrategyAllCkpt, 0, mem)},
		{Experiment: "Fig. 17", Quantity: "MaCRUISE NEURO / MEM-ALL-CKPT reservation time", Paper: math.NaN(), Ours: mean(rows, memplan.StrategyNeuro, 0, tm) / mean(rows, memplan.StrategyMemAllCkpt, 0, tm),
			Note: "paper: model-based strategies better even with 5 inputs"},
	}
}

// macruiseRuns draws n runs from Table 3 (Normal task times cut at 0,
// constant peaks): the MaCRUISE runs themselves are not public.
func macruiseRuns(n int, rng *rand.Rand) []profile.Run {
	app, _ := profile.Builtin("macruise")
	out := make([]profile.Run, n)
	for i := range out {
		d := app.Sample(rng)
		run := profile.Run{ID: strconv.Itoa(i + 1)}
		for k, t := range app.Tasks {
			run.Phases = append(run.Phases, profile.Phase{Duration: d[k], Peak: t.Mem})
		}
		out[i] = run
	}
	return out
}

// table2 fits Table 2 on the 88 runs and reads Fig. 9 at t = 100 min.
func table2(cfg repro.Config, runs []profile.Run) ([]repro.Comparison, error) {
	app, err := profile.FitApp("drd", runs, "normal")
	if err != nil {
		return nil, err
	}
	mu := []float64{255, 871, 588, 459, 3050, 804, 1130}
	sd := []float64{96.7, 322, 76.8, 48.1, 263, 393, 568}
	var cs []repro.Comparison
	tab, err := cfg.NewTable("table2.csv", "task", "mu", "sigma", "peak_gb", "paper_mu", "paper_sigma")
	if err != nil {
		return nil, err
	}
	for i, t := range app.Tasks {
		n := t.Walltime.(distribution.Normal)
		// Fixed decimals as in the paper's table (Row would print 8 digits).
		tab.Row(i+1, fmt.Sprintf("%.1f", n.Mu), fmt.Sprintf("%.1f", n.Sigma), fmt.Sprintf("%.2f", t.Mem), fmt.Sprint(mu[i]), fmt.Sprint(sd[i]))
		cs = append(cs, repro.Comparison{Experiment: "Table 2", Quantity: fmt.Sprintf("task %d mean (s)", i+1), Paper: mu[i], Ours: n.Mu,
			Note: "durations = span of each phase trace; the paper rounded to minutes"})
		cs = append(cs, repro.Comparison{Experiment: "Table 2", Quantity: fmt.Sprintf("task %d std (s)", i+1), Paper: sd[i], Ours: n.Sigma})
	}
	if err := tab.Close(); err != nil {
		return nil, err
	}
	// Fig. 9 (raw data) at t = 100 min: tasks 5, 6, 7 run with probability
	// 0.06, 0.5, 0.38 and the job is over with probability 0.06.
	t := 6000.0
	var running [8]float64
	for _, r := range runs {
		s := 0.0
		k := 7
		for i, ph := range r.Phases {
			if s < t && t <= s+ph.Duration {
				k = i
			}
			s += ph.Duration
		}
		running[k]++
	}
	paper := map[int]float64{4: 0.06, 5: 0.5, 6: 0.38, 7: 0.06}
	for _, k := range []int{4, 5, 6, 7} {
		q := fmt.Sprintf("P(task %d runs at 100 min), raw data", k+1)
		if k == 7 {
			q = "P(job finished at 100 min), raw data"
		}
		cs = append(cs, repro.Comparison{Experiment: "Fig. 9", Quantity: q, Paper: paper[k], Ours: running[k] / float64(len(runs))})
	}
	tl, err := profile.NewTimeline(context.Background(), app, 0)
	if err != nil {
		return nil, err
	}
	cs = append(cs, repro.Comparison{Experiment: "Fig. 11", Quantity: "P(task 6 runs at 100 min), Normal model", Paper: math.NaN(), Ours: tl.Running(6, t)})
	if t0, err := tl.SafeBefore(5, 0.02); err == nil {
		cs = append(cs, repro.Comparison{Experiment: "Sec. 4.3.3", Quantity: "MEM-ALL-CKPT-V2 first reservation (min), ε = 0.02", Paper: 25, Ours: t0 / 60})
	}
	fmt.Fprintf(cfg.Log, "  M̄ = %.2f GB (Normal model of the 88 runs)\n", app.MeanMemory())
	return cs, fig11(cfg, runs, tl)
}

// fig11 draws y_i(t) = P(task i finished by t) from the raw runs (Fig. 9)
// and from the Normal model (Fig. 11, dashed in the paper; here a second
// series per task) and M_0.1(t) (Fig. 12b) in fig12b.png and .svg.
func fig11(cfg repro.Config, runs []profile.Run, tl *profile.Timeline) error {
	var ts []float64
	for t := 0.0; t <= 12000; t += 60 {
		ts = append(ts, t)
	}
	var series []plot.Series
	for i := 1; i <= 7; i++ {
		raw, model := make([]float64, len(ts)), make([]float64, len(ts))
		for j, t := range ts {
			for _, r := range runs {
				s := 0.0
				for _, ph := range r.Phases[:i] {
					s += ph.Duration
				}
				if s < t {
					raw[j]++
				}
			}
			raw[j] /= float64(len(runs))
			model[j] = tl.Finished(i, t)
		}
		x := make([]float64, len(ts))
		for j, t := range ts {
			x[j] = t / 60
		}
		series = append(series, plot.Series{Name: fmt.Sprintf("y%d raw", i), X: x, Y: raw}, plot.Series{Name: fmt.Sprintf("y%d model", i), X: x, Y: model})
	}
	fig := plot.Figure{Title: "SLANT: P(task i finished by t), 88 runs vs Normal model", XLabel: "time (min)", YLabel: "probability",
		Legend: plot.LegendBottomRight, Width: 8 * 72, Height: 5 * 72}
	if err := cfg.SavePlot("fig11", func(p string) error { return plot.Lines(p, fig, series...) }); err != nil {
		return err
	}
	m := make([]float64, len(ts))
	x := make([]float64, len(ts))
	for j, t := range ts {
		x[j], m[j] = t/60, tl.LikelyMax(0.1, t)
	}
	fig12 := plot.Figure{Title: "SLANT: likely maximum memory M_0.1(t)", XLabel: "time (min)", YLabel: "memory (GB)"}
	return cfg.SavePlot("fig12b", func(p string) error { return plot.Lines(p, fig12, plot.Series{Name: "M_0.1", X: x, Y: m}) })
}
