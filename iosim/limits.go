package iosim

import (
	"strings"

	"github.com/ckpt-hpc/ckpt/usage"
)

// MaxSeeds bounds Simulation.Seeds: a million trials of the smallest
// platform take days; a larger count is a typo, not an experiment.
const MaxSeeds = 1_000_000

// checkFixedPeriod refuses, when a *-fixed strategy runs, a FixedPeriod
// below the clock's resolution over span (see resolution): such a period
// never lets a checkpoint start, and the run reported the waste of jobs
// that never checkpoint. O(number of strategies).
func (s Simulation) checkFixedPeriod(span float64) error {
	res := resolution(span)
	for _, name := range s.Strategies {
		if strings.HasSuffix(strings.TrimSpace(name), "-fixed") && !(s.FixedPeriod >= res) {
			return usage.Fieldf("fixed-period", "%v s is below the clock's resolution over a span of %v s (%.3g s)", s.FixedPeriod, span, res)
		}
	}
	return nil
}
