package distribution

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// fitFamilies are the families Fit knows, in the order FitAuto lists them.
var fitFamilies = []string{"normal", "lognormal", "gamma", "weibull", "exponential", "truncnormal", "pareto"}

// FitFamilies returns the families Fit accepts.
func FitFamilies() []string { return append([]string(nil), fitFamilies...) }

// Fit returns the maximum-likelihood law of the given family for samples of
// job durations:
//
//   - "normal": μ = sample mean, σ² = mean squared deviation (divisor N).
//   - "lognormal": the normal fit of log x (samples must be > 0).
//   - "exponential": λ = 1/mean.
//   - "gamma": α solves log α − ψ(α) = log x̄ − mean(log x) by a safeguarded
//     Newton iteration (trigamma derivative, bisection fallback), β = α/x̄
//     (samples must be > 0).
//   - "weibull": κ solves Σx^κ log x / Σx^κ − 1/κ − mean(log x) = 0, the same
//     way, and λ = (mean x^κ)^{1/κ} (samples must be > 0).
//   - "pareto": x_m = min x_i (the likelihood grows with x_m up to the
//     smallest sample) and α = N / Σ log(x_i/x_m) (samples must be > 0).
//   - "truncnormal": A and B are the sample minimum and maximum (their
//     maximum-likelihood values) and (μ, log σ) maximise the likelihood by
//     damped Newton steps on the analytic gradient, from the normal fit. When the data
//     are flatter than any normal the optimum runs off to large σ; the
//     search stops when the gradient vanishes, which yields a nearly
//     uniform or exponential-shaped law on [A, B].
//
// Samples must number at least 2, be finite and ≥ 0, and not all be equal.
// Each fit is O(N) per iteration; Gamma and Weibull converge in well under
// 50 iterations, and the truncated normal works on two O(N) sufficient
// statistics.
func Fit(family string, samples []float64) (Distribution, error) {
	fam := strings.ToLower(strings.TrimSpace(family))
	what := "fit " + fam
	if err := checkFitSamples(what, samples); err != nil {
		return nil, err
	}
	switch fam {
	case "normal":
		m, s := meanSD(samples)
		return Normal{Mu: m, Sigma: s}, nil
	case "lognormal":
		logs, err := logSamples(what, samples)
		if err != nil {
			return nil, err
		}
		m, s := meanSD(logs)
		if !(s > 0) {
			return nil, fmt.Errorf("%s: the logarithms of the samples do not vary", what)
		}
		return LogNormal{Mu: m, Sigma: s}, nil
	case "exponential":
		m, _ := meanSD(samples)
		return Exponential{Rate: 1 / m}, nil
	case "gamma":
		return fitGamma(what, samples)
	case "weibull":
		return fitWeibull(what, samples)
	case "truncnormal":
		return fitTruncNormal(what, samples)
	case "pareto":
		return fitPareto(what, samples)
	}
	return nil, fmt.Errorf("fit: unknown family %q (want one of %s)", family, strings.Join(fitFamilies, ", "))
}

// checkFitSamples is checkSamples with N ≥ 2 and not all equal.
func checkFitSamples(what string, samples []float64) error {
	if err := checkSamples(what, samples, 2); err != nil {
		return err
	}
	for _, x := range samples[1:] {
		if x != samples[0] {
			return nil
		}
	}
	return fmt.Errorf("%s: all %d samples equal %v; there is no spread to fit", what, len(samples), samples[0])
}

// meanSD is the mean and the maximum-likelihood standard deviation
// (divisor N), by two passes.
func meanSD(xs []float64) (mean, sd float64) {
	mean = compensatedSum(xs) / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)))
}

// logSamples returns log x, rejecting zeros.
func logSamples(what string, samples []float64) ([]float64, error) {
	logs := make([]float64, len(samples))
	for i, x := range samples {
		if !(x > 0) {
			return nil, fmt.Errorf("%s: sample %d is %v; the family needs values > 0", what, i, x)
		}
		logs[i] = math.Log(x)
	}
	return logs, nil
}

// bracketRoot widens [lo, hi] geometrically around x0 until the increasing
// function h changes sign, and reports whether it did.
func bracketRoot(h func(float64) float64, x0 float64) (lo, hi float64, ok bool) {
	lo, hi = x0, x0
	for range 200 {
		if h(lo) < 0 {
			break
		}
		lo /= 2
	}
	for range 200 {
		if h(hi) > 0 {
			break
		}
		hi *= 2
	}
	return lo, hi, h(lo) < 0 && h(hi) > 0
}

// fitGamma solves the digamma equation log α − ψ(α) = s.
func fitGamma(what string, samples []float64) (Distribution, error) {
	if _, err := logSamples(what, samples); err != nil {
		return nil, err
	}
	m := compensatedSum(samples) / float64(len(samples))
	// s = log m − mean(log x) = −mean(log1p((x−m)/m)) ≥ 0, without the
	// cancellation of the first form for tightly clustered data.
	var s float64
	for _, x := range samples {
		s -= math.Log1p((x - m) / m)
	}
	s /= float64(len(samples))
	if !(s > 0) {
		return nil, fmt.Errorf("%s: samples too tightly clustered to fit (log-mean gap %v)", what, s)
	}
	// h(α) = ψ(α) − log α + s increases from −∞ to s.
	h := func(a float64) float64 { return mathext.Digamma(a) - math.Log(a) + s }
	dh := func(a float64) float64 { return trigamma(a) - 1/a }
	a0 := (3 - s + math.Sqrt((s-3)*(s-3)+24*s)) / (12 * s) // Minka's start
	lo, hi, ok := bracketRoot(h, a0)
	if !ok {
		return nil, fmt.Errorf("%s: no root of the shape equation near %v", what, a0)
	}
	alpha := solveIncreasing(h, dh, 0, lo, hi, a0)
	g := Gamma{Alpha: alpha, Beta: alpha / m}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return g, nil
}

// fitWeibull solves the shape equation on y = x/max(x) to avoid overflow.
func fitWeibull(what string, samples []float64) (Distribution, error) {
	logs, err := logSamples(what, samples)
	if err != nil {
		return nil, err
	}
	lmax := math.Inf(-1)
	for _, l := range logs {
		lmax = math.Max(lmax, l)
	}
	ly := make([]float64, len(logs))
	var meanLy float64
	for i, l := range logs {
		ly[i] = l - lmax
		meanLy += ly[i]
	}
	meanLy /= float64(len(ly))
	// moments returns Σw, Σw·ly/Σw, Σw·ly²/Σw for w = y^k.
	moments := func(k float64) (sw, m1, m2 float64) {
		for _, l := range ly {
			w := math.Exp(k * l)
			sw += w
			m1 += w * l
			m2 += w * l * l
		}
		return sw, m1 / sw, m2 / sw
	}
	h := func(k float64) float64 {
		_, m1, _ := moments(k)
		return m1 - 1/k - meanLy
	}
	dh := func(k float64) float64 {
		_, m1, m2 := moments(k)
		return m2 - m1*m1 + 1/(k*k)
	}
	_, sdLog := meanSD(logs)
	k0 := 1.2 / math.Max(sdLog, 1e-12)
	lo, hi, ok := bracketRoot(h, k0)
	if !ok {
		return nil, fmt.Errorf("%s: no root of the shape equation near %v", what, k0)
	}
	k := solveIncreasing(h, dh, 0, lo, hi, k0)
	sw, _, _ := moments(k)
	lambda := math.Exp(lmax + math.Log(sw/float64(len(ly)))/k)
	w := Weibull{K: k, Lambda: lambda}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return w, nil
}

// fitTruncNormal maximises the truncated-normal likelihood with the bounds
// at the sample extremes. In standardised units u = (x − x̄)/s the mean
// negative log-likelihood per sample is
//
//	ℓ(μ, σ) = log σ + (1 + μ²)/(2σ²) + log[Φ(β) − Φ(α)] (+ const),
//
// α = (u_min − μ)/σ, β = (u_max − μ)/σ, minimised over (μ, θ = log σ).
func fitTruncNormal(what string, samples []float64) (Distribution, error) {
	m, sd := meanSD(samples)
	lo, hi := samples[0], samples[0]
	for _, x := range samples {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	ua, ub := (lo-m)/sd, (hi-m)/sd
	nll := func(mu, theta float64) (f, dmu, dtheta float64) {
		s := math.Exp(theta)
		a, b := (ua-mu)/s, (ub-mu)/s
		pa, pb := stdTruncPDF(a, b, a), stdTruncPDF(a, b, b)
		f = theta + (1+mu*mu)/(2*s*s) + logNormalInterval(a, b)
		dmu = mu/(s*s) + (pa-pb)/s
		dtheta = 1 - (1+mu*mu)/(s*s) + a*pa - b*pb
		return f, dmu, dtheta
	}
	eval := func(x [2]float64) (float64, [2]float64) {
		if math.Abs(x[0]) > 1e6 || math.Abs(x[1]) > 30 {
			return math.Inf(1), [2]float64{}
		}
		f, g0, g1 := nll(x[0], x[1])
		return f, [2]float64{g0, g1}
	}
	best := minimize2D(eval, [2]float64{0, 0})
	t := TruncatedNormal{Mu: m + sd*best[0], Sigma: sd * math.Exp(best[1]), A: lo, B: hi}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return t, nil
}

// minimize2D minimises f from x0 by Levenberg–Marquardt-damped Newton
// steps: the gradient is analytic, the Hessian its central difference, and
// a step is taken only when it lowers f. It stops when the gradient's
// largest component is below 1e-11, when no damping yields a decrease, or
// after 500 steps.
func minimize2D(f func([2]float64) (float64, [2]float64), x0 [2]float64) [2]float64 {
	x := x0
	fx, g := f(x)
	if math.IsInf(fx, 0) || math.IsNaN(fx) {
		return x
	}
	lambda := 1e-3
	for range 500 {
		if math.Max(math.Abs(g[0]), math.Abs(g[1])) < 1e-11 {
			break
		}
		var H [2][2]float64
		for j := range 2 {
			h := 1e-5 * math.Max(1, math.Abs(x[j]))
			xp, xm := x, x
			xp[j] += h
			xm[j] -= h
			_, gp := f(xp)
			_, gm := f(xm)
			for i := range 2 {
				H[i][j] = (gp[i] - gm[i]) / (2 * h)
			}
		}
		H[0][1] = 0.5 * (H[0][1] + H[1][0])
		H[1][0] = H[0][1]
		moved := false
		for lambda < 1e12 {
			a, b, c := H[0][0]+lambda, H[0][1], H[1][1]+lambda
			det := a*c - b*b
			if !(a > 0 && det > 0) {
				lambda *= 10
				continue
			}
			p := [2]float64{-(c*g[0] - b*g[1]) / det, -(a*g[1] - b*g[0]) / det}
			xn := [2]float64{x[0] + p[0], x[1] + p[1]}
			fn, gn := f(xn)
			if fn < fx {
				x, fx, g = xn, fn, gn
				lambda = math.Max(lambda/10, 1e-12)
				moved = true
				break
			}
			lambda *= 10
		}
		if !moved {
			break
		}
	}
	return x
}

// fitPareto is the maximum-likelihood Pareto (type I) law. O(N).
func fitPareto(what string, samples []float64) (Distribution, error) {
	xm := math.Inf(1)
	for i, x := range samples {
		if !(x > 0) {
			return nil, fmt.Errorf("%s: sample %d is %v; the family needs values > 0", what, i, x)
		}
		xm = math.Min(xm, x)
	}
	logs := make([]float64, len(samples))
	for i, x := range samples {
		logs[i] = math.Log(x / xm)
	}
	s := compensatedSum(logs)
	if !(s > 0) {
		return nil, fmt.Errorf("%s: all samples equal %v; there is no spread to fit", what, xm)
	}
	return Pareto{Xm: xm, Alpha: float64(len(samples)) / s}, nil
}
