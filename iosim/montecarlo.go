package iosim

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// TrialContext runs the fault-free, checkpoint-free, interference-free
// baseline and every strategy on the same job list and failure times
// (both drawn from opt.Seed), and returns each strategy's run with its
// waste against the baseline. ctx is checked inside every run. A platform
// that cannot make progress is refused before the baseline runs
// (Config.CheckProgress).
func TrialContext(ctx context.Context, c *Config, sts []Strategy, opt Options) (Outcome, error) {
	opt = opt.withDefaults()
	if err := c.Validate(); err != nil {
		return Outcome{}, err
	}
	if !opt.NoFailures && opt.Failures == nil {
		if err := c.CheckProgress(); err != nil {
			return Outcome{}, err
		}
	}
	if opt.Jobs == nil {
		jobs, err := generateJobs(c, opt)
		if err != nil {
			return Outcome{}, err
		}
		opt.Jobs = jobs
	}
	if !opt.NoFailures && opt.Failures == nil {
		// The runs' failure times, drawn once, and their memory, which
		// the trials of a process pass on to each other (cachePool).
		fc := cachePool.Get().(*failureCache)
		fc.trace = nil // this trial's own
		defer cachePool.Put(fc)
		opt.failures = fc
	}
	bo := opt
	bo.NoFailures = true
	base, err := SimulateContext(ctx, c, Baseline(), bo)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Baseline: base}
	for _, st := range sts {
		r, err := SimulateContext(ctx, c, st, opt)
		if err != nil {
			return Outcome{}, err
		}
		out.Runs = append(out.Runs, r)
		out.Waste = append(out.Waste, Waste(r, base))
	}
	return out, nil
}

// cachePool holds the failure caches of finished trials: a trial takes
// one (its memory, not its trace) so that its first run does not allocate
// the nodes' table, free list, job slab and node lists the last trial
// had (at Cielo ×1 0.6 of a trial's 1 MB allocated, and the GC that
// caused). lend clears what it lends (TestLentMemoryIsFresh).
var cachePool = sync.Pool{New: func() any { return &failureCache{} }}

// Outcome is one trial (TrialContext): the baseline, and per strategy its run and waste.
type Outcome struct {
	Baseline Run
	Runs     []Run
	Waste    []float64
}

// Summary is the distribution of a metric over Monte Carlo runs: mean,
// deciles 1 and 9, quartiles and median (Section V: "mean, first and ninth
// decile, and first and third quartile").
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	D1     float64 `json:"d1"`
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
	D9     float64 `json:"d9"`
}

// Summarize returns the Summary of xs (quantiles by linear interpolation
// between order statistics, R's type 7: distribution.SampleQuantile). NaN fields for an empty sample.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		n := math.NaN()
		return Summary{Mean: n, D1: n, Q1: n, Median: n, Q3: n, D9: n}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	q := func(p float64) float64 { return distribution.SampleQuantile(s, p) }
	return Summary{N: len(s), Mean: sum / float64(len(s)), D1: q(0.1), Q1: q(0.25), Median: q(0.5), Q3: q(0.75), D9: q(0.9)}
}

// Renormalize replaces every waste of rs by 1 − useful/B, with B the
// largest baseline useful node-time over all of rs: the authors'
// post-processing (sim/figures/*-csv2dat.py of the paper's repository
// takes `baseline = 1/max(TOTWORK)` over the baseline rows of the whole
// result file), instead of each trial's own baseline. Use it with
// AuthorsAccounting, on all the trials of one figure. O(T·S).
func Renormalize(rs []TrialResult) {
	B := 0.0
	for _, t := range rs {
		B = math.Max(B, t.Outcome.Baseline.Split.Useful())
	}
	for _, t := range rs {
		for i, r := range t.Outcome.Runs {
			t.Outcome.Waste[i] = 1 - r.Split.Useful()/B
		}
	}
}
