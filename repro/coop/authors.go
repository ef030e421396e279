package coop

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

// authorsMode is one way of running the authors' points: the booking,
// whether every run is renormalised by the largest baseline, the
// checkpoint spacing, and the switches of their simulator's behaviour.
type authorsMode struct {
	name       string
	acc        iosim.Accounting
	renorm     bool
	fullPeriod bool
	model      iosim.AuthorsModel
}

// authorsModes are the modes compared: ours; the authors' booking against
// each trial's own baseline; their booking and normalisation
// (--accounting authors); that with their checkpoint spacing (P of
// computation between checkpoints); that with each behaviour of their
// simulator (iosim.AuthorsModel) alone; and with all of them.
var authorsModes = func() []authorsMode {
	a := iosim.AuthorsAccounting
	ms := []authorsMode{{name: "ours"}, {name: "authors_booking", acc: a}, {name: "authors", acc: a, renorm: true},
		{name: "authors_full_period", acc: a, renorm: true, fullPeriod: true}}
	all := iosim.AllAuthors()
	for _, sw := range []struct {
		name string
		m    iosim.AuthorsModel
	}{
		{"swapped_least_waste", iosim.AuthorsModel{SwappedLeastWaste: true}},
		{"skip_late_checkpoints", iosim.AuthorsModel{SkipLateCheckpoints: true}},
		{"keep_reservations", iosim.AuthorsModel{KeepReservations: true}},
		{"narrow_work", iosim.AuthorsModel{NarrowWork: true}},
		{"no_regular_io", iosim.AuthorsModel{NoRegularIO: true}},
		{"window", iosim.AuthorsModel{Window: all.Window}},
		{"restart_from_stop", iosim.AuthorsModel{RestartFromStop: true}},
		{"stale_rates", iosim.AuthorsModel{StaleRates: true}},
		{"drain", iosim.AuthorsModel{Drain: true}},
		{"stale_output", iosim.AuthorsModel{StaleOutput: true}},
		{"inherited_checkpoint_date", iosim.AuthorsModel{InheritedCheckpointDate: true}},
		{"integer_risk", iosim.AuthorsModel{IntegerRisk: true}},
		{"authors_model", all},
	} {
		ms = append(ms, authorsMode{name: sw.name, acc: a, renorm: true, fullPeriod: true, model: sw.m})
	}
	return ms
}()

// authorsFig runs the points of the authors' files in every mode and
// writes authors.csv (point, strategy, the authors' value, one column per
// mode) and comparisons per point and strategy.
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
	mean := make([][][]float64, len(authorsModes)) // mode → point → strategy
	for m, mode := range authorsModes {
		o := iosim.Options{Span: st.span, Skip: iosim.Day, ComputeFullPeriod: mode.fullPeriod, Accounting: mode.acc, Authors: mode.model}
		label := "authors " + mode.acc.String()
		if m >= 4 {
			label = "authors " + mode.name
		}
		rs, err := iosim.Sweep(ctx, pts, sts, seeds, o, cfg.RunnerOptions(label, st.seed), nil)
		if err != nil {
			return nil, err
		}
		if mode.renorm {
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

// authorsOutputs writes authors.csv and returns the comparisons: per point
// and strategy, the authors' accounting and spacing, then (after all of
// those) the authors' model with every switch.
func authorsOutputs(cfg repro.Config, mean [][][]float64, seeds int) ([]repro.Comparison, error) {
	head := []string{"bandwidth", "system_mtbf_hours", "strategy", "authors_published"}
	for _, m := range authorsModes {
		head = append(head, m.name)
	}
	t, err := cfg.NewTable("authors.csv", head...)
	if err != nil {
		return nil, err
	}
	var cs, model []repro.Comparison
	last := len(authorsModes) - 1
	for i, p := range authorsPoints {
		for k, s := range authorsStrategies {
			pub := authorsPublished[s][i]
			row := []any{p.bw, p.sysH, s, pub}
			for m := range authorsModes {
				row = append(row, mean[m][i][k])
			}
			t.Row(row...)
			where := fmt.Sprintf("%s at %s GB/s, %sh system MTBF", s, gb(p.bw), strconv.FormatFloat(p.sysH, 'g', 3, 64))
			cs = append(cs, repro.Comparison{Experiment: "Figs. 2-3 (authors' files)", Quantity: where + ", authors' accounting and spacing", Paper: pub, Ours: mean[3][i][k],
				Note: fmt.Sprintf("%d seeds; our accounting %.3f, authors' booking %.3f, + largest baseline %.3f (authors.csv)", seeds, mean[0][i][k], mean[1][i][k], mean[2][i][k])})
			note := fmt.Sprintf("%d seeds; from %.3f (accounting and spacing), each switch alone:", seeds, mean[3][i][k])
			for m := 4; m < last; m++ {
				note += fmt.Sprintf(" %s %.3f", authorsModes[m].name, mean[m][i][k])
			}
			model = append(model, repro.Comparison{Experiment: "Figs. 2-3 (authors' files)", Quantity: where + ", authors' model (every switch)", Paper: pub, Ours: mean[last][i][k],
				Note: note + " (authors.csv)"})
		}
	}
	return append(cs, model...), t.Close()
}
