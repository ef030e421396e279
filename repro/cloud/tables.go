package cloud

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/repro"
)

// examples checks the worked examples of the paper and Table 5 against the
// BLCR tables.
func examples(_ context.Context, cfg repro.Config, _ settings, d *data) ([]repro.Comparison, error) {
	const e = "Sec. 4.1/4.2.2"
	cs := []repro.Comparison{
		cmp(e, "intervals, Te=18 C=2 E(Y)=2", 3, float64(interval.Intervals(18, 2, 2)), ""),
		cmp(e, "period (s), Te=18 C=2 E(Y)=2", 6, 18/float64(interval.Intervals(18, 2, 2)), ""),
		cmp(e, "checkpoints, Te=441 C=1 E(Y)=2", 20, float64(interval.Intervals(441, 1, 2)-1), ""),
		cmp(e, "Young period (s), C=2 lambda=0.00423445", 30.7, interval.Young(2, 1/0.00423445), ""),
	}
	paperStore := []interval.Storage{{Name: "local", C: 0.632, R: 3.22}, {Name: "shared", C: 1.67, R: 1.45}}
	cont, _, err := interval.ChooseStorage(200, 2, paperStore, true)
	if err != nil {
		return nil, err
	}
	integ, _, err := interval.ChooseStorage(200, 2, paperStore, false)
	if err != nil {
		return nil, err
	}
	b, err := interval.LoadBLCR(d.blcrDir)
	if err != nil {
		return nil, err
	}
	blcr, best, err := interval.ChooseStorage(200, 2, b.Storages(160), false)
	if err != nil {
		return nil, err
	}
	paperCost := []float64{28.29, 37.78}
	for i, name := range []string{"local", "shared"} {
		cs = append(cs,
			cmp(e, name+" cost, x* real (paper's form)", paperCost[i], cont[i].Cost, ""),
			cmp(e, name+" cost, integer x", paperCost[i], integ[i].Cost, fmt.Sprintf("x = %g: the number of intervals must be an integer", integ[i].X)),
			cmp(e, name+" cost, BLCR tables at 160 MB", paperCost[i], blcr[i].Cost,
				fmt.Sprintf("C = %.3g s, R = %.3g s interpolated from the GloudSim BLCR tables; the paper's C (0.632, 1.67) are Table 2's averages, and ramfs-cp.cost gives %.3g s at 160 MB", blcr[i].C, blcr[i].R, b.LocalCkpt.At(160))))
	}
	cs = append(cs, cmp(e, "BLCR tables choose local (1) or shared (0)", 1, boolf(blcr[best].Name == "local"), ""))
	// Table 5: restart costs by memory size, types A and B.
	t5 := []struct{ mb, a, b float64 }{{10, 0.71, 0.37}, {20, 0.84, 0.49}, {40, 1.23, 0.54}, {80, 1.87, 0.86}, {160, 3.22, 1.45}, {240, 5.69, 2.4}}
	tab, err := cfg.NewTable("table5.csv", "memory_mb", "restart_a_paper", "restart_a_blcr", "restart_b_paper", "restart_b_blcr", "ckpt_local_blcr", "ckpt_shared_blcr")
	if err != nil {
		return nil, err
	}
	for _, r := range t5 {
		a, bb := b.LocalRestart.At(r.mb), b.SharedRestart.At(r.mb)
		tab.Row(r.mb, r.a, a, r.b, bb, b.LocalCkpt.At(r.mb), b.SharedCkpt.At(r.mb))
		cs = append(cs,
			cmp("Table 5", fmt.Sprintf("restart type A (s), %g MB", r.mb), r.a, a, "remotedisk-mv-restart.cost, interpolated"),
			cmp("Table 5", fmt.Sprintf("restart type B (s), %g MB", r.mb), r.b, bb, "nfs-restart.cost, interpolated"))
	}
	return cs, tab.Close()
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// table7Paper holds Table 7: limit → paper priority → trace → {MNOF, MTBF}.
var table7Paper = map[float64]map[int]map[string][2]float64{
	1000: {
		1:  {"ST": {0.24, 130}, "BoT": {1.12, 126}, "Mix": {0.77, 127}},
		2:  {"ST": {1.0, 3377}, "BoT": {1.06, 179}, "Mix": {1.06, 179}},
		7:  {"ST": {0.4, 186}, "BoT": {1.0, 80.5}, "Mix": {0.15, 180}},
		10: {"ST": {12.0, 37.1}, "BoT": {4.5, 37.4}, "Mix": {11.9, 37.1}},
	},
	3600: {
		1:  {"ST": {0.52, 184}, "BoT": {1.18, 180}, "Mix": {0.72, 183}},
		2:  {"ST": {1.0, 3377}, "BoT": {1.08, 396}, "Mix": {1.08, 396}},
		7:  {"ST": {0.57, 303}, "BoT": {1.0, 198}, "Mix": {0.58, 300}},
		10: {"ST": {13.0, 37.9}, "BoT": {3.5, 93}, "Mix": {11.8, 37.6}},
	},
	math.Inf(1): {
		1:  {"ST": {3.33, 6005}, "BoT": {3.46, 1074}, "Mix": {3.36, 5106}},
		2:  {"ST": {0.5, 3258}, "BoT": {1.27, 4274}, "Mix": {1.21, 4199}},
		7:  {"ST": {0.57, 303}, "BoT": {1.0, 198}, "Mix": {0.58, 300.3}},
		10: {"ST": {9.5, 51}, "BoT": {3.14, 571}, "Mix": {9.34, 55.5}},
	},
}

var limits = []float64{1000, 3600, math.Inf(1)}

func limitName(l float64) string {
	if math.IsInf(l, 1) {
		return "inf"
	}
	return fmt.Sprint(l)
}

// paperColumn maps our traces to the column of Table 7 that matches them.
// The paper's "Bag-of-Task" column is the GloudSim single-task file and its
// "Seq-Task" column the batch file: BoT Pr7 < 1000 s (1.0, 80.5) is single's
// (1, 80.52), BoT Pr1 < 3600 s (1.18, 180) is single's (1.181, 179.6), and
// all four BoT MNOFs without limit (3.46, 1.27, 1.0, 3.14) are single's to
// three digits, while ST's fit batch's (ST Pr10 < 1000 s 12.0/37.1 against
// batch's 11.6/38.7). The labels of the two columns are swapped in the
// paper (or the file names in GloudSim).
var paperColumn = map[string]string{"ST": "BoT", "BoT": "ST", "Mix": "Mix"}

// table7 estimates MNOF and MTBF per priority for each task-length limit
// (tasks whose work is below the limit).
func table7(_ context.Context, cfg repro.Config, _ settings, d *data) ([]repro.Comparison, error) {
	tab, err := cfg.NewTable("table7.csv", "limit_s", "trace", "priority", "tasks", "failures", "mnof", "mtbf", "paper_column", "mnof_paper", "mtbf_paper")
	if err != nil {
		return nil, err
	}
	var cs []repro.Comparison
	for _, l := range limits {
		for _, k := range kinds {
			byP := interval.ByPriority(d.tasks[k.name], l)
			col := paperColumn[k.name]
			for p := 0; p < 12; p++ {
				s, ok := byP[p]
				if !ok {
					continue
				}
				pp := p + 1 // the paper numbers priorities 1–12
				paper, has := table7Paper[l][pp][col]
				if !has {
					paper = [2]float64{math.NaN(), math.NaN()}
				}
				tab.Row(limitName(l), k.name, pp, s.Tasks, s.Failures, s.MNOF, s.MTBF, col, paper[0], paper[1])
				if has {
					q := fmt.Sprintf("%s (paper column %s) Pr%d len<%s", k.name, col, pp, limitName(l))
					note := fmt.Sprintf("%d tasks", s.Tasks)
					if s.Tasks < 10 {
						note += "; too few tasks for a stable estimate"
					}
					cs = append(cs, cmp("Table 7", q+" MNOF", paper[0], s.MNOF, note), cmp("Table 7", q+" MTBF", paper[1], s.MTBF, note))
				}
			}
		}
	}
	return cs, tab.Close()
}

// policies are the two formulas with the given MNOF and MTBF estimators.
func policies(mnof, mtbf func(interval.TraceTask) float64) []interval.Policy {
	return []interval.Policy{
		interval.MNOFPolicy{Label: "Formula (3)", C: ckptCost, MNOF: mnof},
		interval.YoungPolicy{Label: "Young", C: ckptCost, MTBF: mtbf},
	}
}

// jobWPR replays tasks under p and returns the WPR of each job.
func jobWPR(tasks []interval.TraceTask, p interval.Policy) ([]int64, []float64, error) {
	res, err := interval.ReplayAll(tasks, p, ckptCost, restartCost, nil)
	if err != nil {
		return nil, nil, err
	}
	jobs, w := interval.JobWPR(tasks, res)
	return jobs, w, nil
}

func meanMin(v []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return mean / float64(len(v)), lo, hi
}

func fraction(v []float64, pred func(float64) bool) float64 {
	n := 0
	for _, x := range v {
		if pred(x) {
			n++
		}
	}
	return float64(n) / float64(len(v))
}

// table6 replays every task with its own failure count and intervals.
func table6(_ context.Context, cfg repro.Config, _ settings, d *data) ([]repro.Comparison, error) {
	paper := map[string][4]float64{ // avg, lowest for Formula (3); avg, lowest for Young
		"BoT": {0.960, 0.742, 0.954, 0.735},
		"ST":  {0.937, 0.742, 0.938, 0.633},
		"Mix": {0.949, 0.742, 0.939, 0.633},
	}
	tab, err := cfg.NewTable("table6.csv", "trace", "method", "jobs", "avg_wpr", "lowest_wpr", "avg_wpr_paper", "lowest_wpr_paper")
	if err != nil {
		return nil, err
	}
	var cs []repro.Comparison
	note := "simulated replay, C = R = 2 s; the paper measured a BLCR cluster with per-task memory-dependent costs and scheduling delays"
	gnote := "GloudSim analyser accounting (paper-exact switch): no restart cost, checkpoints outside the trace's time line, x* not rounded"
	for _, k := range kinds {
		for i, p := range policies(interval.OwnMNOF, interval.OwnMTBF) {
			_, w, err := jobWPR(d.tasks[k.name], p)
			if err != nil {
				return nil, err
			}
			avg, lo, _ := meanMin(w)
			pa := paper[k.name]
			tab.Row(k.name, p.Name(), len(w), avg, lo, pa[2*i], pa[2*i+1])
			cs = append(cs,
				cmp("Table 6", k.name+" "+p.Name()+" avg WPR", pa[2*i], avg, note),
				cmp("Table 6", k.name+" "+p.Name()+" lowest WPR", pa[2*i+1], lo, ""))
			_, gw := interval.JobWPRGloudSim(d.tasks[k.name], i == 0, ckptCost, interval.OwnMNOF, interval.OwnMTBF)
			gavg, glo, _ := meanMin(gw)
			tab.Row(k.name, p.Name()+" (GloudSim accounting)", len(gw), gavg, glo, pa[2*i], pa[2*i+1])
			cs = append(cs,
				cmp("Table 6", k.name+" "+p.Name()+" avg WPR, GloudSim accounting", pa[2*i], gavg, gnote),
				cmp("Table 6", k.name+" "+p.Name()+" lowest WPR, GloudSim accounting", pa[2*i+1], glo, ""))
		}
	}
	return cs, tab.Close()
}
