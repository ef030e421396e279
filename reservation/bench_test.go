package reservation

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchLaw is a smooth discrete law on n points (a discretised Gamma-like
// bump), the shape DYN-PROG-COUNT meets after Algorithm 1.
func benchLaw(n int) (values, probs []float64) {
	rng := rand.New(rand.NewPCG(9, 9))
	total := 0.0
	for i := 1; i <= n; i++ {
		x := float64(i) / float64(n) * 20
		p := x * x * (20 - x + 0.5) * (0.9 + 0.2*rng.Float64())
		values, probs = append(values, x), append(probs, p)
		total += p
	}
	for i := range probs {
		probs[i] /= total
	}
	return values, probs
}

var benchCosts = Costs{Alpha: 1, C: 0.1, R: 0.1}

func BenchmarkDynProgCount(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000, 10000, 20000} {
		values, probs := benchLaw(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := DynProgCount(values, probs, benchCosts, Mixed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDynProgCountTheorem2(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		values, probs := benchLaw(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := DynProgCountTheorem2(values, probs, benchCosts, Mixed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVariants(b *testing.B) {
	for _, class := range []Class{AllCkpt, NoCkpt} {
		for _, n := range []int{1000, 10000} {
			values, probs := benchLaw(n)
			b.Run(fmt.Sprintf("%v/n=%d", class, n), func(b *testing.B) {
				for b.Loop() {
					if _, _, err := DynProgCount(values, probs, benchCosts, class); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%v-theorem2/n=%d", class, n), func(b *testing.B) {
				if n > 2000 {
					b.Skip("O(n^3) reference is too slow at this size")
				}
				for b.Loop() {
					if _, _, err := DynProgCountTheorem2(values, probs, benchCosts, class); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDynProgCountLimited is the limited DP (Slurm's minute grid, a
// margin, a longest reservation) on the laws of BenchmarkDynProgCount,
// in seconds (values × 3600): bounded at 4 h of the 20 h support, where
// a row reaches K ≈ n/5 values (O(n·K)), and unbounded (O(n²)).
func BenchmarkDynProgCountLimited(b *testing.B) {
	c := Costs{Alpha: 1, C: 360, R: 360, Margin: DefaultSlurmMargin, Granularity: SlurmGranularity}
	for _, n := range []int{1000, 2000} {
		values, probs := benchLaw(n)
		for i := range values {
			values[i] *= 3600
		}
		for _, bound := range []float64{4 * 3600, 0} {
			b.Run(fmt.Sprintf("n=%d/bound=%gh", n, bound/3600), func(b *testing.B) {
				for b.Loop() {
					if _, _, err := DynProgCountLimited(values, probs, c, Mixed, bound); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
