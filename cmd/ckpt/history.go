package main

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// fitHistory turns past walltimes into the law to plan with: the empirical
// law itself, the family of least BIC, or a named family.
//
// --fit auto uses BIC rather than AIC: with nested candidates (normal inside
// truncnormal, exponential inside gamma and weibull) AIC often prefers the
// larger family on data drawn from the smaller one, and a fitted truncnormal
// puts no probability above the longest run seen, so a plan for it stops
// exactly there. BIC's stronger penalty picks the generating family far
// more reliably (dist's tests: 239 of 240 seeded runs).
//
// ks is the Kolmogorov–Smirnov statistic of the fitted law against the
// runs (NaN for the empirical law, which fits them by construction).
func fitHistory(values []float64, fit string) (d distribution.Distribution, fits []fitInfo, ks float64, err error) {
	if len(values) < 2 {
		return nil, nil, 0, fmt.Errorf("history has %d run(s); at least 2 are needed to estimate a walltime law", len(values))
	}
	switch fit {
	case "empirical":
		d, err := distribution.Empirical(values)
		return d, nil, math.NaN(), err
	case "auto":
		r, err := distribution.FitAuto(values)
		if err != nil {
			return nil, nil, 0, err
		}
		var infos []fitInfo
		for _, c := range r.Candidates {
			info := fitInfo{Family: c.Family, AIC: c.AIC, BIC: c.BIC, KS: c.KS}
			if c.Dist != nil {
				info.Spec = c.Dist.String()
			}
			if c.Skipped != "" {
				info = fitInfo{Family: c.Family, Note: "skipped: " + c.Skipped}
			}
			infos = append(infos, info)
		}
		// Show the candidates in the order of the criterion used.
		sort.SliceStable(infos, func(i, j int) bool {
			if (infos[i].Note == "") != (infos[j].Note == "") {
				return infos[i].Note == ""
			}
			return infos[i].BIC < infos[j].BIC
		})
		return r.BestBIC.Dist, infos, r.BestBIC.KS, nil
	default:
		d, err := distribution.Fit(fit, values)
		if err != nil {
			return nil, nil, 0, err
		}
		return d, nil, distribution.KSStatistic(d, slices.Sorted(slices.Values(values))), nil
	}
}

// ksCritical is the 1% critical value of the Kolmogorov–Smirnov statistic
// for n samples, 1.63/√n (Kolmogorov's asymptotic value). It is for a law
// fixed in advance; a law fitted to the same samples sits closer to them,
// so the check is conservative: a fit that fails it is certainly poor.
func ksCritical(n int) float64 { return 1.63 / math.Sqrt(float64(n)) }
