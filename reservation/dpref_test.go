package reservation

import "math"

// refSolve is the straightforward hull DP as it stood before the flat
// kernel (issue 18), kept verbatim and sequential as the oracle of
// TestKernelMatchesReference: slices grown by append, the pop and query
// loops as written, one interface-free but unspecialised row. It returns
// the optimum, the diagonal E(j, j), the shared envelope (m1, j1) and the
// optimal plan.
func refSolve(sup *support, c Costs, class Class) (cost float64, diag, m1 []float64, j1 []int32, plan Strategy) {
	n := sup.n()
	r := &refSolver{sup: sup, c: c, class: class, base: c.Beta * sup.mean,
		diag: make([]float64, n+1), m1: make([]float64, n+1), j1: make([]int32, n+1),
		row: make([]float64, n+1), hull: newRefHull(n)}
	r.diag[n] = r.base
	v, S := sup.v, sup.surv
	var shared refHull
	if class != NoCkpt {
		shared = newRefHull(n)
	}
	for ic := n - 1; ic >= 0; ic-- {
		if class != NoCkpt {
			if j := ic + 1; j < n {
				shared.add(c.Alpha*v[j], r.diag[j]+c.Beta*c.C*S[j], int32(j))
			}
			r.m1[ic], r.j1[ic] = math.Inf(1), 0
			if !shared.empty() {
				val, j := shared.query(S[ic])
				r.m1[ic], r.j1[ic] = val, j
			}
		}
		if ic > 0 && class == NoCkpt {
			continue
		}
		r.diag[ic] = r.runRow(ic, nil)
	}
	return r.diag[0], r.diag, r.m1, r.j1, r.strategy()
}

type refSolver struct {
	sup           *support
	c             Costs
	class         Class
	base          float64
	diag, m1, row []float64
	j1            []int32
	hull          refHull
}

func (s *refSolver) runRow(ic int, rec []choice) float64 {
	n := s.sup.n()
	v, S, c := s.sup.v, s.sup.surv, s.c
	b, rho := 0.0, 0.0
	if ic > 0 {
		b, rho = v[ic], c.R
	}
	k0 := c.Alpha*(rho-b) + c.Beta*rho + c.Gamma
	k1 := k0 + c.Alpha*c.C
	lastLine := s.c.Alpha * v[n]
	lastIntercept := s.base
	if s.class == AllCkpt {
		x := S[ic]
		best, ch := lastIntercept+lastLine*x+x*k0, choice(n)
		if s.j1[ic] > 0 {
			if val := s.m1[ic] + x*k1; val < best {
				best, ch = val, -choice(s.j1[ic])
			}
		}
		if rec != nil {
			rec[ic] = ch
		}
		return best
	}
	row, h := s.row, &s.hull
	row[n] = s.base
	h.reset()
	for il := n - 1; il >= ic; il-- {
		j := il + 1
		h.add(c.Alpha*v[j], row[j]+c.Beta*S[j]*(v[j]-b), int32(j))
		x := S[il]
		val, jj := h.query(x)
		best, ch := val+x*k0, choice(jj)
		if s.class == Mixed && s.j1[il] > 0 {
			if alt := s.m1[il] + x*k1; alt < best {
				best, ch = alt, -choice(s.j1[il])
			}
		}
		row[il] = best
		if rec != nil {
			rec[il] = ch
		}
	}
	return row[ic]
}

func (s *refSolver) strategy() Strategy {
	n := s.sup.n()
	rec := make([]choice, n+1)
	s.runRow(0, rec)
	var out Strategy
	for il := 0; il < n; {
		j, ckpt := rec[il].next()
		out = append(out, Step{Milestone: s.sup.v[j], Checkpoint: ckpt})
		if ckpt && j < n {
			clear(rec)
			s.runRow(j, rec)
		}
		il = j
	}
	return out
}

type refHull struct {
	m, q []float64
	id   []int32
	head int
}

func newRefHull(n int) refHull {
	return refHull{m: make([]float64, 0, n+1), q: make([]float64, 0, n+1), id: make([]int32, 0, n+1)}
}

func (h *refHull) reset() { h.m, h.q, h.id, h.head = h.m[:0], h.q[:0], h.id[:0], 0 }

func (h *refHull) empty() bool { return h.head >= len(h.m) }

func (h *refHull) add(m, q float64, id int32) {
	for len(h.m) > h.head {
		last := len(h.m) - 1
		if m >= h.m[last] {
			if q >= h.q[last] {
				return
			}
			h.pop()
			continue
		}
		if last == h.head {
			break
		}
		m1, q1, m2, q2 := h.m[last-1], h.q[last-1], h.m[last], h.q[last]
		if (q-q1)*(m1-m2) <= (q2-q1)*(m1-m) {
			h.pop()
			continue
		}
		break
	}
	h.m, h.q, h.id = append(h.m, m), append(h.q, q), append(h.id, id)
	if h.head > len(h.m)-1 {
		h.head = len(h.m) - 1
	}
}

func (h *refHull) pop() {
	h.m, h.q, h.id = h.m[:len(h.m)-1], h.q[:len(h.q)-1], h.id[:len(h.id)-1]
}

func (h *refHull) query(x float64) (float64, int32) {
	for h.head+1 < len(h.m) && h.m[h.head+1]*x+h.q[h.head+1] <= h.m[h.head]*x+h.q[h.head] {
		h.head++
	}
	return h.m[h.head]*x + h.q[h.head], h.id[h.head]
}
