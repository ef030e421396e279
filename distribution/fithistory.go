package distribution

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Fitting methods of FitHistory besides the family names of FitFamilies.
const (
	// MethodAuto fits every family and keeps the one of least BIC.
	MethodAuto = "auto"
	// MethodEmpirical takes the runs themselves as the law (Empirical).
	MethodEmpirical = "empirical"
)

// FitMethods lists the methods FitHistory accepts: auto, empirical, then
// the families of FitFamilies.
func FitMethods() []string { return append([]string{MethodAuto, MethodEmpirical}, fitFamilies...) }

// CheckFitMethod reports whether method is one FitHistory accepts.
func CheckFitMethod(method string) error {
	if slices.Contains(FitMethods(), method) {
		return nil
	}
	return fmt.Errorf("--fit %q is not auto, empirical or one of %s", method, strings.Join(fitFamilies, ", "))
}

// HistoryFit is the law FitHistory derives from past walltimes.
type HistoryFit struct {
	// Law is the law to plan with.
	Law Distribution
	// Method is the method used (auto, empirical or a family).
	Method string
	// Candidates are, for MethodAuto, every family ranked by increasing BIC
	// (the criterion of the choice), the skipped ones last; empty otherwise.
	Candidates []Candidate
	// KS is the Kolmogorov–Smirnov statistic of Law against the runs, NaN
	// for the empirical law (which fits them by construction).
	KS float64
	// KSCritical is KSCritical(runs), NaN when KS is.
	KSCritical float64
	// Runs is the number of walltimes fitted.
	Runs int
}

// KSFails reports whether the fitted law fails the Kolmogorov–Smirnov check
// at the 1% level (KS > KSCritical).
func (h HistoryFit) KSFails() bool { return !math.IsNaN(h.KS) && h.KS > h.KSCritical }

// Warning is the one-line warning the CLI prints when KSFails, naming the
// history source; empty when the check passes.
func (h HistoryFit) Warning(source string) string {
	if !h.KSFails() {
		return ""
	}
	return fmt.Sprintf("the fitted law %v fails the Kolmogorov-Smirnov check on the %d runs of %s: KS statistic %.3g > %.3g, the 1%% critical value 1.63/sqrt(%d); the runs may be bimodal or from another family, and --fit empirical plans on the runs themselves",
		h.Law, h.Runs, source, h.KS, h.KSCritical, h.Runs)
}

// KSCritical is the 1% critical value of the Kolmogorov–Smirnov statistic
// for n samples, 1.63/√n (Kolmogorov's asymptotic value). It is for a law
// fixed in advance; a law fitted to the same samples sits closer to them,
// so the check is conservative: a fit that fails it is certainly poor.
func KSCritical(n int) float64 { return 1.63 / math.Sqrt(float64(n)) }

// FitHistory turns past walltimes into the law to plan with: the empirical
// law itself (MethodEmpirical), the family of least BIC (MethodAuto), or a
// named family of FitFamilies fitted by maximum likelihood.
//
// MethodAuto uses BIC rather than AIC: with nested candidates (normal
// inside truncnormal, exponential inside gamma and weibull) AIC often
// prefers the larger family on data drawn from the smaller one, and a
// fitted truncnormal puts no probability above the longest run seen, so a
// plan for it stops exactly there. BIC's stronger penalty picks the
// generating family far more reliably (see FitAuto and its tests).
//
// At least 2 runs are needed. Cost: that of FitAuto for MethodAuto, one fit
// and an O(N log N) sort for a family, O(N log N) for the empirical law.
func FitHistory(values []float64, method string) (HistoryFit, error) {
	out := HistoryFit{Method: method, Runs: len(values), KS: math.NaN(), KSCritical: math.NaN()}
	if len(values) < 2 {
		return out, fmt.Errorf("history has %d run(s); at least 2 are needed to estimate a walltime law", len(values))
	}
	if err := CheckFitMethod(method); err != nil {
		return out, err
	}
	switch method {
	case MethodEmpirical:
		d, err := Empirical(values)
		out.Law = d
		return out, err
	case MethodAuto:
		r, err := FitAuto(values)
		if err != nil {
			return out, err
		}
		n := 0
		for n < len(r.Candidates) && r.Candidates[n].Skipped == "" {
			n++
		}
		out.Candidates = slices.Clone(r.Candidates)
		SortCandidates(out.Candidates[:n], ByBIC)
		out.Law, out.KS = r.BestBIC.Dist, r.BestBIC.KS
	default:
		d, err := Fit(method, values)
		if err != nil {
			return out, err
		}
		out.Law, out.KS = d, KSStatistic(d, slices.Sorted(slices.Values(values)))
	}
	out.KSCritical = KSCritical(len(values))
	return out, nil
}
