package iosim

import (
	"context"
	"math"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// BoundRequest is `ckpt iosim bound`: Theorem 1's lower bound on the
// waste of a platform, with the optimal period of each class.
type BoundRequest struct {
	Source
	// Maple reproduces the paper's Maple computation (BoundOptions.Maple).
	Maple bool `json:"maple"`
	// FullBandwidth gives checkpoints the whole bandwidth
	// (BoundOptions.FullBandwidth).
	FullBandwidth bool `json:"full_bandwidth"`
}

// Validate checks the request (it loads the platform).
func (r BoundRequest) Validate() error {
	_, err := r.Load()
	return err
}

// BoundReport is the bound of a platform: the JSON schema of `ckpt iosim
// bound --json`. Waste, Lambda, IOFraction and the Daly fields are those
// of Bound; Eq. (7) counts time lost per unit of useful time.
type BoundReport struct {
	Platform string `json:"platform"`
	Nodes    int    `json:"nodes"`
	// NodeMTBF is the node MTBF in seconds.
	NodeMTBF float64 `json:"node_mtbf_s"`
	Maple    bool    `json:"maple"`
	// FractionBound is the bound on the waste fraction `iosim run`
	// reports (FractionBound; null with Maple).
	FractionBound  output.Number `json:"fraction_bound"`
	Waste          output.Number `json:"waste"`
	Lambda         output.Number `json:"lambda"`
	IOFraction     float64       `json:"io_fraction"`
	DalyWaste      output.Number `json:"daly_waste"`
	DalyIOFraction float64       `json:"daly_io_fraction"`
	// CheckpointBandwidth is the bandwidth checkpoints get, in bytes/s.
	CheckpointBandwidth float64 `json:"checkpoint_bandwidth_bps"`
	// Periods are the optimal periods per class name, in seconds.
	Periods map[string]float64 `json:"periods_s"`
	Classes []BoundClassReport `json:"classes"`
}

// BoundClassReport is one class of a BoundReport.
type BoundClassReport struct {
	Name  string  `json:"name"`
	Jobs  float64 `json:"jobs"`
	Nodes float64 `json:"nodes"`
	// Checkpoint, Period and Daly are the checkpoint time, the optimal
	// period and Daly's period, in seconds.
	Checkpoint float64 `json:"checkpoint_s"`
	Period     float64 `json:"period_s"`
	Daly       float64 `json:"daly_period_s"`
}

// RunBound computes the bound of r's platform. A bound that floating
// point cannot represent (periods that overflow, at an MTBF near 1e304 s)
// is refused as a usage error naming the MTBF, never printed as +Inf.
func RunBound(_ context.Context, r BoundRequest) (BoundReport, error) {
	c, err := r.Load()
	if err != nil {
		return BoundReport{}, err
	}
	o := BoundOptions{Maple: r.Maple, FullBandwidth: r.FullBandwidth}
	cs, beta, err := c.BoundClasses(o)
	if err != nil {
		return BoundReport{}, usage.Wrap(err)
	}
	b, err := c.LowerBound(o)
	if err != nil {
		return BoundReport{}, err
	}
	if err := checkFiniteBound(c, b, r.Maple); err != nil {
		return BoundReport{}, err
	}
	rep := BoundReport{Platform: c.Platform.Name, Nodes: c.Platform.Nodes, NodeMTBF: float64(c.Platform.NodeMTBF), Maple: r.Maple,
		FractionBound: output.Number(math.NaN()), Waste: output.Number(b.Waste), Lambda: output.Number(b.Lambda),
		IOFraction: b.IOFraction, DalyWaste: output.Number(b.DalyWaste), DalyIOFraction: b.DalyIOFraction,
		CheckpointBandwidth: beta, Periods: map[string]float64{}}
	if !r.Maple {
		fr, err := FractionBound(cs, float64(c.Platform.Nodes), float64(c.Platform.NodeMTBF))
		if err != nil {
			return BoundReport{}, err
		}
		rep.FractionBound = output.Number(fr)
	}
	for i, k := range cs {
		rep.Classes = append(rep.Classes, BoundClassReport{Name: k.Name, Jobs: k.Jobs, Nodes: k.Nodes, Checkpoint: k.C, Period: b.Periods[i], Daly: b.Daly[i]})
		rep.Periods[k.Name] = b.Periods[i]
	}
	return rep, nil
}

// checkFiniteBound refuses a bound whose periods or Daly waste overflowed
// (Theorem 1's bound tends to 0 as the MTBF grows; +Inf would be wrong).
// The Maple computation may be NaN where the paper's is undefined.
func checkFiniteBound(c Config, b Bound, maple bool) error {
	bad := math.IsInf(b.DalyWaste, 0) || !maple && (math.IsInf(b.Waste, 0) || math.IsNaN(b.Waste))
	for i := range b.Periods {
		bad = bad || math.IsInf(b.Periods[i], 0) || math.IsInf(b.Daly[i], 0)
	}
	if bad {
		return usage.Fieldf("mtbf", "%g s: Eq. (8)'s periods overflow in floating point; the bound is 0 to any printed precision far below this MTBF", float64(c.Platform.NodeMTBF))
	}
	return nil
}

// BandwidthForRequest is `ckpt iosim bandwidth-for`: the smallest
// aggregate bandwidth at which a strategy (or, with BoundOnly, the lower
// bound) reaches a target efficiency, by bisection.
type BandwidthForRequest struct {
	// Simulation must leave Bandwidth and Strategies unset: the bandwidth
	// is searched in [Lo, Hi] and Strategy names the one strategy.
	Simulation
	Strategy string `json:"strategy"`
	// Efficiency is the target 1 − waste in (0, 1). With Maple it must be
	// 0: the Maple file has its own target (waste 0.8).
	Efficiency float64 `json:"efficiency"`
	// Lo and Hi bound the search, in bytes/s (0 < Lo < Hi); Tolerance is
	// the answer's relative precision (> 0).
	Lo        float64 `json:"lo_bps"`
	Hi        float64 `json:"hi_bps"`
	Tolerance float64 `json:"tolerance"`
	// BoundOnly searches where the bound, not a strategy, reaches the
	// target (no simulation); Maple (with BoundOnly) is the published
	// prospective-system curve (Config.MapleCurve).
	BoundOnly bool `json:"bound"`
	Maple     bool `json:"maple"`
}

// Validate checks the fields that need no platform.
func (r BandwidthForRequest) Validate() error {
	e := r.Efficiency
	switch {
	case len(r.Strategies) > 0:
		return usage.Fieldf("strategies", "bandwidth-for bisects one strategy; give strategy NAME")
	case r.Bandwidth != nil:
		return usage.Fieldf("bandwidth", "bandwidth-for searches the bandwidth between lo and hi; do not give bandwidth")
	case r.Maple && !r.BoundOnly:
		return usage.Fieldf("maple", "give bound too (the Maple files compute a bound, not a strategy)")
	case r.Maple && e != 0:
		return usage.Fieldf("efficiency", "maple uses the Maple file's target (waste 0.8); drop one of them")
	case r.Maple:
		return nil
	case !(e > 0 && e < 1):
		return usage.Fieldf("efficiency", "must be in (0, 1), got %v", e)
	case !(r.Lo > 0 && r.Hi > r.Lo) || math.IsInf(r.Hi, 0):
		return usage.Fieldf("lo", "need 0 < lo < hi < +Inf, got %v, %v", r.Lo, r.Hi)
	case !(r.Tolerance > 0):
		return usage.Fieldf("tolerance", "must be positive, got %v", r.Tolerance)
	}
	return nil
}

// BandwidthForReport is the answer of `ckpt iosim bandwidth-for` (its
// JSON schema).
type BandwidthForReport struct {
	Platform string `json:"platform"`
	// Strategy is empty for a bound.
	Strategy   string  `json:"strategy,omitempty"`
	Bound      bool    `json:"bound"`
	Maple      bool    `json:"maple"`
	Efficiency float64 `json:"efficiency"`
	Waste      float64 `json:"waste"`
	// Bandwidth is the answer in bytes/s; NodeMTBF in seconds.
	Bandwidth float64 `json:"bandwidth_bps"`
	NodeMTBF  float64 `json:"node_mtbf_s"`
	// Seeds and Tolerance are those of the search (0 for Maple).
	Seeds     int     `json:"seeds,omitempty"`
	Tolerance float64 `json:"tolerance,omitempty"`
}

// RunBandwidthFor answers r.
func RunBandwidthFor(ctx context.Context, r BandwidthForRequest) (BandwidthForReport, error) {
	if err := r.Validate(); err != nil {
		return BandwidthForReport{}, err
	}
	if r.BoundOnly {
		return r.bound()
	}
	r.Strategies = []string{r.Strategy}
	c, opt, sts, err := r.Resolve()
	if err != nil {
		return BandwidthForReport{}, renameField(err, "strategies", "strategy")
	}
	if len(sts) != 1 {
		return BandwidthForReport{}, usage.Fieldf("strategy", "give one strategy, got %q", r.Strategy)
	}
	hc := c.WithBandwidth(r.Hi)
	if err := hc.checkResolution(opt.Span, opt.IOChunk); err != nil {
		return BandwidthForReport{}, renameField(err, "bandwidth", "hi")
	}
	ro := r.runnerOptions("", runner.Shard{})
	ro.Progress = runner.ProgressOff
	b, err := BandwidthFor(ctx, c, sts[0], r.Efficiency, r.Seeds, opt, ro, r.Lo, r.Hi, r.Tolerance)
	if err != nil {
		return BandwidthForReport{}, simError(err)
	}
	return BandwidthForReport{Platform: c.Platform.Name, Strategy: sts[0].Name, Efficiency: r.Efficiency, Waste: 1 - r.Efficiency,
		Bandwidth: b, NodeMTBF: float64(c.Platform.NodeMTBF), Seeds: r.Seeds, Tolerance: r.Tolerance}, nil
}

// bound is RunBandwidthFor with BoundOnly.
func (r BandwidthForRequest) bound() (BandwidthForReport, error) {
	c, err := r.Load()
	if err != nil {
		return BandwidthForReport{}, err
	}
	rep := BandwidthForReport{Platform: c.Platform.Name, Bound: true, Maple: r.Maple, Efficiency: r.Efficiency,
		NodeMTBF: float64(c.Platform.NodeMTBF), Waste: 1 - r.Efficiency}
	if r.Maple {
		if rep.Bandwidth, rep.Waste, err = c.MapleCurve(); err != nil {
			return rep, usage.Wrap(err)
		}
		rep.Efficiency = 1 - rep.Waste
		return rep, nil
	}
	rep.Tolerance = r.Tolerance
	rep.Bandwidth, err = BoundBandwidthFor(c, r.Efficiency, r.Lo, r.Hi, r.Tolerance)
	return rep, err
}

// renameField renames the field of a usage error from old to name.
func renameField(err error, old, name string) error {
	if ue, ok := err.(*usage.Error); ok && ue.Field == old {
		return &usage.Error{Field: name, Err: ue.Err}
	}
	return err
}
