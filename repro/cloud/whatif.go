package cloud

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/runner"
)

// scenario is one what-if case: a task and the law of its failure
// intervals.
type scenario struct {
	Name     string
	Te, C, R float64
	Law      distribution.Distribution
}

// whatIfRow is the outcome of one scenario.
type whatIfRow struct {
	Scenario string
	Law      string
	EY       float64 // renewal mean over Te, fed to Formula (3)
	MTBF     float64 // law mean, fed to Young and Daly
	// Overheads E(Tw)/Te − 1 by simulation (common random numbers).
	Young, Daly, MNOF, Best float64
	BestX                   int
	BestPeriod              float64
	YoungX, DalyX, MNOFX    int
}

// whatIf compares the overhead of Young, Daly and Formula (3) with the best
// fixed number of intervals found by search, under failure laws of the same
// mean: exponential, Weibull (k = 0.5), LogNormal (σ = 1.5), Pareto
// (α = 1.5), plus the law fitted to the Google failure intervals and the one
// fitted to the LANL system with the most failures.
func whatIf(ctx context.Context, cfg repro.Config, st settings, d *data) ([]repro.Comparison, error) {
	const te, c, r, m = 1000.0, 2.0, 2.0, 500.0
	wk := 0.5
	ln := 1.5
	pa := 1.5
	sc := []scenario{
		{"exponential", te, c, r, distribution.Exponential{Rate: 1 / m}},
		{"weibull k=0.5", te, c, r, distribution.Weibull{K: wk, Lambda: m / math.Gamma(1+1/wk)}},
		{"lognormal sigma=1.5", te, c, r, distribution.LogNormal{Mu: math.Log(m) - ln*ln/2, Sigma: ln}},
		{"pareto alpha=1.5", te, c, r, distribution.Pareto{Xm: m * (pa - 1) / pa, Alpha: pa}},
	}
	// The Google intervals of the mix trace up to 1000 s, best fit.
	var short []float64
	for _, x := range interval.FailureIntervals(d.tasks["Mix"]) {
		if x <= 1000 {
			short = append(short, x)
		}
	}
	if fs, _ := interval.FitInterFailure(short); fs[0].Dist != nil {
		sc = append(sc, scenario{"google <=1000s fit", te, c, r, fs[0].Dist})
	}
	// The LANL system with the most failures: a one-day job, C = R = 5 min.
	var top interval.SystemFailures
	for _, s := range interval.LANLSystems(d.lanl, 100) {
		if s.Failures > top.Failures {
			top = s
		}
	}
	if len(top.Fits) > 0 && top.Fits[0].Dist != nil {
		sc = append(sc, scenario{fmt.Sprintf("lanl system %d fit", top.System), 86400, 300, 300, top.Fits[0].Dist})
	}

	// Each scenario also spreads its runs over the workers: the scenarios
	// differ in cost (the Google fit's runs have the most failures), and
	// the last one would otherwise finish alone.
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var got []runner.Result[whatIfRow]
	err := runner.Run(ctx, cfg.RunnerOptions("what-if", 2013), sc, 1,
		func(_ context.Context, it runner.Item[scenario]) (whatIfRow, error) {
			return runScenario(it.Param, it.Seed, st, workers)
		},
		runner.Collect(&got))
	if err != nil {
		return nil, err
	}
	tab, err := cfg.NewTable("whatif.csv", "scenario", "law", "te", "c", "r", "ey", "mtbf", "young_overhead", "daly_overhead", "mnof_overhead", "best_overhead", "young_x", "daly_x", "mnof_x", "best_x", "best_period")
	if err != nil {
		return nil, err
	}
	var cs []repro.Comparison
	names := []string{}
	series := map[string]*plot.Series{"Young": {Name: "Young", Markers: true}, "Daly": {Name: "Daly", Markers: true}, "Formula (3)": {Name: "Formula (3)", Markers: true}}
	for i, g := range got {
		w, s := g.Value, sc[i]
		tab.Row(w.Scenario, w.Law, s.Te, s.C, s.R, w.EY, w.MTBF, w.Young, w.Daly, w.MNOF, w.Best, w.YoungX, w.DalyX, w.MNOFX, w.BestX, w.BestPeriod)
		fmt.Fprintf(cfg.Log, "%-22s E(Y) %6.3g MTBF %8.4g  overhead: young %6.2f%% (x=%d)  daly %6.2f%% (x=%d)  formula(3) %6.2f%% (x=%d)  best %6.2f%% (x=%d)\n",
			w.Scenario, w.EY, w.MTBF, 100*w.Young, w.YoungX, 100*w.Daly, w.DalyX, 100*w.MNOF, w.MNOFX, 100*w.Best, w.BestX)
		names = append(names, w.Scenario)
		for k, v := range map[string]float64{"Young": w.Young, "Daly": w.Daly, "Formula (3)": w.MNOF} {
			series[k].X = append(series[k].X, float64(i+1))
			series[k].Y = append(series[k].Y, (1+v)/(1+w.Best))
		}
		cs = append(cs, cmp("what-if", w.Scenario+": Formula (3) E(Tw) / best", math.NaN(), (1+w.MNOF)/(1+w.Best), ""),
			cmp("what-if", w.Scenario+": Young E(Tw) / best", math.NaN(), (1+w.Young)/(1+w.Best), ""))
	}
	if err := tab.Close(); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "what-if scenarios on the x axis of whatif.png: %v\n", names)
	err = cfg.SavePlot("whatif", func(path string) error {
		return plot.Lines(path, plot.Figure{Title: "What-if: E(Tw) / best fixed period, by scenario", XLabel: "scenario (see whatif.csv)", YLabel: "ratio to best", RefY: []float64{1}},
			*series["Young"], *series["Daly"], *series["Formula (3)"])
	})
	return cs, err
}

// runScenario simulates one scenario on the given number of workers (the
// results do not depend on it).
func runScenario(s scenario, seed uint64, st settings, workers int) (whatIfRow, error) {
	w := whatIfRow{Scenario: s.Name, Law: s.Law.String(), MTBF: s.Law.Mean()}
	w.EY = interval.RenewalMeanWorkers(s.Te, s.Law, seed, 20*st.reps, workers)
	// One set of runs for every period: each failure is drawn once.
	runs, err := interval.NewRuns(s.Law, seed, st.reps)
	if err != nil {
		return w, err
	}
	runs.Workers = workers
	over := func(period float64) (float64, int, error) {
		x := interval.IntervalsForPeriod(s.Te, math.Min(period, s.Te))
		mean, err := runs.MeanWallclock(s.Te, period, s.C, s.R)
		return mean/s.Te - 1, x, err
	}
	if w.Young, w.YoungX, err = over(interval.Young(s.C, w.MTBF)); err != nil {
		return w, err
	}
	if w.Daly, w.DalyX, err = over(interval.Daly(s.C, w.MTBF)); err != nil {
		return w, err
	}
	w.MNOFX = interval.Intervals(s.Te, s.C, w.EY)
	if w.MNOF, _, err = over(s.Te / float64(w.MNOFX)); err != nil {
		return w, err
	}
	p, mean, err := runs.BestFixed(s.Te, s.C, s.R, st.maxX)
	if err != nil {
		return w, err
	}
	w.BestPeriod, w.BestX, w.Best = p, interval.IntervalsForPeriod(s.Te, p), mean/s.Te-1
	return w, nil
}
