package iosim

import (
	"context"
	"fmt"

	"github.com/ckpt-hpc/ckpt/runner"
)

// SweepPoint is one configuration of a Monte Carlo sweep; Param and Value
// name it in outputs (e.g. "bandwidth", 4e10).
type SweepPoint struct {
	Param  string
	Value  float64
	Config Config
}

// TrialResult is one (point, replicate) of a sweep.
type TrialResult struct {
	Param      string
	Value      float64
	Seed       uint64
	Strategies []string
	Outcome    Outcome
}

// Row gives the CSV/JSONL columns: param, value, seed, baseline useful
// node-seconds, then per strategy its waste, checkpoint slowdown, and the
// fractions of node-time in work, io, checkpoint, lost and idle.
func (t TrialResult) Row() []runner.Field {
	f := []runner.Field{{Name: "param", Value: t.Param}, {Name: "value", Value: t.Value}, {Name: "trial_seed", Value: t.Seed},
		{Name: "baseline_useful", Value: t.Outcome.Baseline.Split.Useful()}}
	for i, n := range t.Strategies {
		r := t.Outcome.Runs[i]
		tot := float64(r.Nodes) * r.Window
		f = append(f,
			runner.Field{Name: "waste_" + n, Value: t.Outcome.Waste[i]},
			runner.Field{Name: "slowdown_" + n, Value: r.Slowdown()},
			runner.Field{Name: "work_" + n, Value: r.Split.Work / tot},
			runner.Field{Name: "io_" + n, Value: r.Split.IO / tot},
			runner.Field{Name: "checkpoint_" + n, Value: r.Split.Checkpoint / tot},
			runner.Field{Name: "lost_" + n, Value: r.Split.Lost / tot},
			runner.Field{Name: "idle_" + n, Value: r.Split.Idle / tot},
		)
	}
	return f
}

// Sweep runs a trial (TrialContext) of every strategy for every point and replicate on
// the experiment runner. Replicate r uses the same trial seed
// TrialSeed(ro.Seed, r) at every point (common random numbers: the
// same job list, and the same uniform draws behind the failure times, at
// every bandwidth), so outputs are identical for any worker count and
// shard split. Results reach sink in item order; the returned slice holds
// them too (nil sink: collect only).
func Sweep(ctx context.Context, points []SweepPoint, sts []Strategy, reps int, opt Options, ro runner.Options, sink runner.Sink[TrialResult]) ([]TrialResult, error) {
	if reps < 1 {
		return nil, fmt.Errorf("need at least one replicate, got %d", reps)
	}
	for i := range points {
		if err := points[i].Config.Validate(); err != nil {
			return nil, fmt.Errorf("%s=%g: %w", points[i].Param, points[i].Value, err)
		}
	}
	names := make([]string, len(sts))
	for i, s := range sts {
		names[i] = s.Name
	}
	var got []runner.Result[TrialResult]
	sinks := []runner.Sink[TrialResult]{runner.Collect(&got)}
	if sink != nil {
		sinks = append(sinks, sink)
	}
	err := runner.Run(ctx, ro, points, reps, func(ctx context.Context, it runner.Item[SweepPoint]) (TrialResult, error) {
		o := opt
		o.Seed = TrialSeed(ro.Seed, it.Rep)
		c := it.Param.Config
		out, err := TrialContext(ctx, &c, sts, o)
		if err != nil {
			return TrialResult{}, err
		}
		return TrialResult{Param: it.Param.Param, Value: it.Param.Value, Seed: o.Seed, Strategies: names, Outcome: out}, nil
	}, runner.Tee(sinks...))
	res := make([]TrialResult, len(got))
	for i, g := range got {
		res[i] = g.Value
	}
	return res, err
}

// TrialSeed is the seed of replicate rep of a sweep with base seed base:
// its job list and failure times, the same at every point (see Sweep).
func TrialSeed(base uint64, rep int) uint64 { return runner.Seed(base, 0, rep) }

// Aggregate summarises a sweep: for each point value (in first-seen order)
// and strategy, the Summary of the wastes, of the slowdowns, and the mean
// split as fractions of node-time.
func Aggregate(rs []TrialResult) []PointSummary {
	var out []PointSummary
	idx := map[float64]int{}
	for _, r := range rs {
		i, ok := idx[r.Value]
		if !ok {
			i = len(out)
			idx[r.Value] = i
			ps := PointSummary{Param: r.Param, Value: r.Value}
			for _, n := range r.Strategies {
				ps.Strategies = append(ps.Strategies, StrategySummary{Name: n})
			}
			out = append(out, ps)
		}
		for k := range r.Strategies {
			s := &out[i].Strategies[k]
			run := r.Outcome.Runs[k]
			s.wastes = append(s.wastes, r.Outcome.Waste[k])
			s.slow = append(s.slow, run.Slowdown())
			tot := float64(run.Nodes) * run.Window
			s.sum.Work += run.Split.Work / tot
			s.sum.IO += run.Split.IO / tot
			s.sum.Checkpoint += run.Split.Checkpoint / tot
			s.sum.Lost += run.Split.Lost / tot
			s.sum.Idle += run.Split.Idle / tot
		}
	}
	for i := range out {
		for k := range out[i].Strategies {
			s := &out[i].Strategies[k]
			n := float64(len(s.wastes))
			s.Waste = Summarize(s.wastes)
			s.Slowdown = Summarize(s.slow)
			s.Samples = s.wastes
			s.SlowdownSamples = s.slow
			s.Split = Split{Work: s.sum.Work / n, IO: s.sum.IO / n, Checkpoint: s.sum.Checkpoint / n, Lost: s.sum.Lost / n, Idle: s.sum.Idle / n}
		}
	}
	return out
}

// PointSummary is one point of an aggregated sweep.
type PointSummary struct {
	Param      string            `json:"param"`
	Value      float64           `json:"value"`
	Strategies []StrategySummary `json:"strategies"`
}

// StrategySummary is one strategy at one point: waste and slowdown
// distributions, and the mean split (fractions of node-time).
type StrategySummary struct {
	Name     string  `json:"name"`
	Waste    Summary `json:"waste"`
	Slowdown Summary `json:"slowdown"`
	Split    Split   `json:"split"`
	// Samples are the wastes of the trials, SlowdownSamples their
	// checkpoint slowdowns.
	Samples         []float64 `json:"-"`
	SlowdownSamples []float64 `json:"-"`
	wastes          []float64
	slow            []float64
	sum             Split
}
