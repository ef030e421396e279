package iosim

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/units"
)

// RunReport is the summary of a Monte Carlo run of several strategies on
// one platform (what `ckpt iosim run` prints): the platform, Theorem 1's
// bound, each strategy's waste distribution and split, and how the
// baseline used the nodes.
type RunReport struct {
	Platform string `json:"platform"`
	Nodes    int    `json:"nodes"`
	// Bandwidth is the aggregate bandwidth in bytes/s, NodeMTBF the node
	// MTBF in seconds.
	Bandwidth float64 `json:"bandwidth_bps"`
	NodeMTBF  float64 `json:"node_mtbf_s"`
	Seeds     int     `json:"seeds"`
	// Window is the measured time per trial in seconds.
	Window float64 `json:"window_s"`
	// Bound is the lower bound on the waste fraction (FractionBound:
	// Theorem 1 corrected for finite jobs and for the unit; null when the
	// bound is undefined, BoundErr then says why).
	Bound      output.Number     `json:"bound"`
	BoundErr   error             `json:"-"`
	Strategies []StrategySummary `json:"strategies"`
	Scheduler  string            `json:"scheduler"`
	// BaselineBusy and BaselineClassShares are the mean busy fraction of
	// the baseline runs and each class's share of their node-time.
	BaselineBusy        float64            `json:"baseline_busy"`
	BaselineClassShares map[string]float64 `json:"baseline_class_shares"`
	// Accounting is "authors" under AuthorsAccounting (wastes renormalised
	// by the largest baseline of the trials), else empty.
	Accounting string `json:"accounting,omitempty"`
	// Authors is the AuthorsModel the runs used (omitted when every switch
	// is off: the paper's model).
	Authors *AuthorsModel `json:"authors_model,omitempty"`
	// MeanEvents is the mean number of events of the strategies' runs.
	MeanEvents float64 `json:"mean_events"`
	// Classes are the class names in the config's order.
	Classes []string `json:"classes"`
	// Timelines are the file system's use in a window of the first trial,
	// one per strategy (RunRequest.Timeline), for the pictures.
	Timelines []Timeline `json:"-"`
	// BelowBound explains each strategy whose mean waste is below Bound
	// (omitted when none is).
	BelowBound []BelowBound `json:"below_bound,omitempty"`
}

// Report summarises the trials of one platform (Sweep over a single
// point): the Aggregate of the strategies, the bound, the baseline's mean
// busy fraction and class shares, and the mean event count. O(T·S) for T
// trials of S strategies.
func Report(c Config, rs []TrialResult, opt Options) (RunReport, error) {
	if len(rs) == 0 {
		return RunReport{}, fmt.Errorf("report: no trial")
	}
	opt = opt.withDefaults()
	acc := ""
	if opt.Accounting == AuthorsAccounting {
		Renormalize(rs)
		acc = opt.Accounting.String()
	}
	agg := Aggregate(rs)
	if len(agg) != 1 {
		return RunReport{}, fmt.Errorf("report: trials of %d points, want 1", len(agg))
	}
	r := RunReport{Platform: c.Platform.Name, Nodes: c.Platform.Nodes, Bandwidth: float64(c.Platform.Bandwidth),
		NodeMTBF: float64(c.Platform.NodeMTBF), Seeds: len(rs), Window: opt.Span - 2*opt.Skip,
		Strategies: agg[0].Strategies, Scheduler: opt.Scheduler.String(), BaselineClassShares: map[string]float64{}, Accounting: acc}
	for _, k := range c.Classes {
		r.Classes = append(r.Classes, k.Name)
	}
	if opt.Authors != (AuthorsModel{}) {
		r.Authors = &opt.Authors
	}
	if opt.Authors.Window > 0 {
		r.Window = opt.Authors.Window
	}
	r.Bound, r.BoundErr = BoundWaste(c)
	ev, runs := 0.0, 0
	for _, t := range rs {
		r.BaselineBusy += t.Outcome.Baseline.Busy / float64(len(rs))
		for k, v := range t.Outcome.Baseline.ClassShares {
			r.BaselineClassShares[c.Classes[k].Name] += v / float64(len(rs))
		}
		for _, x := range t.Outcome.Runs {
			ev += float64(x.Events)
			runs++
		}
	}
	if runs > 0 {
		r.MeanEvents = ev / float64(runs)
	}
	r.BelowBound = belowBound(c, r, trialWastes(rs, len(r.Strategies)))
	return r, nil
}

// BoundWaste is the lower bound on the waste in the unit iosim runs
// report (the fraction of node-time lost): FractionBound for c's steady
// state (default BoundOptions), which corrects Theorem 1 for finite jobs
// and for Eq. (3) counting an overhead rather than a fraction; NaN with
// the reason when the bound is undefined (regular I/O using all the
// bandwidth, an infinite MTBF).
func BoundWaste(c Config) (output.Number, error) {
	w, err := c.FractionBound()
	if err != nil {
		return output.Number(math.NaN()), err
	}
	return output.Number(w), nil
}

// FractionBound is FractionBound for c's steady state (default
// BoundOptions: β_avail for checkpoints, jobs of at most 1.2 w).
func (c *Config) FractionBound() (float64, error) {
	cs, _, err := c.BoundClasses(BoundOptions{})
	if err != nil {
		return 0, err
	}
	return FractionBound(cs, float64(c.Platform.Nodes), float64(c.Platform.NodeMTBF))
}

// SweepParams are the parameters a sweep can vary.
var SweepParams = []string{"bandwidth", "mtbf"}

// At returns c with the swept parameter param ("bandwidth" in bytes/s or
// "mtbf", the node MTBF in seconds) set to v.
func (c Config) At(param string, v float64) (Config, error) {
	switch param {
	case "bandwidth":
		return c.WithBandwidth(v), nil
	case "mtbf":
		return c.WithNodeMTBF(v), nil
	}
	return c, fmt.Errorf("unknown parameter %q (known: %s)", param, strings.Join(SweepParams, ", "))
}

// SweepPoints parses a comma-separated list of values of param
// (bandwidths such as 40GB/s, or MTBFs such as 2y) into the points of a
// sweep of c, each validated; with failures, a point at which the
// platform cannot make progress is refused (Config.CheckProgress). An
// empty or repeated value is an error.
func SweepPoints(c Config, param, list string, failures bool) ([]SweepPoint, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, err
	}
	var pts []SweepPoint
	for _, it := range items {
		var x float64
		switch param {
		case "bandwidth":
			x, err = units.ParseBandwidth(it)
		case "mtbf":
			x, err = units.ParseSeconds(it)
		default:
			_, err = c.At(param, 0)
		}
		if err != nil {
			return nil, err
		}
		cc, _ := c.At(param, x)
		if err := cc.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", it, err)
		}
		if failures {
			if err := cc.CheckProgress(); err != nil {
				return nil, fmt.Errorf("%s: %w", it, err)
			}
		}
		pts = append(pts, SweepPoint{Param: param, Value: x, Config: cc})
	}
	return pts, nil
}

// MarshalJSON writes the summary with null for the statistics that are
// undefined (NaN): an empty sample, or the slowdown of runs that
// committed no checkpoint.
func (s Summary) MarshalJSON() ([]byte, error) {
	n := func(x float64) output.Number { return output.Number(x) }
	return json.Marshal(struct {
		N      int           `json:"n"`
		Mean   output.Number `json:"mean"`
		D1     output.Number `json:"d1"`
		Q1     output.Number `json:"q1"`
		Median output.Number `json:"median"`
		Q3     output.Number `json:"q3"`
		D9     output.Number `json:"d9"`
	}{s.N, n(s.Mean), n(s.D1), n(s.Q1), n(s.Median), n(s.Q3), n(s.D9)})
}
