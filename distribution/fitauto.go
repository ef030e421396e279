package distribution

import (
	"fmt"
	"math"
)

// Candidate is one family's maximum-likelihood fit in a FitAuto result.
type Candidate struct {
	// Family is the family name as Parse and Fit spell it.
	Family string
	// Dist is the fitted law; nil when the family was skipped.
	Dist Distribution
	// Params is the number of fitted parameters k: the family's NumParams
	// (4 for truncnormal, whose bounds are estimated too; 1 for
	// exponential; 2 otherwise).
	Params int
	// LogLikelihood is Σ log f(x_i) at the fit.
	LogLikelihood float64
	// AIC is Akaike's criterion 2k − 2·LogLikelihood; lower is better.
	AIC float64
	// BIC is Schwarz's criterion k·log N − 2·LogLikelihood; lower is better.
	BIC float64
	// KS is the Kolmogorov–Smirnov statistic sup |F_N(x) − F(x)| between
	// the empirical CDF and the fit, in [0, 1].
	KS float64
	// Skipped says why the family was not fitted (e.g. a zero sample for a
	// law on (0, ∞)); empty for a fitted candidate.
	Skipped string
}

// FitResult is the outcome of FitAuto.
type FitResult struct {
	// BestAIC is the fitted candidate of least AIC (ties to the earlier
	// family of FitFamilies).
	BestAIC Candidate
	// BestBIC is the fitted candidate of least BIC (ties likewise), the
	// consistent criterion that FitHistory's "auto" uses (see FitAuto).
	BestBIC Candidate
	// Candidates holds every family: the fitted ones by increasing AIC
	// (ties in FitFamilies order), then the skipped ones.
	Candidates []Candidate
}

// FitAuto fits every family of FitFamilies by maximum likelihood and
// reports both the one of least AIC = 2k − 2 log L (BestAIC) and the one of
// least BIC = k log N − 2 log L (BestBIC), ties going to the earlier family
// of FitFamilies. AIC trades likelihood against the number of parameters k
// and estimates which law predicts new walltimes best; the Kolmogorov–
// Smirnov statistic is reported alongside as a goodness-of-fit check, not
// used for the choice, since it ignores k. A family whose support excludes
// a sample (lognormal, gamma and weibull need every sample > 0) or whose
// fit fails is kept in Candidates with the reason in Skipped.
//
// AIC is not consistent between nested families: on data from the smaller
// one, the larger wins whenever twice its log-likelihood gain exceeds twice
// its extra parameters, whatever N. Gamma and Weibull contain the
// exponential (shape 1), and the truncated normal, whose bounds at the
// sample extremes each gain about one log-likelihood unit like a regular
// parameter, contains the normal (and the exponential as μ → −∞). So on
// normal data the truncated normal wins about 40% of the time, and on
// exponential data a containing family about 35% of the time, by a few
// AIC units. Non-nested generators (lognormal, gamma, Weibull with κ ≠ 1,
// a truncated normal with real truncation) are recovered reliably. BestBIC
// (k log N instead of 2k) recovers the nested generators too, which is why
// FitHistory's "auto" uses it.
//
// Samples must number at least 2, be finite and ≥ 0, and not all be equal.
// Cost: one O(N log N) sort plus six O(N)-per-iteration fits.
func FitAuto(samples []float64) (FitResult, error) {
	if err := checkFitSamples("fitauto", samples); err != nil {
		return FitResult{}, err
	}
	fitted, skipped := fitEach(samples, fitFamilies)
	if len(fitted) == 0 {
		return FitResult{Candidates: skipped}, fmt.Errorf("fitauto: no family could be fitted")
	}
	bestBIC := fitted[0]
	for _, c := range fitted[1:] {
		if c.BIC < bestBIC.BIC {
			bestBIC = c
		}
	}
	SortCandidates(fitted, ByAIC)
	return FitResult{BestAIC: fitted[0], BestBIC: bestBIC, Candidates: append(fitted, skipped...)}, nil
}

// LogLikelihood is Σ log f(x_i), using the law's LogPDF when it has one so
// that far outliers do not underflow to −Inf.
func LogLikelihood(d Distribution, samples []float64) float64 {
	lp, ok := d.(logPDFer)
	var terms []float64
	for _, x := range samples {
		if ok {
			terms = append(terms, lp.LogPDF(x))
		} else {
			terms = append(terms, math.Log(d.PDF(x)))
		}
	}
	return compensatedSum(terms)
}

// KSStatistic is the Kolmogorov–Smirnov distance sup_x |F_N(x) − F(x)|
// between the empirical CDF of sorted (ascending) samples and a continuous
// law d: at each distinct value v it compares F(v) with the empirical CDF
// just below and at v. O(N) CDF evaluations.
func KSStatistic(d Distribution, sorted []float64) float64 {
	n := float64(len(sorted))
	var D float64
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		F := d.CDF(sorted[i])
		D = math.Max(D, math.Max(math.Abs(F-float64(i)/n), math.Abs(float64(j)/n-F)))
		i = j
	}
	return D
}
