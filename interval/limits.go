package interval

import (
	"fmt"
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

// MaxIntervals is the largest interval count a plan may have: 2⁵³, the
// last integer up to which float64 counts exactly (Intervals saturates
// there). Theorem 1's x* = √(Te·E(Y)/(2C)) (Eq. 3) reaches it when
// Te·E(Y)/(2C) ≥ 2¹⁰⁶, i.e. Te²/(2·C·MTBF) ≥ 2¹⁰⁶ by Corollary 1;
// Young's and Daly's periods, about √(2·C·MTBF), give about as many.
const MaxIntervals = 1 << 53

// checkPlans refuses an Advice whose plan no float64 carries: an interval
// count of MaxIntervals or more (MTBF 1e-300 s gave 2⁵³ intervals of
// 2e-150 s, not multiplying back to Te) or Eq. (4)'s expected wall-clock
// time not finite, for any method; or the exact expected wall-clock time
// not finite for every method (it grows as e^((P+C)/MTBF) per interval
// and overflows first). A method whose exact expectation alone overflows,
// beside others that do not, is reported as it is (+Inf: Daly's period at
// C = 1e5 s, MTBF = 100 s, where Young's one interval is 402 s). The error
// names field, where the failures came from. O(methods).
func checkPlans(a Advice, field string) error {
	t := a.Task
	var why, name string
	exact := 0
	for _, m := range a.Methods {
		switch {
		case m.Intervals >= MaxIntervals:
			why = fmt.Sprintf("plan needs %d intervals or more (x* = √(Te·E(Y)/(2C)) of Eq. (3) must stay below 2⁵³)", m.Intervals)
		case !isFinite(m.ExpectedWallclock):
			why = fmt.Sprintf("plan's expected wall-clock time by Eq. (4) is %v", m.ExpectedWallclock)
		case !isFinite(m.ExactExponential) || !isFinite(m.ExactReplay):
			if exact == 0 {
				name = m.Name
			}
			exact++
			continue
		default:
			continue
		}
		name = m.Name
		break
	}
	if why == "" && exact == len(a.Methods) && exact > 0 {
		why = "plan's exact expected wall-clock time overflows (+Inf), as every method's"
	}
	if why == "" {
		return nil
	}
	return usage.Fieldf(field, "no finite plan for Te = %g s, C = %g s, E(Y) = %.4g, MTBF = %.4g s: the %s %s; check the units",
		t.Te, t.C, t.EY, t.MTBF, name, why)
}

func isFinite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// field is the field of the source's failures that a plan's refusal
// names: the MTBF or E(Y) when given, else the file or spec.
func (s FailureSource) field() string {
	for _, f := range []struct {
		name  string
		given bool
	}{{"mtbf_s", s.MTBF != 0}, {"expected_failures", s.ExpectedFailures != nil}, {"gloudsim", s.GloudSim != ""}, {"lanl", s.LANL != ""},
		{"fta", s.FTA != ""}, {"google", s.Google != ""}, {"dist", s.Dist != ""}, {"failure_times", s.FailureTimes != ""}} {
		if f.given {
			return "failures." + f.name
		}
	}
	return "failures"
}
