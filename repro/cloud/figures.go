package cloud

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/repro"
)

// fig9and10 replays every task with the MNOF and MTBF of its priority group
// (all tasks of the trace, no length limit): the CDF of the jobs' WPR
// (Fig. 9) and its min/avg/max per priority (Fig. 10). The restricted-length
// experiment of Fig. 11 follows: tasks shorter than 1000 s, estimates from
// those tasks only.
func fig9and10(_ context.Context, cfg repro.Config, _ settings, d *data) ([]repro.Comparison, error) {
	t9, err := cfg.NewTable("fig9.csv", "trace", "method", "job", "priority", "wpr")
	if err != nil {
		return nil, err
	}
	t10, err := cfg.NewTable("fig10.csv", "trace", "method", "priority", "jobs", "min_wpr", "avg_wpr", "max_wpr")
	if err != nil {
		return nil, err
	}
	paper9 := map[string][2]float64{"ST": {0.945, 0.916}, "BoT": {0.955, 0.915}}
	var cs []repro.Comparison
	for _, k := range kinds {
		tasks := d.tasks[k.name]
		byP := interval.ByPriority(tasks, math.Inf(1))
		prio := map[int64]int{}
		for _, t := range tasks {
			prio[t.Job] = t.Priority + 1
		}
		var cdf []plot.NamedSamples
		var avgS, minS []plot.Series
		for i, p := range policies(interval.GroupMNOF(byP), interval.GroupMTBF(byP)) {
			jobs, w, err := jobWPR(tasks, p)
			if err != nil {
				return nil, err
			}
			perP := map[int][]float64{}
			for j, id := range jobs {
				t9.Row(k.name, p.Name(), id, prio[id], w[j])
				perP[prio[id]] = append(perP[prio[id]], w[j])
			}
			ps := make([]int, 0, len(perP))
			for pp := range perP {
				ps = append(ps, pp)
			}
			sort.Ints(ps)
			as, ms := plot.Series{Name: p.Name() + " avg", Markers: true}, plot.Series{Name: p.Name() + " min", Markers: true}
			for _, pp := range ps {
				avg, lo, hi := meanMin(perP[pp])
				t10.Row(k.name, p.Name(), pp, len(perP[pp]), lo, avg, hi)
				as.X, as.Y = append(as.X, float64(pp)), append(as.Y, avg)
				ms.X, ms.Y = append(ms.X, float64(pp)), append(ms.Y, lo)
			}
			avgS, minS = append(avgS, as), append(minS, ms)
			cdf = append(cdf, plot.NamedSamples{Name: p.Name(), Values: w})
			avg, _, _ := meanMin(w)
			if pa, ok := paper9[k.name]; ok {
				cs = append(cs, cmp("Fig. 9", k.name+" "+p.Name()+" avg WPR", pa[i], avg, "per-priority MNOF/MTBF, no length limit"))
				_, gw := interval.JobWPRGloudSim(tasks, i == 0, ckptCost, interval.GroupMNOF(byP), interval.GroupMTBF(byP))
				gavg, _, _ := meanMin(gw)
				cs = append(cs, cmp("Fig. 9", k.name+" "+p.Name()+" avg WPR, GloudSim accounting", pa[i], gavg, "paper-exact switch"))
			}
			switch k.name {
			case "ST":
				cs = append(cs, cmp("Fig. 9", "ST "+p.Name()+" share of jobs with WPR < 0.88", []float64{0.07, 0.20}[i], fraction(w, func(x float64) bool { return x < 0.88 }), ""))
			case "BoT":
				cs = append(cs, cmp("Fig. 9", "BoT "+p.Name()+" share of jobs with WPR > 0.95", []float64{0.566, 0.465}[i], fraction(w, func(x float64) bool { return x > 0.95 }), ""))
			}
		}
		if k.name == "Mix" {
			continue
		}
		if err := cfg.SavePlot("fig9-"+k.file, func(path string) error {
			return plot.StepCDF(path, plot.Figure{Title: "Fig. 9: CDF of job WPR, " + k.name + " jobs (per-priority estimates)", XLabel: "WPR", YLabel: "CDF", Legend: plot.LegendTopLeft}, cdf...)
		}); err != nil {
			return nil, err
		}
		if err := cfg.SavePlot("fig10-"+k.file, func(path string) error {
			return plot.Lines(path, plot.Figure{Title: "Fig. 10: WPR by priority, " + k.name + " jobs", XLabel: "priority", YLabel: "WPR", Legend: plot.LegendBottomRight}, append(avgS, minS...)...)
		}); err != nil {
			return nil, err
		}
	}
	if err := t9.Close(); err != nil {
		return nil, err
	}
	if err := t10.Close(); err != nil {
		return nil, err
	}
	// Fig. 11: short tasks (< 1000 s) with estimates from short tasks.
	for _, k := range kinds[:2] {
		var short []interval.TraceTask
		for _, t := range d.tasks[k.name] {
			if t.Te < 1000 {
				short = append(short, t)
			}
		}
		byP := interval.ByPriority(short, 1000)
		for i, p := range policies(interval.GroupMNOF(byP), interval.GroupMTBF(byP)) {
			_, w, err := jobWPR(short, p)
			if err != nil {
				return nil, err
			}
			gt := fraction(w, func(x float64) bool { return x > 0.9 })
			paper := []float64{0.98, math.NaN()}[i]
			note := ""
			if i == 1 {
				note = "paper: up to 40% of jobs below 0.9 with Young"
			}
			cs = append(cs, cmp("Fig. 11", fmt.Sprintf("%s tasks<1000s %s share of jobs with WPR > 0.9", k.name, p.Name()), paper, gt, note))
		}
	}
	return cs, nil
}

// fits fits the Google failure intervals (Fig. 5) and the LANL systems.
func fits(_ context.Context, cfg repro.Config, _ settings, d *data) ([]repro.Comparison, error) {
	iv := interval.FailureIntervals(d.tasks["Mix"])
	var short []float64
	for _, x := range iv {
		if x <= 1000 {
			short = append(short, x)
		}
	}
	tab, err := cfg.NewTable("fig5-fits.csv", "sample", "family", "law", "loglik", "aic", "ks")
	if err != nil {
		return nil, err
	}
	var cs []repro.Comparison
	var bestAll string
	var rateShort float64
	for _, s := range []struct {
		name string
		v    []float64
	}{{"all", iv}, {"<=1000s", short}} {
		fs, dropped := interval.FitInterFailure(s.v)
		for _, f := range fs {
			law := f.Skipped
			if f.Dist != nil {
				law = f.Dist.String()
			}
			tab.Row(s.name, f.Family, law, f.LogLikelihood, f.AIC, f.KS)
		}
		fmt.Fprintf(cfg.Log, "Google (mix) failure intervals %s: %d samples (%d zero dropped), best by AIC %s\n", s.name, len(s.v), dropped, fs[0].Dist)
		if s.name == "all" {
			bestAll = fs[0].Family
		} else {
			for _, f := range fs {
				if f.Family == "exponential" && f.Dist != nil {
					rateShort = 1 / f.Dist.Mean()
				}
			}
		}
	}
	if err := tab.Close(); err != nil {
		return nil, err
	}
	cs = append(cs,
		cmp("Fig. 5", "share of failure intervals < 1000 s", 0.63, fraction(iv, func(x float64) bool { return x < 1000 }), "paper: 'over 63%' of the whole trace; ours: the mix sample"),
		cmp("Fig. 5", "best fit of all intervals is Pareto (1) or not (0)", 1, boolf(bestAll == "pareto"), "best by AIC: "+bestAll),
		cmp("Fig. 5", "exponential rate of intervals <= 1000 s", 0.00423445, rateShort, "MLE 1/mean, truncation ignored as in the paper"),
		cmp("Fig. 5", "Young period (s) from that rate, C = 2", 30.7, interval.Young(2, 1/rateShort), ""))
	if err := cfg.SavePlot("fig5-intervals", func(path string) error {
		return plot.StepCDF(path, plot.Figure{Title: "Fig. 5: Google failure intervals (mix)", XLabel: "uninterrupted interval (s)", YLabel: "CDF", LogX: true, Legend: plot.LegendTopLeft},
			plot.NamedSamples{Name: "intervals", Values: positive(iv)})
	}); err != nil {
		return nil, err
	}

	// LANL systems.
	lt, err := cfg.NewTable("lanl-fits.csv", "system", "failures", "mtbf_s", "best", "exponential_aic", "weibull_aic", "lognormal_aic", "pareto_aic", "best_law", "best_ks")
	if err != nil {
		return nil, err
	}
	wins := map[string]int{}
	for _, s := range interval.LANLSystems(d.lanl, 100) {
		aic := map[string]float64{}
		for _, f := range s.Fits {
			aic[f.Family] = f.AIC
		}
		b := s.Fits[0]
		wins[b.Family]++
		lt.Row(s.System, s.Failures, s.MTBF, b.Family, aic["exponential"], aic["weibull"], aic["lognormal"], aic["pareto"], b.Dist.String(), b.KS)
	}
	fmt.Fprintf(cfg.Log, "LANL systems with >= 100 failures, best inter-event law by AIC: %v\n", wins)
	return cs, lt.Close()
}

func positive(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}
