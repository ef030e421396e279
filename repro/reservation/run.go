package reservation

import (
	"context"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/runner"
)

// settings are the sizes that --quick shrinks.
type settings struct {
	maxN   int       // cap on Algorithm 1's grid
	maxTau int       // periodic strategies try τ = 1 … maxTau
	ckpts  []float64 // Fig. 5's C = R values, hours
	eps    []float64 // Fig. 6's ε values
	ratios []float64 // Fig. 7's μ/μ_o and σ/σ_o values
}

func settingsFor(quick bool) settings {
	if quick {
		return settings{maxN: 300, maxTau: 200, ckpts: []float64{0.01, 0.1, 1}, eps: []float64{0.1, 1}, ratios: []float64{0.5, 1, 2}}
	}
	return settings{
		maxN: 20000, maxTau: 1000,
		ckpts:  []float64{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2},
		eps:    []float64{0.1, 0.2, 0.5, 1, 2, 5, 10},
		ratios: []float64{0.1, 0.2, 0.5, 1, 2, 5, 10},
	}
}

// Run performs every experiment of the paper and writes its outputs to
// cfg.Dir: intro.csv, table2.csv, fig5.csv, fig6.csv, fig7.csv, their
// figures, and comparisons.csv.
func Run(ctx context.Context, cfg repro.Config) error {
	st := settingsFor(cfg.Quick)
	step := func(name string, fn func(context.Context, repro.Config, settings) ([]repro.Comparison, error)) repro.Step {
		return repro.Step{Name: name, Run: func(ctx context.Context) ([]repro.Comparison, error) { return fn(ctx, cfg, st) }}
	}
	return repro.RunSteps(ctx, cfg, []repro.Step{
		step("Introduction example", intro),
		step("Table 2 (normalised by DYN-PROG-COUNT(X, 0.1))", table2),
		step("Fig. 5", fig5),
		step("Fig. 6", fig6),
		step("Fig. 7", fig7),
	})
}

// parallel evaluates fn on every point on the experiment runner's worker
// pool and returns the results in point order.
func parallel[P, R any](ctx context.Context, cfg repro.Config, label string, points []P, fn func(context.Context, P) (R, error)) ([]R, error) {
	var got []runner.Result[R]
	err := runner.Run(ctx, cfg.RunnerOptions(label, 0), points, 1,
		func(ctx context.Context, it runner.Item[P]) (R, error) { return fn(ctx, it.Param) }, runner.Collect(&got))
	if err != nil {
		return nil, err
	}
	out := make([]R, len(got))
	for i, r := range got {
		out[i] = r.Value
	}
	return out, nil
}

// reference is DYN-PROG-COUNT(X, ε) with Algorithm 1's grid, capped at
// maxN points, and its certified lower bound.
func reference(ctx context.Context, x distribution.Distribution, c reservation.Costs, class reservation.Class, eps float64, maxN int, lb bool) (*reservation.Approximation, int, error) {
	n, _, err := reservation.GridSize(x, c, eps)
	if err != nil {
		return nil, 0, err
	}
	asked := n
	n = min(n, maxN)
	ap, err := reservation.ApproximateContext(ctx, x, c, class, n, lb)
	return ap, asked, err
}

func bounded(d distribution.Distribution) (distribution.Distribution, error) {
	x, _, err := reservation.Law(d, distribution.DefaultTailMass)
	return x, err
}
