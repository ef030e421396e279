package main

import (
	"github.com/ckpt-hpc/ckpt/distribution"
)

// fitInfos turns FitHistory's ranked candidates into the report's rows.
func fitInfos(cands []distribution.Candidate) []fitInfo {
	var infos []fitInfo
	for _, c := range cands {
		info := fitInfo{Family: c.Family, AIC: c.AIC, BIC: c.BIC, KS: c.KS}
		if c.Dist != nil {
			info.Spec = c.Dist.String()
		}
		if c.Skipped != "" {
			info = fitInfo{Family: c.Family, Note: "skipped: " + c.Skipped}
		}
		infos = append(infos, info)
	}
	return infos
}
