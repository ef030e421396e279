package reservation

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// The functions below serve the tests only (the CLI and Go callers go
// through Run, PlanContext and EvaluateContext).

// Plan is PlanContext without cancellation.
func Plan(d distribution.Distribution, o Options) (*Result, error) {
	return PlanContext(context.Background(), d, o)
}

// Evaluate is EvaluateContext without cancellation.
func Evaluate(d distribution.Distribution, s Strategy, o Options) (*Result, error) {
	return EvaluateContext(context.Background(), d, s, o)
}

// MonteCarlo estimates E(S(X)) from n draws of d and returns the sample mean
// and its standard error.
func MonteCarlo(s Strategy, c Costs, d distribution.Distribution, n int, rng *rand.Rand) (mean, stderr float64) {
	var sum, sumSq float64
	for range n {
		v := CostFor(s, c, d.Rand(rng))
		sum += v
		sumSq += v * v
	}
	mean = sum / float64(n)
	variance := (sumSq/float64(n) - mean*mean) * float64(n) / float64(n-1)
	return mean, math.Sqrt(math.Max(variance, 0) / float64(n))
}
