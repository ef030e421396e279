package distribution

import (
	"math"
	"strings"
	"testing"
)

// The parameter counts are those of the families' definitions: one per
// field the fit estimates (the truncated normal's bounds included).
func TestFamilyParams(t *testing.T) {
	want := map[string]int{"normal": 2, "lognormal": 2, "gamma": 2, "weibull": 2, "exponential": 1, "truncnormal": 4, "pareto": 2}
	for _, fam := range FitFamilies() {
		k, err := FamilyParams(fam)
		if err != nil || k != want[fam] {
			t.Errorf("FamilyParams(%q) = %d, %v; want %d", fam, k, err, want[fam])
		}
	}
	if _, err := FamilyParams("uniform"); err == nil {
		t.Error("FamilyParams(uniform) accepted")
	}
}

// FitRanked's AIC and BIC for the exponential match the closed form of its
// log-likelihood at the MLE, n·log λ̂ − n with λ̂ = 1/x̄, and the ranking is
// by the criterion asked for.
func TestFitRankedClosedForm(t *testing.T) {
	xs := draw(Exponential{Rate: 1.0 / 600}, 5000, 7)
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	n := float64(len(xs))
	ll := n*math.Log(1/mean) - n
	for _, by := range []Criterion{ByAIC, ByBIC} {
		cands := FitRanked(xs, []string{"exponential", "weibull", "gamma", "lognormal"}, by)
		prev := math.Inf(-1)
		for _, c := range cands {
			if c.Skipped != "" {
				continue
			}
			key := c.AIC
			if by == ByBIC {
				key = c.BIC
			}
			if key < prev {
				t.Errorf("%v: %s out of order", by, c.Family)
			}
			prev = key
			if c.Family == "exponential" {
				if math.Abs(c.AIC-(2-2*ll)) > 1e-6*math.Abs(ll) || math.Abs(c.BIC-(math.Log(n)-2*ll)) > 1e-6*math.Abs(ll) {
					t.Errorf("exponential AIC %v BIC %v, closed form %v %v", c.AIC, c.BIC, 2-2*ll, math.Log(n)-2*ll)
				}
			}
		}
	}
}

// A family that cannot be fitted is ranked last with its reason.
func TestFitRankedSkipped(t *testing.T) {
	cands := FitRanked([]float64{0, 1, 2, 3}, []string{"lognormal", "normal"}, ByAIC)
	if cands[0].Family != "normal" || cands[1].Family != "lognormal" || cands[1].Skipped == "" {
		t.Errorf("got %+v", cands)
	}
}

func TestFitHistory(t *testing.T) {
	xs := draw(LogNormal{Mu: 8, Sigma: 0.5}, 2000, 3)
	h, err := FitHistory(xs, MethodAuto)
	if err != nil {
		t.Fatal(err)
	}
	if h.Law.String() != h.Candidates[0].Dist.String() || h.Candidates[0].Family != "lognormal" {
		t.Errorf("auto chose %v, first candidate %v", h.Law, h.Candidates[0].Family)
	}
	for i := 1; i < len(h.Candidates); i++ {
		if h.Candidates[i].Skipped == "" && h.Candidates[i].BIC < h.Candidates[i-1].BIC {
			t.Errorf("candidates not by BIC at %d", i)
		}
	}
	if h.KSFails() || h.Warning("x") != "" || h.KSCritical != 1.63/math.Sqrt(2000) {
		t.Errorf("lognormal data fails KS against its own fit: %v > %v", h.KS, h.KSCritical)
	}
	// A bimodal history fails the check for any single family.
	bi := append(draw(Normal{Mu: 1000, Sigma: 10}, 500, 4), draw(Normal{Mu: 5000, Sigma: 10}, 500, 5)...)
	h, err = FitHistory(bi, "normal")
	if err != nil {
		t.Fatal(err)
	}
	if w := h.Warning("runs.txt"); !h.KSFails() || !strings.Contains(w, "runs.txt") || !strings.Contains(w, "1000 runs") {
		t.Errorf("bimodal: KS %v, warning %q", h.KS, w)
	}
	e, err := FitHistory(bi, MethodEmpirical)
	if err != nil || !math.IsNaN(e.KS) || e.KSFails() {
		t.Errorf("empirical: %v %v", e.KS, err)
	}
	for _, bad := range []struct {
		xs     []float64
		method string
	}{{[]float64{1}, MethodAuto}, {xs, "beta"}, {xs, ""}} {
		if _, err := FitHistory(bad.xs, bad.method); err == nil {
			t.Errorf("FitHistory(%d values, %q) accepted", len(bad.xs), bad.method)
		}
	}
}
