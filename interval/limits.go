package interval

import (
	"math"

	"github.com/ckpt-hpc/ckpt/usage"
)

// MaxSimRuns bounds SimRequest.Runs: a hundred million runs of a
// one-day task take an hour; more is a typo, not an experiment.
const MaxSimRuns = 100_000_000

// checkExtrapolated refuses a memory whose BLCR costs, extrapolated from
// the tables, exceed MaxDuration: the plan of a checkpoint longer than 317
// years is no answer (1e308 MB gave C = 9e305 s). O(storages).
func checkExtrapolated(st []Storage, mb float64) error {
	for _, s := range st {
		if !(s.C <= MaxDuration && s.R <= MaxDuration) {
			return usage.Fieldf("memory_mb", "%g MB extrapolates %s checkpoint and restart costs of %.4g s and %.4g s, beyond the limit of %.0e s on durations",
				mb, s.Name, s.C, s.R, float64(MaxDuration))
		}
	}
	return nil
}

// checkOneMean refuses a simulation given both an MTBF and E(Y) that
// disagree: its failures are exponential of one mean, and the MTBF
// silently won. Equal means (MTBF = Te/E(Y)) are accepted.
func (r SimRequest) checkOneMean() error {
	s := r.Failures
	if s.MTBF == 0 || s.ExpectedFailures == nil {
		return nil
	}
	if m := r.Te / *s.ExpectedFailures; !(math.Abs(m-s.MTBF) <= 1e-9*s.MTBF) {
		return usage.Fieldf("failures.expected_failures", "%g gives exponential failures of mean Te/E(Y) = %.6g s, the MTBF %.6g s: give one of them",
			*s.ExpectedFailures, m, s.MTBF)
	}
	return nil
}
