package distribution

import (
	"bufio"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// TestFitAutoPicksGenerator: on 20 000 draws of a family that no other
// candidate contains, that family has the least AIC (and BIC). On normal
// and exponential data a containing family may win by AIC (see FitAuto):
// the test requires the generator within 6 AIC units of the best (twice
// the extra parameters, the scale of the χ² noise) and the best by BIC to
// be the generator.
func TestFitAutoPicksGenerator(t *testing.T) {
	const n = 20000
	cases := []struct {
		family string
		truth  Distribution
		nested bool
	}{
		{"lognormal", LogNormal{Mu: 8, Sigma: 0.5}, false},
		{"gamma", Gamma{Alpha: 2, Beta: 1e-3}, false},
		{"weibull", Weibull{K: 0.5, Lambda: 3600}, false},
		{"truncnormal", TruncatedNormal{Mu: 2, Sigma: 1, A: 2.5, B: 5}, false},
		{"normal", Normal{Mu: 7500, Sigma: 800}, true},
		{"exponential", Exponential{Rate: 1.0 / 3600}, true},
	}
	for i, c := range cases {
		res, err := FitAuto(draw(c.truth, n, uint64(100+i)))
		if err != nil {
			t.Fatalf("%s: %v", c.family, err)
		}
		if res.BestBIC.Family != c.family {
			t.Errorf("%s data: best by BIC %s", c.family, res.BestBIC.Family)
		}
		var gen Candidate
		for _, cand := range res.Candidates {
			if cand.Family == c.family {
				gen = cand
			}
		}
		if (!c.nested && res.BestAIC.Family != c.family) || gen.AIC > res.BestAIC.AIC+6 {
			t.Errorf("%s data: best %s (%v, AIC %v), generator AIC %v", c.family, res.BestAIC.Family, res.BestAIC.Dist, res.BestAIC.AIC, gen.AIC)
		}
	}
}

func TestFitAutoCandidates(t *testing.T) {
	xs := []float64{0, 5, 7, 7.5, 9, 12, 30}
	res, err := FitAuto(xs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != len(FitFamilies()) {
		t.Fatalf("%d candidates", len(res.Candidates))
	}
	var fitted []Candidate
	for _, c := range res.Candidates {
		switch c.Family {
		case "lognormal", "gamma", "weibull", "pareto": // a zero sample excludes them
			if c.Skipped == "" || c.Dist != nil || !strings.Contains(c.Skipped, "sample 0 is 0") {
				t.Errorf("%s: not skipped with a reason: %+v", c.Family, c)
			}
			continue
		}
		if c.Skipped != "" {
			t.Errorf("%s skipped: %s", c.Family, c.Skipped)
		}
		if want := 2*float64(c.Params) - 2*naiveLogLik(c.Dist, xs); relErr(c.AIC, want) > 1e-12 {
			t.Errorf("%s: AIC %v, want %v", c.Family, c.AIC, want)
		}
		if want := float64(c.Params)*math.Log(7) - 2*naiveLogLik(c.Dist, xs); relErr(c.BIC, want) > 1e-12 {
			t.Errorf("%s: BIC %v, want %v", c.Family, c.BIC, want)
		}
		if !(c.KS > 0 && c.KS < 1) {
			t.Errorf("%s: KS %v", c.Family, c.KS)
		}
		fitted = append(fitted, c)
	}
	if !slices.IsSortedFunc(fitted, func(a, b Candidate) int { return int(math.Copysign(1, a.AIC-b.AIC)) }) {
		t.Error("candidates not sorted by AIC")
	}
	if res.BestAIC.Family != fitted[0].Family || res.BestAIC.AIC != fitted[0].AIC {
		t.Errorf("Best %s, least AIC %s", res.BestAIC.Family, fitted[0].Family)
	}
	if res.Candidates[len(res.Candidates)-1].Skipped == "" {
		t.Error("skipped candidates are not last")
	}
}

// TestKSStatistic against a hand computation for the uniform law: samples
// 0.1, 0.4, 0.7 give max(0.1, 0.2333, 0.0667, 0.2667, 0.0333, 0.3) = 0.3.
func TestKSStatistic(t *testing.T) {
	if got := KSStatistic(Uniform{A: 0, B: 1}, []float64{0.1, 0.4, 0.7}); math.Abs(got-0.3) > 1e-15 {
		t.Errorf("KS = %v, want 0.3", got)
	}
	// Ties: 0.5 twice, the empirical CDF jumps from 0 to 1 there.
	if got := KSStatistic(Uniform{A: 0, B: 1}, []float64{0.5, 0.5}); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("KS with ties = %v, want 0.5", got)
	}
}

func TestFitAutoErrors(t *testing.T) {
	cases := []struct {
		xs   []float64
		want string
	}{
		{[]float64{1}, "need at least 2 samples, got 1"},
		{[]float64{2, 2}, "all 2 samples equal 2"},
		{[]float64{1, math.NaN()}, "sample 1 is not finite: NaN"},
		{[]float64{-1, 1}, "sample 0 is negative: -1"},
	}
	for _, c := range cases {
		_, err := FitAuto(c.xs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FitAuto(%v) error %v, want %q", c.xs, err, c.want)
		}
	}
}

// readWalltimes reads one number per line from the shared data (the test
// skips locally when the file is absent, and fails under CI).
func readWalltimes(t *testing.T, name string) []float64 {
	t.Helper()
	path := datadirtest.ForTest(t, "walltimes", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var xs []float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", name, line, err)
		}
		xs = append(xs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return xs
}

// TestFitWalltimes fits the real SLANT and CT eye-segmentation walltimes
// and logs the ranking. On slant-drd-88 the truncated normal, gamma,
// lognormal and normal are within 1.2 AIC units of one another (88 samples
// cannot tell them apart); the Weibull is 8 units behind and the
// exponential hopeless. On ct-eye-segmentation-300 the truncated normal
// leads the Weibull by 15 units.
func TestFitWalltimes(t *testing.T) {
	for _, c := range []struct {
		file  string
		n     int
		close []string // families within 2 AIC units of the best
	}{
		{"slant-drd-88.log", 88, []string{"truncnormal", "gamma", "lognormal", "normal"}},
		{"ct-eye-segmentation-300.log", 300, []string{"truncnormal"}},
	} {
		xs := readWalltimes(t, c.file)
		if len(xs) != c.n {
			t.Fatalf("%s: %d samples, want %d", c.file, len(xs), c.n)
		}
		res, err := FitAuto(xs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: best by AIC %s = %v; by BIC %s", c.file, res.BestAIC.Family, res.BestAIC.Dist, res.BestBIC.Family)
		var near []string
		for _, cand := range res.Candidates {
			t.Logf("  %-12s AIC %9.2f  BIC %9.2f  KS %.4f  %v", cand.Family, cand.AIC, cand.BIC, cand.KS, cand.Dist)
			if cand.Skipped == "" && cand.AIC <= res.BestAIC.AIC+2 {
				near = append(near, cand.Family)
			}
		}
		// Every fit is a local maximum of the independently computed
		// likelihood.
		for _, cand := range res.Candidates {
			ll := naiveLogLik(cand.Dist, xs)
			for _, p := range perturbations(cand.Dist, 1e-5) {
				if l := naiveLogLik(p, xs); l > ll+1e-12*math.Abs(ll) {
					t.Errorf("%s: %v has log-likelihood %v > fit's %v", c.file, p, l, ll)
				}
			}
		}
		slices.Sort(near)
		slices.Sort(c.close)
		if !slices.Equal(near, c.close) {
			t.Errorf("%s: families within 2 AIC of the best %v, want %v", c.file, near, c.close)
		}
		if res.BestAIC.KS > 0.1 {
			t.Errorf("%s: best fit KS %v", c.file, res.BestAIC.KS)
		}
	}
}
