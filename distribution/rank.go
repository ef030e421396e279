package distribution

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// ParamCounter is implemented by the fittable families: NumParams is the
// number k of parameters maximum likelihood estimates for the family, the
// k of the information criteria AIC = 2k − 2 log L and BIC = k log N − 2 log L.
type ParamCounter interface {
	NumParams() int
}

// NumParams is 2 (μ, σ).
func (Normal) NumParams() int { return 2 }

// NumParams is 2 (μ, σ of log X).
func (LogNormal) NumParams() int { return 2 }

// NumParams is 2 (shape, rate).
func (Gamma) NumParams() int { return 2 }

// NumParams is 2 (κ, λ).
func (Weibull) NumParams() int { return 2 }

// NumParams is 1 (the rate).
func (Exponential) NumParams() int { return 1 }

// NumParams is 4: μ and σ, and the bounds a and b, which Fit estimates too
// (at the sample extremes).
func (TruncatedNormal) NumParams() int { return 4 }

// NumParams is 2 (the scale x_m, estimated as the sample minimum, and α).
func (Pareto) NumParams() int { return 2 }

// FamilyParams is the number of parameters Fit estimates for a family of
// FitFamilies.
func FamilyParams(family string) (int, error) {
	if d, ok := familyZero[family]; ok {
		return d.NumParams(), nil
	}
	return 0, fmt.Errorf("fit: unknown family %q", family)
}

// familyZero holds a zero value of each fittable family, for FamilyParams.
var familyZero = map[string]ParamCounter{
	"normal": Normal{}, "lognormal": LogNormal{}, "gamma": Gamma{}, "weibull": Weibull{},
	"exponential": Exponential{}, "truncnormal": TruncatedNormal{}, "pareto": Pareto{},
}

// Criterion is an information criterion by which fitted families are ranked.
type Criterion int

const (
	// ByAIC ranks by Akaike's criterion 2k − 2 log L.
	ByAIC Criterion = iota
	// ByBIC ranks by Schwarz's criterion k log N − 2 log L.
	ByBIC
)

// FitRanked fits each of families to samples by maximum likelihood (Fit)
// and returns one Candidate per family: the fitted ones by increasing
// criterion (ties keep the order of families), then the skipped ones (a
// failed fit, or a log-likelihood that is not finite) in the order of
// families, with the reason in Skipped. k is the fitted law's NumParams.
// Cost: one O(N log N) sort plus one fit and O(N) evaluations per family.
func FitRanked(samples []float64, families []string, by Criterion) []Candidate {
	fitted, skipped := fitEach(samples, families)
	SortCandidates(fitted, by)
	return append(fitted, skipped...)
}

// fitEach fits every family, returning the fitted candidates and the
// skipped ones, each in the order of families.
func fitEach(samples []float64, families []string) (fitted, skipped []Candidate) {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	for _, fam := range families {
		c := Candidate{Family: fam}
		c.Params, _ = FamilyParams(fam)
		d, err := Fit(fam, samples)
		if err != nil {
			c.Skipped = err.Error()
			skipped = append(skipped, c)
			continue
		}
		if pc, ok := d.(ParamCounter); ok {
			c.Params = pc.NumParams()
		}
		c.Dist = d
		c.LogLikelihood = LogLikelihood(d, samples)
		if math.IsNaN(c.LogLikelihood) || math.IsInf(c.LogLikelihood, 0) {
			c.Dist = nil
			c.Skipped = fmt.Sprintf("fit %s: log-likelihood is %v", fam, c.LogLikelihood)
			skipped = append(skipped, c)
			continue
		}
		k := float64(c.Params)
		c.AIC = 2*k - 2*c.LogLikelihood
		c.BIC = k*math.Log(float64(len(samples))) - 2*c.LogLikelihood
		c.KS = KSStatistic(d, sorted)
		fitted = append(fitted, c)
	}
	return fitted, skipped
}

// SortCandidates sorts fitted candidates by increasing criterion, stably.
func SortCandidates(cs []Candidate, by Criterion) {
	key := func(c Candidate) float64 { return c.AIC }
	if by == ByBIC {
		key = func(c Candidate) float64 { return c.BIC }
	}
	sort.SliceStable(cs, func(i, j int) bool { return key(cs[i]) < key(cs[j]) })
}
