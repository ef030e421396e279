package reservation

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// MaxReservation is today's standard practice: one reservation of the
// largest possible walltime b, no checkpoint.
func MaxReservation(b float64) Strategy { return Strategy{{Milestone: b}} }

// Escalating is the practitioners' retry policy: a first reservation of
// length first, each retry factor times longer, from scratch (no
// checkpoint), until a reservation covers b. The last reservation is not
// clipped to b: users who do not know b do not clip it either.
func Escalating(first, factor, b float64) (Strategy, error) {
	if !(first > 0) || math.IsInf(first, 0) {
		return nil, fmt.Errorf("first reservation must be > 0, got %v", first)
	}
	if !(factor > 1) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("growth factor must be > 1, got %v", factor)
	}
	var s Strategy
	for w := first; ; w *= factor {
		s = append(s, Step{Milestone: w})
		if w >= b {
			return s, nil
		}
	}
}

// NeuroFirst is the first reservation of the strategy the MASI
// neuroscience lab uses (Section 5.1): the average of the last 5 runs. With
// no history it is E[X], the expected average of 5 runs.
func NeuroFirst(history []float64, x distribution.Distribution) float64 {
	if len(history) == 0 {
		return x.Mean()
	}
	last := history[max(0, len(history)-5):]
	sum := 0.0
	for _, v := range last {
		sum += v
	}
	return sum / float64(len(last))
}

// MaxOfLastFirst is 1.5 × the maximum of the last k runs; with no history it
// is 1.5 × E[max of k independent runs] = 1.5·(a + ∫_a^b 1 − F(t)^k dt),
// integrated with composite Simpson on 4096 panels.
func MaxOfLastFirst(history []float64, k int, x distribution.Distribution) float64 {
	if len(history) > 0 {
		m := 0.0
		for _, v := range history[max(0, len(history)-k):] {
			m = math.Max(m, v)
		}
		return 1.5 * m
	}
	a, b := x.Support()
	const panels = 4096
	h := (b - a) / panels
	f := func(t float64) float64 { return 1 - math.Pow(x.CDF(t), float64(k)) }
	sum := f(a) + f(b)
	for i := 1; i < panels; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return 1.5 * (a + sum*h/3)
}
