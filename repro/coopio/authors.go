package coopio

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/repro"
)

// authorsPoint is one point of Figs. 2–3 that the authors' result files
// (sim/figures/1h-ckpt-cielo.dat and daly-ckpt-cielo.dat of
// SMURFSorg/ABBFHR17-cCR-Platform) give: a bandwidth and a system MTBF.
type authorsPoint struct {
	bw, sysH float64
}

var authorsPoints = []authorsPoint{{40e9, 1}, {100e9, 1}, {160e9, 1}, {40e9, 24}}

// authorsStrategies are the strategies of the authors' files, in our
// names (Simple = Oblivious, BLOCKING_FCFS = Ordered, FCFS = Ordered-NB,
// Coop = Least-Waste, No = interference-free; 1h-ckpt for Fixed, daly-ckpt
// for Daly).
var authorsStrategies = []string{
	"oblivious-fixed", "oblivious-daly", "ordered-fixed", "ordered-daly", "ordered-nb-fixed",
	"ordered-nb-daly", "least-waste", "least-waste-fixed", "interference-free", "interference-free-fixed",
}

// authorsPublished is each strategy's mean waste, 1 − mean "Work Ratio",
// at the points of authorsPoints (the column the authors' gnuplot files
// plot, base+9 of synthetic-*-waste-cielo.egnp, from the .dat files their
// csv2dat.py wrote from the simulator's output; 141–1 526 runs a point).
var authorsPublished = map[string][4]float64{
	"oblivious-fixed":         {0.7958, 0.6479, 0.4890, 0.8437},
	"oblivious-daly":          {0.6642, 0.3857, 0.2731, 0.1120},
	"ordered-fixed":           {0.8327, 0.6555, 0.4904, 0.8404},
	"ordered-daly":            {0.7639, 0.3529, 0.2334, 0.0997},
	"ordered-nb-fixed":        {0.6390, 0.2253, 0.1706, 0.1294},
	"ordered-nb-daly":         {0.6007, 0.2113, 0.1645, 0.0886},
	"least-waste":             {0.4575, 0.2114, 0.1642, 0.0884},
	"least-waste-fixed":       {0.7738, 0.5138, 0.2923, 0.3377},
	"interference-free":       {0.2840, 0.1970, 0.1624, 0.0889},
	"interference-free-fixed": {0.3941, 0.2397, 0.1856, 0.3689},
}

// authorsModes are the accountings compared: ours; the authors' booking
// against each trial's own baseline; the authors' booking and
// normalisation (--accounting authors); and that with the authors'
// checkpoint spacing (P of computation between checkpoints).
var authorsModes = []string{"ours", "authors_booking", "authors", "authors_full_period"}

// authorsFig runs the points of the authors' files in every accounting
// and writes authors.csv (point, strategy, the authors' value, one column
// per mode) and a comparison per point and strategy.
func authorsFig(ctx context.Context, cfg repro.Config, st settings) ([]repro.Comparison, error) {
	sts, err := strategies(authorsStrategies, st.fixedPeriod)
	if err != nil {
		return nil, err
	}
	var pts []iosim.SweepPoint
	for _, p := range authorsPoints {
		c := iosim.Cielo().WithBandwidth(p.bw)
		c = c.WithNodeMTBF(p.sysH * 3600 * float64(c.Platform.Nodes))
		pts = append(pts, iosim.SweepPoint{Param: "point", Value: float64(len(pts)), Config: c})
	}
	seeds := max(2, st.seeds/5)
	run := func(acc iosim.Accounting, full bool) ([]iosim.TrialResult, error) {
		o := iosim.Options{Span: st.span, Skip: iosim.Day, ComputeFullPeriod: full, Accounting: acc}
		return iosim.Sweep(ctx, pts, sts, seeds, o, cfg.RunnerOptions("authors "+acc.String(), st.seed), nil)
	}
	mean := make([][][]float64, len(authorsModes)) // mode → point → strategy
	for m, mode := range authorsModes {
		rs, err := run(map[bool]iosim.Accounting{false: iosim.OurAccounting, true: iosim.AuthorsAccounting}[mode != "ours"], mode == "authors_full_period")
		if err != nil {
			return nil, err
		}
		if mode == "authors" || mode == "authors_full_period" {
			iosim.Renormalize(rs)
		}
		for _, p := range iosim.Aggregate(rs) {
			var row []float64
			for _, s := range p.Strategies {
				row = append(row, s.Waste.Mean)
			}
			mean[m] = append(mean[m], row)
		}
	}
	return authorsOutputs(cfg, mean, seeds)
}

// authorsOutputs writes authors.csv and returns the comparisons.
func authorsOutputs(cfg repro.Config, mean [][][]float64, seeds int) ([]repro.Comparison, error) {
	t, err := cfg.NewTable("authors.csv", "bandwidth", "system_mtbf_hours", "strategy", "authors_published", "ours", "authors_booking", "authors", "authors_full_period")
	if err != nil {
		return nil, err
	}
	var cs []repro.Comparison
	for i, p := range authorsPoints {
		for k, s := range authorsStrategies {
			pub := authorsPublished[s][i]
			t.Row(p.bw, p.sysH, s, pub, mean[0][i][k], mean[1][i][k], mean[2][i][k], mean[3][i][k])
			where := fmt.Sprintf("%s at %s GB/s, %sh system MTBF", s, gb(p.bw), strconv.FormatFloat(p.sysH, 'g', 3, 64))
			cs = append(cs, repro.Comparison{Experiment: "Figs. 2-3 (authors' files)", Quantity: where + ", authors' accounting and spacing", Paper: pub, Ours: mean[3][i][k],
				Note: fmt.Sprintf("%d seeds; our accounting %.3f, authors' booking %.3f, + largest baseline %.3f (authors.csv)", seeds, mean[0][i][k], mean[1][i][k], mean[2][i][k])})
		}
	}
	return cs, t.Close()
}
