package distribution

import (
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"
)

// censoredSample draws n walltimes of law d; a run longer than budget is
// censored at budget (the chain ran out of reservations).
func censoredSample(d Distribution, n int, budget float64, seed uint64) (t []float64, censored []bool) {
	r := rng.New(seed)
	for range n {
		w := d.Rand(r)
		t, censored = append(t, math.Min(w, budget)), append(censored, w > budget)
	}
	return t, censored
}

// On runs of a known law censored at its 70% quantile, the censored fit
// recovers the law (mean and parameters within a few percent) where the fit
// of the complete runs alone is biased low.
func TestFitCensoredRecoversTheLaw(t *testing.T) {
	truth := LogNormal{Mu: math.Log(420) - 0.18, Sigma: 0.6} // mean 7 min
	budget := truth.Quantile(0.7)
	ts, cs := censoredSample(truth, 4000, budget, 12)
	var complete []float64
	for i, x := range ts {
		if !cs[i] {
			complete = append(complete, x)
		}
	}
	fit, err := FitCensored("lognormal", ts, cs)
	if err != nil {
		t.Fatal(err)
	}
	naive, _ := Fit("lognormal", complete)
	got, bad := fit.(LogNormal), naive.(LogNormal)
	t.Logf("truth %v (mean %.0f s); censored fit %v (mean %.0f s); complete runs only %v (mean %.0f s); %d of %d censored",
		truth, truth.Mean(), got, got.Mean(), bad, bad.Mean(), len(ts)-len(complete), len(ts))
	if relErr(got.Mean(), truth.Mean()) > 0.04 || math.Abs(got.Sigma-truth.Sigma) > 0.04 || math.Abs(got.Mu-truth.Mu) > 0.04 {
		t.Errorf("censored fit %v does not recover %v", got, truth)
	}
	if !(bad.Mean() < 0.8*truth.Mean()) {
		t.Errorf("dropping censored runs should be biased low: mean %.0f vs %.0f", bad.Mean(), truth.Mean())
	}
	for _, fam := range []string{"weibull", "gamma", "exponential"} {
		if _, err := FitCensored(fam, ts, cs); err != nil {
			t.Errorf("%s: %v", fam, err)
		}
	}
	// The exponential's closed form against the oracle: rate = d / Σt.
	e := Exponential{Rate: 1.0 / 300}
	ts, cs = censoredSample(e, 4000, 400, 13)
	fe, _ := FitCensored("exponential", ts, cs)
	if relErr(fe.(Exponential).Rate, e.Rate) > 0.05 {
		t.Errorf("exponential: %v, want %v", fe, e)
	}
	// Weibull recovered too.
	w := Weibull{K: 1.5, Lambda: 600}
	ts, cs = censoredSample(w, 4000, w.Quantile(0.6), 14)
	fw, err := FitCensored("weibull", ts, cs)
	if err != nil || relErr(fw.(Weibull).K, w.K) > 0.06 || relErr(fw.(Weibull).Lambda, w.Lambda) > 0.04 {
		t.Errorf("weibull: %v (%v), want %v", fw, err, w)
	}
}

// Kaplan–Meier: survival below the censoring time matches the true law,
// and without censoring it is the empirical law.
func TestKaplanMeier(t *testing.T) {
	truth := LogNormal{Mu: 6, Sigma: 0.6}
	budget := truth.Quantile(0.7)
	ts, cs := censoredSample(truth, 4000, budget, 15)
	km, err := KaplanMeier(ts, cs)
	if err != nil {
		t.Fatal(err)
	}
	var complete []float64
	for i, x := range ts {
		if !cs[i] {
			complete = append(complete, x)
		}
	}
	naive, _ := Empirical(complete)
	for _, p := range []float64{0.2, 0.5, 0.65} {
		x := truth.Quantile(p)
		if d := math.Abs(km.CDF(x) - p); d > 0.025 {
			t.Errorf("KM CDF(Q(%v)) = %.3f", p, km.CDF(x))
		}
		if !(naive.CDF(x) > p+0.05) {
			t.Errorf("complete runs only: CDF(Q(%v)) = %.3f, want biased high", p, naive.CDF(x))
		}
	}
	if m := km.CDF(budget - 1e-9); math.Abs(m-0.7) > 0.025 {
		t.Errorf("KM mass below the budget %.3f, want 0.7", m)
	}
	// Hand-computed example: times 1 2+ 3 4+ 5 (+ censored):
	// S(1) = 4/5, S(3) = 4/5·(1 − 1/3) = 8/15, S(5) = 0.
	km, _ = KaplanMeier([]float64{1, 2, 3, 4, 5}, []bool{false, true, false, true, false})
	for _, c := range []struct{ x, want float64 }{{1, 0.2}, {2.5, 0.2}, {3, 7.0 / 15}, {5, 1}} {
		if got := km.CDF(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("CDF(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	// Longest run censored: its survival mass sits at it.
	km, _ = KaplanMeier([]float64{1, 2, 3}, []bool{false, false, true})
	if math.Abs(km.PDF(3)-1.0/3) > 1e-12 {
		t.Errorf("tail mass %v, want 1/3 at 3", km.PDF(3))
	}
	e, _ := Empirical([]float64{3, 1, 2, 2})
	km, _ = KaplanMeier([]float64{3, 1, 2, 2}, make([]bool, 4))
	for _, x := range []float64{1, 2, 3} {
		if math.Abs(km.CDF(x)-e.CDF(x)) > 1e-12 {
			t.Errorf("uncensored KM differs from the empirical law at %v", x)
		}
	}
	if _, err := KaplanMeier([]float64{1, 2}, []bool{true, true}); err == nil {
		t.Error("all censored accepted")
	}
}

// FitHistoryCensored without censored runs is FitHistory; with them, auto
// ranks the families by censored BIC (k = NumParams) and recovers the
// generating family, nested ones included (the exponential inside gamma
// and weibull), where the complete runs alone are biased low.
func TestFitHistoryCensored(t *testing.T) {
	truth := LogNormal{Mu: math.Log(420) - 0.18, Sigma: 0.6}
	ts, cs := censoredSample(truth, 2000, truth.Quantile(0.7), 21)
	plain, _ := FitHistory(ts, MethodAuto)
	same, err := FitHistoryCensored(ts, make([]bool, len(ts)), MethodAuto)
	if err != nil || same.Law.String() != plain.Law.String() || len(same.Candidates) != len(plain.Candidates) {
		t.Errorf("uncensored: %v %v, want FitHistory's %v", same.Law, err, plain.Law)
	}
	for _, c := range []struct {
		truth  Distribution
		family string
		seed   uint64
	}{{truth, "lognormal", 21}, {Weibull{K: 1.7, Lambda: 500}, "weibull", 22}, {Exponential{Rate: 1.0 / 300}, "exponential", 23}} {
		ts, cs := censoredSample(c.truth, 2000, c.truth.Quantile(0.7), c.seed)
		h, err := FitHistoryCensored(ts, cs, MethodAuto)
		if err != nil {
			t.Fatal(err)
		}
		best := h.Candidates[0]
		if best.Family != c.family || relErr(h.Law.Mean(), c.truth.Mean()) > 0.05 || !math.IsNaN(h.KS) {
			t.Errorf("%v: auto picked %s %v (mean %.0f, want %.0f)", c.truth, best.Family, h.Law, h.Law.Mean(), c.truth.Mean())
		}
		for _, cand := range h.Candidates {
			if cand.Skipped != "" {
				if cand.Family != "truncnormal" {
					t.Errorf("%s skipped: %s", cand.Family, cand.Skipped)
				}
				continue
			}
			k, _ := FamilyParams(cand.Family)
			ll := CensoredLogLikelihood(cand.Dist, ts, cs)
			if cand.Params != k || math.Abs(cand.BIC-(float64(k)*math.Log(2000)-2*ll)) > 1e-6 || math.Abs(cand.AIC-(2*float64(k)-2*ll)) > 1e-6 {
				t.Errorf("%s: k %d BIC %v AIC %v, ll %v", cand.Family, cand.Params, cand.BIC, cand.AIC, ll)
			}
			if cand.BIC < best.BIC {
				t.Errorf("%s has BIC %v below the best's %v", cand.Family, cand.BIC, best.BIC)
			}
		}
	}
	km, err := FitHistoryCensored(ts, cs, MethodEmpirical)
	if err != nil || math.Abs(km.Law.CDF(truth.Quantile(0.5))-0.5) > 0.03 {
		t.Errorf("empirical: Kaplan-Meier median CDF %v, %v", km.Law.CDF(truth.Quantile(0.5)), err)
	}
	if _, err := FitHistoryCensored(ts, cs, "truncnormal"); err == nil || !strings.Contains(err.Error(), "no censored fit") {
		t.Errorf("truncnormal: %v", err)
	}
	if _, err := FitHistoryCensored([]float64{5, 6}, []bool{true, true}, MethodAuto); err == nil {
		t.Error("all censored: no error")
	}
}

// The censored Pareto's closed form maximises the censored likelihood: a
// scan of α around it finds nothing better, and x_m is the least
// observation.
func TestFitCensoredPareto(t *testing.T) {
	truth := Pareto{Xm: 100, Alpha: 2.5}
	ts, cs := censoredSample(truth, 3000, truth.Quantile(0.8), 31)
	d, err := FitCensored("pareto", ts, cs)
	if err != nil {
		t.Fatal(err)
	}
	p := d.(Pareto)
	best := CensoredLogLikelihood(p, ts, cs)
	for _, f := range []float64{0.9, 0.99, 0.999, 1.001, 1.01, 1.1} {
		if ll := CensoredLogLikelihood(Pareto{Xm: p.Xm, Alpha: p.Alpha * f}, ts, cs); ll > best {
			t.Errorf("alpha x %v: log-likelihood %v > %v at the closed form", f, ll, best)
		}
	}
	if relErr(p.Alpha, truth.Alpha) > 0.08 || relErr(p.Xm, truth.Xm) > 0.01 {
		t.Errorf("censored Pareto %v, want about %v", p, truth)
	}
}
