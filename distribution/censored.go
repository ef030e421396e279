package distribution

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Right-censored observations: a run that never finished (a TIMEOUT, a
// chain that ran out of reservations) tells that its walltime exceeds the
// time it ran, not what it is. Dropping such runs biases the law towards
// short runs; these estimators use them.

// checkCensored validates observations t with censoring flags.
func checkCensored(what string, t []float64, censored []bool) (complete int, err error) {
	if len(t) != len(censored) {
		return 0, fmt.Errorf("%s: %d observations but %d censoring flags", what, len(t), len(censored))
	}
	for i, x := range t {
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%s: observation %d is %v, want finite and > 0", what, i+1, x)
		}
		if !censored[i] {
			complete++
		}
	}
	if complete == 0 {
		return 0, fmt.Errorf("%s: every one of the %d observations is censored: nothing tells when runs end", what, len(t))
	}
	return complete, nil
}

// KaplanMeier returns the Kaplan–Meier (product-limit) estimate of the law
// of walltimes t, where censored[i] says that run i was still going at
// t[i]: at each distinct complete time u_j with d_j runs ending and n_j
// runs at risk (time ≥ u_j, censored runs at u_j included),
// S(u_j) = Π_{i≤j} (1 − d_i/n_i). The law is discrete on the complete
// times, with mass S(u_{j−1}) − S(u_j); the mass S(u_last) left when the
// longest runs are censored is put on the longest observation (the
// estimate says nothing beyond it). Without censoring it equals the
// empirical law. O(N log N) time, O(N) memory.
func KaplanMeier(t []float64, censored []bool) (*Discrete, error) {
	if _, err := checkCensored("Kaplan-Meier", t, censored); err != nil {
		return nil, err
	}
	idx := make([]int, len(t))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return t[idx[a]] < t[idx[b]] })
	var values, probs []float64
	s, atRisk := 1.0, len(t)
	for i := 0; i < len(idx); {
		u, d, c := t[idx[i]], 0, 0
		for ; i < len(idx) && t[idx[i]] == u; i++ {
			if censored[idx[i]] {
				c++
			} else {
				d++
			}
		}
		if d > 0 {
			next := s * (1 - float64(d)/float64(atRisk))
			values, probs = append(values, u), append(probs, s-next)
			s = next
		}
		atRisk -= d + c
	}
	if s > 1e-15 {
		last := t[idx[len(idx)-1]]
		if values[len(values)-1] == last {
			probs[len(probs)-1] += s
		} else {
			values, probs = append(values, last), append(probs, s)
		}
	}
	return NewDiscrete(values, probs)
}

// CensoredLogLikelihood is Σ log f(t_i) over complete runs plus
// Σ log S(t_i) over censored ones.
func CensoredLogLikelihood(d Distribution, t []float64, censored []bool) float64 {
	ll := 0.0
	for i, x := range t {
		if censored[i] {
			ll += math.Log(d.Survival(x))
		} else if lp, ok := d.(logPDFer); ok {
			ll += lp.LogPDF(x)
		} else {
			ll += math.Log(d.PDF(x))
		}
	}
	return ll
}

// censoredFamilies maps a family to its parameterisation on R² (or R for
// the exponential) used by FitCensored.
var censoredFamilies = map[string]func(p []float64) Distribution{
	"lognormal": func(p []float64) Distribution { return LogNormal{Mu: p[0], Sigma: math.Exp(p[1])} },
	"weibull":   func(p []float64) Distribution { return Weibull{K: math.Exp(p[0]), Lambda: math.Exp(p[1])} },
	"gamma":     func(p []float64) Distribution { return Gamma{Alpha: math.Exp(p[0]), Beta: math.Exp(p[1])} },
	"normal":    func(p []float64) Distribution { return Normal{Mu: p[0], Sigma: math.Exp(p[1])} },
}

// noCensoredFit says why a family of FitFamilies has no censored fit.
var noCensoredFit = map[string]string{
	"truncnormal": "no censored fit: its bounds are the extremes of complete samples",
}

// CensoredFamilies returns the families FitCensored accepts.
func CensoredFamilies() []string {
	out := []string{"exponential", "pareto"}
	for f := range censoredFamilies {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// FitCensored returns the maximum-likelihood law of the family for
// walltimes t of which censored[i] are right-censored: it maximises
// CensoredLogLikelihood. Without censored runs it is Fit. The exponential
// has the closed form rate = (complete runs) / Σ t_i; lognormal, weibull,
// gamma and normal are maximised by Nelder–Mead on (location or log
// shape, log scale), from Fit on all the times as if complete; the
// Pareto has the closed form x_m = min t_i, α = (complete runs) /
// Σ log(t_i/x_m). Each likelihood evaluation is O(N); the search takes a
// few hundred.
func FitCensored(family string, t []float64, censored []bool) (Distribution, error) {
	what := "censored fit " + family
	complete, err := checkCensored(what, t, censored)
	if err != nil {
		return nil, err
	}
	if complete == len(t) {
		return Fit(family, t)
	}
	if family == "exponential" {
		sum := 0.0
		for _, x := range t {
			sum += x
		}
		return Exponential{Rate: float64(complete) / sum}, nil
	}
	if family == "pareto" {
		return fitParetoCensored(what, t, complete)
	}
	build, ok := censoredFamilies[family]
	if !ok {
		return nil, fmt.Errorf("%s: unknown family; want one of %v", what, CensoredFamilies())
	}
	start, err := Fit(family, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var x0 []float64
	switch s := start.(type) {
	case LogNormal:
		x0 = []float64{s.Mu, math.Log(s.Sigma)}
	case Weibull:
		x0 = []float64{math.Log(s.K), math.Log(s.Lambda)}
	case Gamma:
		x0 = []float64{math.Log(s.Alpha), math.Log(s.Beta)}
	case Normal:
		x0 = []float64{s.Mu, math.Log(s.Sigma)}
	}
	nll := func(p []float64) float64 {
		d := build(p)
		if err := validate(d); err != nil {
			return math.Inf(1)
		}
		v := -CensoredLogLikelihood(d, t, censored)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	x, f := nelderMead2(nll, [2]float64{x0[0], x0[1]})
	d := build(x[:])
	if err := validate(d); err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s: the likelihood has no finite maximum", what)
	}
	return d, nil
}

// nelderMead2 minimises f on R² by the Nelder–Mead simplex (reflection 1,
// expansion 2, contraction ½, shrink ½) from x0 with initial steps 0.1,
// until the simplex's values agree to 1e-10 (relative) or 2000 iterations.
func nelderMead2(f func([]float64) float64, x0 [2]float64) ([2]float64, float64) {
	type pt struct {
		x [2]float64
		f float64
	}
	eval := func(x [2]float64) pt { return pt{x, f(x[:])} }
	s := [3]pt{eval(x0), eval([2]float64{x0[0] + 0.1, x0[1]}), eval([2]float64{x0[0], x0[1] + 0.1})}
	lerp := func(a, b [2]float64, t float64) [2]float64 {
		return [2]float64{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1])}
	}
	for range 2000 {
		sort.Slice(s[:], func(i, j int) bool { return s[i].f < s[j].f })
		if math.Abs(s[2].f-s[0].f) <= 1e-10*(math.Abs(s[0].f)+1e-10) {
			break
		}
		c := lerp(s[0].x, s[1].x, 0.5) // centroid of the best two
		r := eval(lerp(s[2].x, c, 2))
		switch {
		case r.f < s[0].f:
			if e := eval(lerp(s[2].x, c, 3)); e.f < r.f {
				s[2] = e
			} else {
				s[2] = r
			}
		case r.f < s[1].f:
			s[2] = r
		default:
			k := eval(lerp(s[2].x, c, 0.5))
			if r.f < s[2].f {
				k = eval(lerp(s[2].x, c, 1.5))
			}
			if k.f < math.Min(r.f, s[2].f) {
				s[2] = k
				continue
			}
			for i := 1; i < 3; i++ {
				s[i] = eval(lerp(s[0].x, s[i].x, 0.5))
			}
		}
	}
	sort.Slice(s[:], func(i, j int) bool { return s[i].f < s[j].f })
	return s[0].x, s[0].f
}

// fitParetoCensored is the closed-form censored maximum-likelihood Pareto:
// the likelihood grows with x_m up to the least observation, complete or
// not, and then α = d / Σ log(t_i/x_m).
func fitParetoCensored(what string, t []float64, complete int) (Distribution, error) {
	xm := slices.Min(t)
	logs := make([]float64, len(t))
	for i, x := range t {
		logs[i] = math.Log(x / xm)
	}
	s := compensatedSum(logs)
	if !(s > 0) {
		return nil, fmt.Errorf("%s: all observations equal %v; there is no spread to fit", what, xm)
	}
	return Pareto{Xm: xm, Alpha: float64(complete) / s}, nil
}

// FitHistoryCensored is FitHistory for runs t of which censored[i] are
// right-censored (the run was still going at t[i]). Without censored runs
// it is FitHistory itself. Otherwise: MethodEmpirical is the Kaplan–Meier
// estimate; a family is its censored maximum-likelihood fit (FitCensored;
// truncnormal has none); MethodAuto fits every family of FitFamilies that
// has one and keeps the one of least BIC = k log N − 2 log L, with L the
// censored likelihood (CensoredLogLikelihood), k the law's NumParams and N
// all the runs, complete and censored; the candidates are ranked by BIC,
// skipped ones last. KS is NaN: the Kolmogorov–Smirnov check needs
// complete samples. At least 2 runs, one of them complete, are needed.
// Cost: that of FitCensored per family fitted.
func FitHistoryCensored(t []float64, censored []bool, method string) (HistoryFit, error) {
	if !slices.Contains(censored, true) {
		return FitHistory(t, method)
	}
	out := HistoryFit{Method: method, Runs: len(t), KS: math.NaN(), KSCritical: math.NaN()}
	if err := CheckFitMethod(method); err != nil {
		return out, err
	}
	if _, err := checkCensored("censored fit", t, censored); err != nil {
		return out, err
	}
	if len(t) < 2 {
		return out, fmt.Errorf("history has %d run(s); at least 2 are needed to estimate a walltime law", len(t))
	}
	switch method {
	case MethodEmpirical:
		d, err := KaplanMeier(t, censored)
		out.Law = d
		return out, err
	case MethodAuto:
	default:
		if why, ok := noCensoredFit[method]; ok {
			return out, fmt.Errorf("--fit %s: %s; use auto, empirical or one of %s", method, why, strings.Join(CensoredFamilies(), ", "))
		}
		d, err := FitCensored(method, t, censored)
		out.Law = d
		return out, err
	}
	var fitted, skipped []Candidate
	for _, fam := range fitFamilies {
		c := Candidate{Family: fam, KS: math.NaN()}
		c.Params, _ = FamilyParams(fam)
		var d Distribution
		var err error
		if why, ok := noCensoredFit[fam]; ok {
			err = errors.New(why)
		} else {
			d, err = FitCensored(fam, t, censored)
		}
		if err == nil {
			c.LogLikelihood = CensoredLogLikelihood(d, t, censored)
			if math.IsNaN(c.LogLikelihood) || math.IsInf(c.LogLikelihood, 0) {
				err = fmt.Errorf("censored fit %s: log-likelihood is %v", fam, c.LogLikelihood)
			}
		}
		if err != nil {
			c.Skipped = err.Error()
			skipped = append(skipped, c)
			continue
		}
		k := float64(c.Params)
		c.Dist, c.AIC, c.BIC = d, 2*k-2*c.LogLikelihood, k*math.Log(float64(len(t)))-2*c.LogLikelihood
		fitted = append(fitted, c)
	}
	if len(fitted) == 0 {
		return out, fmt.Errorf("censored fit: no family could be fitted")
	}
	SortCandidates(fitted, ByBIC)
	out.Candidates, out.Law = append(fitted, skipped...), fitted[0].Dist
	return out, nil
}
