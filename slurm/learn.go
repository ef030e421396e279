package slurm

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Learned is a walltime law learnt from a history of runs.
type Learned struct {
	Law distribution.Distribution `json:"-"`
	// Spec is the law as ckpt reserve --dist accepts it ("" for the
	// empirical or Kaplan–Meier estimate, a discrete law).
	Spec string `json:"spec"`
	// Fit is the method: auto, empirical, or the family fitted.
	Fit string `json:"fit"`
	// Fits lists, for fit auto, each family with its (censored)
	// log-likelihood, AIC and BIC, by increasing BIC, skipped ones last.
	Fits []FamilyFit `json:"fits,omitempty"`
	// Result is the fit itself; its KS check is NaN when runs are censored.
	Result distribution.HistoryFit `json:"-"`
}

// FamilyFit is one candidate of fit auto.
type FamilyFit struct {
	Family string `json:"family"`
	Spec   string `json:"spec,omitempty"`
	// Params is the number k of parameters fitted (the family's NumParams).
	Params        int     `json:"params,omitempty"`
	LogLikelihood float64 `json:"log_likelihood,omitempty"`
	AIC           float64 `json:"aic,omitempty"`
	BIC           float64 `json:"bic,omitempty"`
	Note          string  `json:"note,omitempty"`
}

// Learn fits a law to runs, using the censored runs as right-censored
// observations (distribution.FitHistoryCensored): fit "empirical" is the
// Kaplan–Meier estimate, a family name its censored maximum-likelihood
// fit, and "auto" the family of least BIC = k log N − 2 log L with L the
// censored likelihood and k the family's NumParams. Without censored runs
// it is distribution.FitHistory. It is the one place where ckpt chain
// history and ckpt reserve --history learn a law.
func Learn(r Runs, fit string) (Learned, error) {
	t, c := r.Observations()
	h, err := distribution.FitHistoryCensored(t, c, fit)
	if err != nil {
		return Learned{}, fmt.Errorf("%d complete and %d censored runs: %w", r.Complete, r.Censored, err)
	}
	out := Learned{Law: h.Law, Fit: fit, Result: h}
	if _, discrete := h.Law.(*distribution.Discrete); !discrete {
		out.Spec = h.Law.String()
	}
	for _, cand := range h.Candidates {
		ff := FamilyFit{Family: cand.Family, Params: cand.Params, Note: cand.Skipped}
		if cand.Dist != nil && cand.Skipped == "" && !math.IsInf(cand.LogLikelihood, 0) {
			ff.Spec, ff.LogLikelihood, ff.AIC, ff.BIC = cand.Dist.String(), cand.LogLikelihood, cand.AIC, cand.BIC
		}
		out.Fits = append(out.Fits, ff)
	}
	return out, nil
}
