package coop

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/runner"
)

// settings are the sizes --quick shrinks.
type settings struct {
	seeds       int       // trials per point (Figs. 1–3)
	bandwidths  []float64 // Fig. 2, bytes/s
	sysMTBFh    []float64 // Figs. 1 and 3: system MTBF in hours on Cielo
	fig1BW      []float64
	fig4Seeds   int
	fig4MTBFy   []float64 // node MTBF in years
	fig4Strats  []string
	fig4Span    float64
	fig4Tol     float64
	span        float64
	seed        uint64
	fixedPeriod float64
	fullPeriod  bool // Options.ComputeFullPeriod
	// accounting and authors are Options.Accounting and Options.Authors
	// of every sweep (see Accountings); wastes are renormalised as the
	// authors' post-processing does under AuthorsAccounting.
	accounting iosim.Accounting
	authors    iosim.AuthorsModel
}

// Accountings are the names repro.Config.Accounting takes: "ours" (the
// default: our booking, the paper's model), "authors" (the authors'
// booking and normalisation, with their checkpoint spacing: P of
// computation between checkpoints) and "authors-model" (that, with every
// behaviour of their simulator that iosim.AuthorsModel reproduces; the
// window is 31 days, or the span minus the skipped days when shorter).
var Accountings = []string{"ours", "authors", "authors-model"}

// withAccounting sets the sweeps' accounting of s from name.
func (s *settings) withAccounting(name string) error {
	switch name {
	case "", "ours":
	case "authors", "authors-model":
		s.accounting, s.fullPeriod = iosim.AuthorsAccounting, true
		if name == "authors-model" {
			s.authors = iosim.AllAuthors()
			s.authors.Window = min(s.authors.Window, s.fig4Span-2*iosim.Day, s.span-2*iosim.Day)
		}
	default:
		return fmt.Errorf("coop: unknown accounting %q (want ours, authors or authors-model)", name)
	}
	return nil
}

// options are the iosim.Options of a sweep of span seconds under s.
func (s settings) options(span float64) iosim.Options {
	return iosim.Options{Span: span, Skip: iosim.Day, ComputeFullPeriod: s.fullPeriod, Accounting: s.accounting, Authors: s.authors}
}

func settingsFor(quick bool) settings {
	s := settings{
		seeds:       100,
		sysMTBFh:    []float64{1, 2, 4, 8, 16, 24},
		fig1BW:      []float64{160e9, 80e9, 40e9},
		fig4Seeds:   10,
		fig4MTBFy:   []float64{5, 10, 15, 20, 30, 45},
		fig4Strats:  iosim.PaperStrategies,
		fig4Span:    62 * iosim.Day,
		fig4Tol:     0.05,
		span:        62 * iosim.Day,
		seed:        1,
		fixedPeriod: 3600,
	}
	for b := 40e9; b <= 160e9+1; b += 10e9 {
		s.bandwidths = append(s.bandwidths, b)
	}
	if quick {
		s.seeds = 2
		s.bandwidths = []float64{40e9, 100e9, 160e9}
		s.sysMTBFh = []float64{1, 8, 24}
		s.fig4Seeds = 1
		s.fig4MTBFy = []float64{5, 25}
		s.fig4Strats = []string{"oblivious-fixed", "ordered-nb-daly", "least-waste"}
		s.fig4Span = 22 * iosim.Day
		s.fig4Tol = 0.3
	}
	return s
}

// Run performs Figs. 1–4 and writes their outputs and comparisons.csv
// into cfg.Dir.
func Run(ctx context.Context, cfg repro.Config) error {
	st := settingsFor(cfg.Quick)
	st.seed = cfg.BaseSeed(st.seed)
	if err := st.withAccounting(cfg.Accounting); err != nil {
		return err
	}
	step := func(name string, fn func(context.Context, repro.Config, settings) ([]repro.Comparison, error)) repro.Step {
		return repro.Step{Name: name, Run: func(ctx context.Context) ([]repro.Comparison, error) { return fn(ctx, cfg, st) }}
	}
	return repro.RunSteps(ctx, cfg, []repro.Step{
		step("Fig. 1 (checkpoint slowdown)", fig1),
		step("Fig. 2 (waste vs bandwidth)", fig2),
		step("Fig. 3 (waste vs node MTBF)", fig3),
		step("Fig. 4 (bandwidth for 80% efficiency, prospective system)", fig4),
		step("Figs. 2-3 in the authors' accounting", authorsFig),
	})
}

func strategies(names []string, fixed float64) ([]iosim.Strategy, error) {
	var out []iosim.Strategy
	for _, n := range names {
		s, err := iosim.Lookup(n, fixed)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// sweep runs a sweep, writing per-trial rows to name.csv.
func sweep(ctx context.Context, cfg repro.Config, st settings, name string, pts []iosim.SweepPoint, sts []iosim.Strategy) ([]iosim.PointSummary, error) {
	path, err := cfg.Path(name + ".csv")
	if err != nil {
		return nil, err
	}
	sink, closeOut, err := runner.CreateOutputs[iosim.TrialResult](nil, path, "")
	if err != nil {
		return nil, err
	}
	rs, err := iosim.Sweep(ctx, pts, sts, st.seeds, st.options(st.span), cfg.RunnerOptions(name, st.seed), sink)
	err = closeOut(err)
	if err != nil {
		return nil, err
	}
	if st.accounting == iosim.AuthorsAccounting {
		iosim.Renormalize(rs) // the largest baseline of the figure's trials
	}
	return iosim.Aggregate(rs), nil
}

func find(p iosim.PointSummary, name string) iosim.StrategySummary {
	for _, s := range p.Strategies {
		if s.Name == name {
			return s
		}
	}
	return iosim.StrategySummary{Waste: iosim.Summarize(nil), Slowdown: iosim.Summarize(nil)}
}

func gb(b float64) string { return strconv.FormatFloat(b/1e9, 'g', 4, 64) }

// boxes draws a clustered box plot of the samples (waste or slowdown) as
// name.png and name.svg.
func boxes(cfg repro.Config, name string, fig plot.Figure, agg []iosim.PointSummary, label func(float64) string, slowdown bool) error {
	var groups []plot.BoxGroup
	for _, p := range agg {
		for _, s := range p.Strategies {
			v := s.Samples
			if slowdown {
				v = s.SlowdownSamples
			}
			groups = append(groups, plot.BoxGroup{Category: label(p.Value), Series: s.Name, Values: finiteOnly(v)})
		}
	}
	if fig.Width == 0 {
		fig.Width, fig.Height = 10*72, 5*72
	}
	return cfg.SavePlot(name, func(path string) error { return plot.Box(path, fig, groups...) })
}

func finiteOnly(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		out = []float64{math.NaN()}
	}
	return out
}
