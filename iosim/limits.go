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

// checkJobCount refuses up front a platform whose job list over span
// would exceed maxJobs (GenerateJobs stops there at run time, with exit
// 1 and after drawing a million jobs): the expected count is
// WorkloadSlack·N·span·Σ share_k/(q_k w_k), each job holding q_k nodes
// for w_k on average. The error names the class of the largest term,
// whose walltime is too short for the span. O(K).
func (c *Config) checkJobCount(span float64) error {
	n, worst, wt := 0.0, 0, 0.0
	for k, cl := range c.Classes {
		t := WorkloadSlack * float64(c.Platform.Nodes) * span * cl.Share / (float64(cl.Nodes) * float64(cl.Walltime))
		n += t
		if t > wt {
			worst, wt = k, t
		}
	}
	if !(n < maxJobs) {
		cl := c.Classes[worst]
		return usage.Errorf("classes[%d].walltime (%s): %v s is too short for a span of %v s: filling it takes about %.3g jobs, more than %d",
			worst, cl.Name, float64(cl.Walltime), span, n, maxJobs)
	}
	return nil
}
