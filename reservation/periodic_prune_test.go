package reservation

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// expectedCostRef is Eq. (7) over the reservations of s, as expectedCost
// was written before it learnt to stop early (kept verbatim as the
// oracle of the pruned periodic search).
func expectedCostRef(rs []Reservation, c Costs, survival func(float64) float64, mean float64) float64 {
	total := c.Beta * mean
	pNeeded := 1.0
	for i, r := range rs {
		if i > 0 {
			pNeeded = survival(rs[i-1].Milestone)
			if pNeeded <= 0 {
				break
			}
		}
		term := c.Alpha*r.Length + c.Gamma
		if i > 0 {
			prev := rs[i-1]
			lost := prev.Work
			if prev.Checkpoint {
				lost = 0
			}
			term += c.Beta * (r.Restart + lost + prev.CheckpointTime)
		}
		total += term * pNeeded
	}
	return total
}

// bestPeriodicRef prices every τ in full and keeps the first cheapest.
func bestPeriodicRef(t *rapid.T, x distribution.Distribution, c Costs, ckpt bool, maxTau int) (int, float64) {
	a, b := x.Support()
	tau, cost := 0, math.Inf(1)
	for k := 1; k <= maxTau; k++ {
		s := Periodic(a, b, k, ckpt)
		if s.Validate() != nil {
			break
		}
		if p := x.Survival(s.Last()); p > 1e-12 {
			t.Fatalf("tau %d does not cover the law", k)
		}
		if v := expectedCostRef(Reservations(s, c), c, x.Survival, x.Mean()); v < cost {
			tau, cost = k, v
		}
	}
	return tau, cost
}

// The periodic search that stops pricing a candidate once it exceeds the
// best one finds the same τ, plan and cost, bit for bit, as pricing every
// candidate in full; and a stopped pricing is above its bound while a
// completed one is the full cost.
func TestBestPeriodicPruneExact(t *testing.T) {
	laws := continuousLaws(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range laws {
			if !yield(name) {
				return
			}
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		x := laws[rapid.SampledFrom(names).Draw(t, "law")]
		c := Costs{Alpha: rapid.Float64Range(0.1, 3).Draw(t, "alpha"),
			C: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "C"),
			R: rapid.SampledFrom([]float64{0, 0.01, 0.5, 3}).Draw(t, "R")}
		if rapid.Bool().Draw(t, "beta") {
			c.Beta = rapid.Float64Range(0, 2).Draw(t, "betaValue")
		}
		if rapid.Bool().Draw(t, "gamma") {
			c.Gamma = rapid.Float64Range(0, 5).Draw(t, "gammaValue")
		}
		ckpt := rapid.Bool().Draw(t, "ckpt")
		maxTau := rapid.IntRange(1, 200).Draw(t, "maxTau")
		tau, s, cost, err := BestPeriodic(x, c, ckpt, maxTau)
		if err != nil {
			t.Fatal(err)
		}
		wantTau, wantCost := bestPeriodicRef(t, x, c, ckpt, maxTau)
		a, b := x.Support()
		if tau != wantTau || math.Float64bits(cost) != math.Float64bits(wantCost) || !slices.Equal(s, Periodic(a, b, wantTau, ckpt)) {
			t.Fatalf("pruned: tau %d cost %v; full scan: tau %d cost %v", tau, cost, wantTau, wantCost)
		}
		// The bounded pricing of one candidate against a random bound.
		k := rapid.IntRange(1, maxTau).Draw(t, "tau")
		cand := Periodic(a, b, k, ckpt)
		full := expectedCostRef(Reservations(cand, c), c, x.Survival, x.Mean())
		bound := full * rapid.Float64Range(0, 2).Draw(t, "boundFactor")
		got := expectedCostAbove(cand, c, x.Survival, x.Mean(), bound)
		if got > bound {
			if !(full > bound) {
				t.Fatalf("stopped at %v above the bound %v, but the full cost %v is not", got, bound, full)
			}
		} else if math.Float64bits(got) != math.Float64bits(full) {
			t.Fatalf("completed at %v, full cost %v", got, full)
		}
	})
}
