package iosim

import (
	"context"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SweepRequest is `ckpt iosim sweep`: the waste of each strategy against
// the bandwidth or the node MTBF (Figs. 2 and 3), shardable.
type SweepRequest struct {
	Simulation
	// Vary is the swept parameter: bandwidth or mtbf (SweepParams).
	Vary string `json:"vary"`
	// Values is the comma-separated list of its values, in Vary's grammar
	// (bandwidths such as 40GB/s, durations such as 2y).
	Values string `json:"values"`
	// Shard runs only one shard of the items (the zero Shard: all).
	Shard runner.Shard `json:"-"`
	// Sink, when non-nil, receives every trial as it finishes, in item
	// order (per-trial CSV or JSON-lines rows).
	Sink runner.Sink[TrialResult] `json:"-"`
}

// Validate checks every field without simulating.
func (r SweepRequest) Validate() error {
	_, err := r.points()
	return err
}

// points resolves the request into its sweep points and strategies.
func (r SweepRequest) points() (sweepSetup, error) {
	c, opt, sts, err := r.Resolve()
	if err != nil {
		return sweepSetup{}, err
	}
	if _, err := c.At(r.Vary, 1); err != nil {
		return sweepSetup{}, usage.Fieldf("vary", "%v", err)
	}
	if fixed := sweptOverride[r.Vary]; fixed != nil && fixed(r.Source) {
		return sweepSetup{}, usage.Fieldf(r.Vary, "given with vary %s, which sets it at every point of values: drop one", r.Vary)
	}
	pts, err := SweepPoints(c, r.Vary, r.Values, !opt.NoFailures)
	if err != nil {
		return sweepSetup{}, usage.Fieldf("values", "%v", err)
	}
	for _, p := range pts {
		if err := p.Config.checkResolution(opt.Span, opt.IOChunk); err != nil {
			return sweepSetup{}, usage.Fieldf("values", "%v", err)
		}
	}
	return sweepSetup{c, opt, sts, pts}, nil
}

// sweptOverride tells, per swept parameter (SweepParams), whether the
// Source fixes it too: the sweep would silently replace it at every
// point. Its field is the parameter's name (bandwidth, mtbf).
var sweptOverride = map[string]func(Source) bool{
	"bandwidth": func(s Source) bool { return s.Bandwidth != nil },
	"mtbf":      func(s Source) bool { return s.NodeMTBF != nil },
}

type sweepSetup struct {
	c   Config
	opt Options
	sts []Strategy
	pts []SweepPoint
}

// SweepReport summarises a sweep (the JSON schema of `ckpt iosim sweep
// --json`): per point, each strategy's waste and the lower bound.
type SweepReport struct {
	Vary  string `json:"vary"`
	Seeds int    `json:"seeds"`
	// Strategies are the strategies' names, in the points' order.
	Strategies []string           `json:"strategies"`
	Points     []SweepPointReport `json:"points"`
}

// SweepPointReport is one point of a SweepReport: Value is the bandwidth
// in bytes/s or the node MTBF in seconds; Bound is the lower bound on the
// waste fraction there (BoundWaste; null where it is undefined).
type SweepPointReport struct {
	PointSummary
	Bound output.Number `json:"bound"`
}

// RunSweep runs the sweep's trials (into r.Sink as they finish) and
// aggregates them. Under the authors' accounting the wastes are
// renormalised by the largest baseline of each point's trials.
func RunSweep(ctx context.Context, r SweepRequest) (SweepReport, error) {
	s, err := r.points()
	if err != nil {
		return SweepReport{}, err
	}
	rs, err := Sweep(ctx, s.pts, s.sts, r.Seeds, s.opt, r.runnerOptions("iosim sweep", r.Shard), r.Sink)
	if err != nil {
		return SweepReport{}, simError(err)
	}
	if s.opt.Accounting == AuthorsAccounting {
		Renormalize(rs)
	}
	rep := SweepReport{Vary: r.Vary, Seeds: r.Seeds}
	for _, st := range s.sts {
		rep.Strategies = append(rep.Strategies, st.Name)
	}
	for _, p := range Aggregate(rs) {
		cc, _ := s.c.At(r.Vary, p.Value)
		b, _ := BoundWaste(cc)
		rep.Points = append(rep.Points, SweepPointReport{PointSummary: p, Bound: b})
	}
	return rep, nil
}
