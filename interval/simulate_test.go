package interval

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// With exponential failures of rate λ hitting work and checkpoints (not the
// restart), the exact mean time to complete one block of length L = P + C
// is (e^{λL} − 1)/λ plus R per failure, e^{λL} − 1 failures on average:
// E(Tw) = Σ_blocks [(e^{λL}−1)/λ + R(e^{λL}−1)]. The simulation agrees.
func TestSimulateExponentialExact(t *testing.T) {
	te, p, c, r, lambda := 100.0, 25.0, 2.0, 5.0, 0.01
	exact := 0.0
	for _, L := range []float64{p + c, p + c, p + c, p} {
		e := math.Expm1(lambda * L)
		exact += e/lambda + r*e
	}
	got, err := meanWallclock(te, p, c, r, distribution.Exponential{Rate: lambda}, 1, 200000)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-exact) > 0.002*exact {
		t.Errorf("simulated %v, exact %v", got, exact)
	}
	// Renewal mean of a Poisson process over te: λ·te.
	if m := RenewalMean(te, distribution.Exponential{Rate: lambda}, 3, 200000); math.Abs(m-1) > 0.01 {
		t.Errorf("renewal mean %v, want 1", m)
	}
}

// The best fixed number of intervals of the exact exponential model (found
// by exhaustive search of the closed form) is the one BestFixed finds, or a
// neighbour of the same cost within the Monte Carlo error.
func TestBestFixedExponential(t *testing.T) {
	te, c, r, lambda := 1000.0, 2.0, 1.0, 0.005
	exact := func(x int) float64 {
		p := te / float64(x)
		e1, e2 := math.Expm1(lambda*(p+c)), math.Expm1(lambda*p)
		return float64(x-1)*(e1/lambda+r*e1) + e2/lambda + r*e2
	}
	bx, bv := 1, exact(1)
	for x := 2; x <= 100; x++ {
		if v := exact(x); v < bv {
			bx, bv = x, v
		}
	}
	p, mean, err := bestFixed(te, c, r, distribution.Exponential{Rate: lambda}, 7, 4000, 100)
	if err != nil {
		t.Fatal(err)
	}
	exactP := func(p float64) float64 {
		n := IntervalsForPeriod(te, p) - 1
		e1, e2 := math.Expm1(lambda*(p+c)), math.Expm1(lambda*(te-float64(n)*p))
		return float64(n)*(e1/lambda+r*e1) + e2/lambda + r*e2
	}
	if exactP(p) > bv*1.001 || math.Abs(mean-bv) > 0.01*bv {
		t.Errorf("BestFixed period %v (exact %v, simulated %v), exact optimum x=%d cost %v", p, exactP(p), mean, bx, bv)
	}
	// The search is at least as good as every equal-interval period it
	// tried (same random numbers).
	for n := 1; n <= 100; n += 7 {
		if m, _ := meanWallclock(te, te/float64(n), c, r, distribution.Exponential{Rate: lambda}, 7, 4000); m < mean {
			t.Errorf("x=%d simulates %v < best %v", n, m, mean)
		}
	}
}
