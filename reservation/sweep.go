package reservation

import (
	"context"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// SweepRequest prices every planning strategy and baseline at every point
// of the grid Ckpts × Restarts × Epsilons (`ckpt reserve sweep`).
type SweepRequest struct {
	// Request gives the walltime law, Alpha, Beta, Gamma, MaxN, MaxTau and
	// TailMass; each point sets C, R and Epsilon and plans with
	// AlgoDynProgCount, baselines and lower bound included.
	Request
	// Ckpts are the checkpoint costs C in seconds; Restarts the restart
	// costs R (nil: R = C at each point); Epsilons Algorithm 1's ε.
	Ckpts, Restarts, Epsilons []float64
}

// SweepPoint is one (C, R, ε) of the grid; C and R in seconds.
type SweepPoint struct{ C, R, Epsilon float64 }

// SweepRow holds every strategy's expected cost at one point.
type SweepRow struct {
	Point  SweepPoint
	Result *Result
	// ByName maps each strategy and baseline to its expected cost.
	ByName map[string]float64
}

// SweepColumns are the strategies of a sweep row, in column order.
var SweepColumns = append(append([]string{}, Algorithms...), BaselineMax, BaselineNeuro, BaselineMaxOfLast)

// Row is the output row: ckpt, restart, epsilon, n, omniscient,
// lower_bound, then SweepColumns.
func (s SweepRow) Row() []runner.Field {
	f := []runner.Field{{Name: "ckpt", Value: s.Point.C}, {Name: "restart", Value: s.Point.R}, {Name: "epsilon", Value: s.Point.Epsilon},
		{Name: "n", Value: s.Result.N}, {Name: "omniscient", Value: s.Result.Omniscient}, {Name: "lower_bound", Value: s.Result.LowerBound}}
	for _, name := range SweepColumns {
		f = append(f, runner.Field{Name: name, Value: s.ByName[name]})
	}
	return f
}

// Points lists the grid, C slowest, ε fastest.
func (s SweepRequest) Points() []SweepPoint {
	var points []SweepPoint
	for _, c := range s.Ckpts {
		restarts := s.Restarts
		if restarts == nil {
			restarts = []float64{c}
		}
		for _, r := range restarts {
			for _, e := range s.Epsilons {
				points = append(points, SweepPoint{c, r, e})
			}
		}
	}
	return points
}

// at is the request of one point.
func (s SweepRequest) at(p SweepPoint) Request {
	r := s.Request
	r.Costs.C, r.Costs.R, r.Epsilon = p.C, p.R, p.Epsilon
	r.Algorithm, r.Evaluate, r.NoBaselines = AlgoDynProgCount, nil, false
	return r
}

// Validate checks the grid and the request at each of its points; the
// error names the field (Ckpts, Epsilons, or the Request's).
func (s SweepRequest) Validate() error {
	switch {
	case len(s.Ckpts) == 0:
		return usage.Fieldf("Ckpts", "empty list")
	case s.Restarts != nil && len(s.Restarts) == 0:
		return usage.Fieldf("Restarts", "empty list")
	case len(s.Epsilons) == 0:
		return usage.Fieldf("Epsilons", "empty list")
	}
	for _, p := range s.Points() {
		if err := s.at(p).Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Sweep is a validated sweep with its law loaded.
type Sweep struct {
	req SweepRequest
	w   Walltime
}

// NewSweep validates the request and loads and prepares its law (Law:
// truncation and its checks), so that a bad law fails before any work.
func NewSweep(ctx context.Context, s SweepRequest) (*Sweep, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.Request = s.at(s.Points()[0])
	w, err := s.Request.Load(ctx)
	if err != nil {
		return nil, err
	}
	if _, _, err := Law(w.Law, s.TailMass); err != nil {
		return nil, usage.Wrap(err)
	}
	return &Sweep{req: s, w: w}, nil
}

// Warnings are the law's warnings (a poor fit, skipped runs).
func (sw *Sweep) Warnings() []string { return sw.w.Warnings }

// Run plans every point on the runner's worker pool and gives the rows to
// sink, in point order whatever the number of workers.
func (sw *Sweep) Run(ctx context.Context, ro runner.Options, sink runner.Sink[SweepRow]) error {
	return runner.Run(ctx, ro, sw.req.Points(), 1, func(ctx context.Context, it runner.Item[SweepPoint]) (SweepRow, error) {
		o := sw.req.at(it.Param).Options()
		o.History = sw.w.History
		res, err := PlanContext(ctx, sw.w.Law, o)
		if err != nil {
			return SweepRow{}, err
		}
		row := SweepRow{Point: it.Param, Result: res, ByName: map[string]float64{}}
		for _, b := range res.Baselines {
			row.ByName[b.Name] = b.ExpectedCost
		}
		return row, nil
	}, sink)
}
