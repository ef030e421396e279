package main

import (
	"fmt"

	"github.com/ckpt-hpc/ckpt/dist"
)

// fitHistory turns past walltimes into the law to plan with: the empirical
// law itself, the family of least AIC, or a named family.
func fitHistory(values []float64, fit string) (dist.Distribution, []fitInfo, error) {
	if len(values) < 2 {
		return nil, nil, fmt.Errorf("history has %d run(s); at least 2 are needed to estimate a walltime law", len(values))
	}
	switch fit {
	case "empirical":
		d, err := dist.Empirical(values)
		return d, nil, err
	case "auto":
		r, err := dist.FitAuto(values)
		if err != nil {
			return nil, nil, err
		}
		var infos []fitInfo
		for _, c := range r.Candidates {
			info := fitInfo{Family: c.Family, AIC: c.AIC, KS: c.KS}
			if c.Dist != nil {
				info.Spec = c.Dist.String()
			}
			if c.Skipped != "" {
				info = fitInfo{Family: c.Family, Note: "skipped: " + c.Skipped}
			}
			infos = append(infos, info)
		}
		return r.Best.Dist, infos, nil
	default:
		d, err := dist.Fit(fit, values)
		return d, nil, err
	}
}
