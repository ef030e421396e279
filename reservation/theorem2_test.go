package reservation

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// theorem2Chunk is the number of states a worker of DynProgCountTheorem2
// takes at a time.
const theorem2Chunk = 16

// DynProgCountTheorem2 evaluates the recurrence of Theorem 2 exactly as
// printed: every state (i_c, i_l) with 0 ≤ i_c ≤ i_l ≤ n tries every next
// index j > i_l and both checkpoint decisions, in O(n³) time and O(n²)
// memory. The states of one i_l are independent, so they are spread over
// GOMAXPROCS goroutines. It returns the same optimal cost as DynProgCount
// (up to rounding) and exists as an independent oracle and a benchmark
// baseline; DynProgCount is the one to use.
func DynProgCountTheorem2(values, probs []float64, c Costs, class Class) (Strategy, float64, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	sup, err := newSupport(values, probs)
	if err != nil {
		return nil, 0, err
	}
	n := sup.n()
	v, S := sup.v, sup.surv
	w := n + 1
	E := make([]float64, w*w) // E[ic*w+il]
	next := make([]choice, w*w)
	base := c.Beta * sup.mean
	for ic := 0; ic <= n; ic++ {
		E[ic*w+n] = base
	}
	state := func(ic, il int) {
		b, rho := 0.0, 0.0
		if ic > 0 {
			b, rho = v[ic], c.R
		}
		best, arg := math.Inf(1), choice(0)
		for j := il + 1; j <= n; j++ {
			if class != AllCkpt || j == n {
				val := E[ic*w+j] + (c.Alpha*(rho+v[j]-b)+c.Beta*rho+c.Gamma)*S[il] + c.Beta*(v[j]-b)*S[j]
				if val < best {
					best, arg = val, choice(j)
				}
			}
			if class != NoCkpt && j < n {
				val := E[j*w+j] + (c.Alpha*(rho+v[j]-b+c.C)+c.Beta*rho+c.Gamma)*S[il] + c.Beta*c.C*S[j]
				if val < best {
					best, arg = val, -choice(j)
				}
			}
		}
		E[ic*w+il], next[ic*w+il] = best, arg
	}
	workers := runtime.GOMAXPROCS(0)
	for il := n - 1; il >= 0; il-- {
		rows := il + 1 // ic = 0 … il
		if workers == 1 || rows < 64 {
			for ic := 0; ic <= il; ic++ {
				state(ic, il)
			}
			continue
		}
		// Chunks taken from a shared counter, not a fixed share each: a
		// worker slowed down (a core busy elsewhere) takes fewer of them.
		var nextIC atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					lo := int(nextIC.Add(theorem2Chunk)) - theorem2Chunk
					if lo > il {
						return
					}
					for ic := lo; ic <= min(lo+theorem2Chunk-1, il); ic++ {
						state(ic, il)
					}
				}
			})
		}
		wg.Wait()
	}
	var out Strategy
	ic, il := 0, 0
	for il < n {
		j, ckpt := next[ic*w+il].next()
		out = append(out, Step{Milestone: v[j], Checkpoint: ckpt})
		if ckpt {
			ic = j
		}
		il = j
	}
	return out, E[0], nil
}
