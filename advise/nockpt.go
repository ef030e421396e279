package advise

import (
	"fmt"
	"math"
)

// noCkptPlan returns the reservation sequence of least expected cost for a
// job of discrete law Y ~ (values[i], probs[i]) that never checkpoints: the
// NO-CKPT class of the seed paper (Gainaru et al., IPDPS 2020, Section 3.4;
// Theorem 2's recurrence with no checkpoint, the problem of the authors'
// IPDPS 2019 paper), a reservation of length t costing α·t + β·min(t, Y) + γ.
//
// With v_0 = 0 < v_1 < … < v_n the support and S_l = P(Y > v_l), the cost
// to go once every reservation up to v_l has been too short, weighted by
// the chance S_l of getting there, is W(n) = 0 and
//
//	W(l) = min_{l<j≤n} S_l·(α·v_j + γ) + β·(Σ_{l<k≤j} f_k·v_k + S_j·v_j) + W(j),
//
// the sequence is read from the argmins from l = 0 (the smallest j on
// ties, as this sum rounds: DynProgCount sums in another order, so on an
// exact tie the two may pick different sequences of the same cost, which
// the tests accept after evaluating the sequence's cost from the law) and
// W(0) is its expected cost. O(n²) time, O(n) memory: the
// advisor's laws have at most Params.Window + 1 points. It is the row 0 of
// reservation.DynProgCount in the NoCkpt class, which the advisor's tests
// use as its oracle; it lives here so that answering a query links neither
// the reservation capability nor its pictures (ckpt-advise answers in a
// few milliseconds including process start). It accepts exactly the laws
// reservation.SupportLayout accepts (tested), with messages of its own.
func noCkptPlan(values, probs []float64, alpha, beta, gamma float64) (seq []float64, cost float64, err error) {
	n := len(values)
	if n == 0 || len(probs) != n {
		return nil, 0, fmt.Errorf("discrete law needs as many probabilities as values (got %d and %d)", n, len(probs))
	}
	if probs[n-1] <= 0 {
		return nil, 0, fmt.Errorf("the largest value %v has probability %v; the last value must have positive mass", values[n-1], probs[n-1])
	}
	v, surv := make([]float64, n+1), make([]float64, n+1)
	total := 0.0
	for i := n - 1; i >= 0; i-- {
		x, p := values[i], probs[i]
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || (i > 0 && x <= values[i-1]) || math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return nil, 0, fmt.Errorf("value %d (%v) or its probability (%v) is not part of a law (finite, increasing, >= 0)", i+1, x, p)
		}
		v[i+1], surv[i+1] = x, total
		total += p
	}
	if math.Abs(total-1) > 1e-6 {
		return nil, 0, fmt.Errorf("probabilities sum to %v, want 1", total)
	}
	surv[0] = 1
	for i := 1; i <= n; i++ {
		surv[i] /= total
	}
	w, next := make([]float64, n+1), make([]int, n+1)
	for l := n - 1; l >= 0; l-- {
		w[l] = math.Inf(1)
		run := 0.0 // Σ_{l<k≤j} f_k·v_k
		for j := l + 1; j <= n; j++ {
			run += probs[j-1] / total * v[j]
			if c := surv[l]*(alpha*v[j]+gamma) + beta*(run+surv[j]*v[j]) + w[j]; c < w[l] {
				w[l], next[l] = c, j
			}
		}
	}
	for l := 0; l < n; l = next[l] {
		seq = append(seq, v[next[l]])
	}
	return seq, w[0], nil
}
