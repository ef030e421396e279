package slurm

import (
	"fmt"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Learned is a walltime law learnt from a history of runs.
type Learned struct {
	Law distribution.Distribution `json:"-"`
	// Spec is the law as ckpt reserve --dist accepts it ("" for the
	// Kaplan–Meier estimate, a discrete law).
	Spec string `json:"spec"`
	// Fit is the family fitted, or empirical.
	Fit string `json:"fit"`
	// Fits lists, for fit auto, each family's censored log-likelihood and
	// BIC (k log N − 2 log L).
	Fits []FamilyFit `json:"fits,omitempty"`
}

// FamilyFit is one candidate of fit auto.
type FamilyFit struct {
	Family        string  `json:"family"`
	Spec          string  `json:"spec,omitempty"`
	LogLikelihood float64 `json:"log_likelihood"`
	BIC           float64 `json:"bic"`
	Note          string  `json:"note,omitempty"`
}

// Learn fits a law to runs, using the censored runs as right-censored
// observations: fit "empirical" is the Kaplan–Meier estimate, a family
// name its censored maximum-likelihood fit, and "auto" the family of least
// BIC (exponential has 1 parameter, the others 2).
func Learn(r Runs, fit string) (Learned, error) {
	t, c := r.Observations()
	if !slices.Contains(c, false) {
		return Learned{}, fmt.Errorf("every one of the %d runs is censored (or there are none): nothing tells when runs end", len(t))
	}
	switch {
	case fit == "empirical":
		d, err := distribution.KaplanMeier(t, c)
		return Learned{Law: d, Fit: fit}, err
	case fit != "auto":
		d, err := distribution.FitCensored(fit, t, c)
		if err != nil {
			return Learned{}, err
		}
		return Learned{Law: d, Spec: d.String(), Fit: fit}, nil
	}
	out := Learned{Fit: "auto"}
	best := math.Inf(1)
	for _, fam := range distribution.CensoredFamilies() {
		d, err := distribution.FitCensored(fam, t, c)
		if err != nil {
			out.Fits = append(out.Fits, FamilyFit{Family: fam, Note: err.Error()})
			continue
		}
		k := 2.0
		if fam == "exponential" {
			k = 1
		}
		ll := distribution.CensoredLogLikelihood(d, t, c)
		bic := k*math.Log(float64(len(t))) - 2*ll
		out.Fits = append(out.Fits, FamilyFit{Family: fam, Spec: d.String(), LogLikelihood: ll, BIC: bic})
		if bic < best {
			best, out.Law, out.Spec = bic, d, d.String()
		}
	}
	slices.SortStableFunc(out.Fits, func(a, b FamilyFit) int {
		switch {
		case a.Note != "" || b.Note != "":
			return len(a.Note) - len(b.Note)
		case a.BIC < b.BIC:
			return -1
		case a.BIC > b.BIC:
			return 1
		}
		return 0
	})
	if out.Law == nil {
		return out, fmt.Errorf("no family fits the %d runs", len(t))
	}
	return out, nil
}
