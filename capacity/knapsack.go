package capacity

import (
	"errors"
	"math"
)

// vec is the value of a dynamic program: compared lexicographically on
// (x, y, z), x with a relative tolerance (it is a float sum whose order of
// summation differs between equivalent solutions), y and z exactly. The
// goodput programs use (work, active jobs, checkpointed jobs); DPYIELD uses
// (minimum work, processors of min-yield jobs, processors used).
type vec struct{ x, y, z float64 }

func feq(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*(1+math.Max(math.Abs(a), math.Abs(b)))
}

// better reports a >_lex b.
func better(a, b vec) bool {
	if !feq(a.x, b.x) {
		return a.x > b.x
	}
	if a.y != b.y {
		return a.y > b.y
	}
	return a.z > b.z
}

// option is one case of a job in a knapsack DP: the processors it takes
// from each capacity and its gain.
type option struct {
	d    [3]int
	g    vec
	code uint8 // the case number reported back
}

// knap is the multi-capacity knapsack shared by every dynamic program of
// Section 4 and Appendix D: G_j(Π) = max_lex over the options o of job j of
// g_o ⊕ G_{j−1}(Π − d_o), G_0(Π) = init for Π ≥ 0, −∞ outside. With a
// capacity vector of up to three entries (Π_1, Π_2, Π_3) it is the
// DPGOODPUTSLOW table; (Π_1, Π_2) is DP1 and (Π_3) is DP2. ⊕ is + (goodput,
// DPBiC) or (min, +, +) (DPYIELD). Scratch memory is kept between calls:
// two value layers of Π(A_k+1) entries and one byte of traceback per job and
// state. Time O(m · options · Π(A_k+1)).
type knap struct {
	prev, cur []vec
	choice    []uint8
	// leaf, when set, replaces init: G_0 at capacity (x0, x1, x2).
	leaf func(x0, x1, x2 int) vec
	// tooBig reports that the last solve was refused for its memory.
	tooBig bool
}

// maxTraceback bounds the traceback table (bytes).
const maxTraceback = 1 << 31

var errTooLarge = errors.New("instance too large: the dynamic program would need more than 2 GiB of traceback (m·P_max² bytes)")

var negInf = vec{math.Inf(-1), 0, 0}

// solve returns the best value at capacity A and the chosen option code of
// every job, or ok = false when no assignment fits. opts[j] lists job j's
// options; ties keep the earliest option.
func (k *knap) solve(A [3]int, opts [][]option, init vec, useMin bool) (vec, []uint8, bool) {
	for i := range A {
		if A[i] < 0 {
			return negInf, nil, false
		}
	}
	s2 := A[2] + 1
	s1 := (A[1] + 1) * s2
	n := (A[0] + 1) * s1
	m := len(opts)
	if float64(m)*float64(n) > maxTraceback {
		k.tooBig = true
		return negInf, nil, false
	}
	k.tooBig = false
	k.prev = grow(k.prev, n)
	k.cur = grow(k.cur, n)
	if cap(k.choice) < m*n {
		k.choice = make([]uint8, m*n)
	}
	k.choice = k.choice[:m*n]
	if k.leaf == nil {
		for i := range k.prev {
			k.prev[i] = init
		}
	} else {
		for x0 := 0; x0 <= A[0]; x0++ {
			for x1 := 0; x1 <= A[1]; x1++ {
				for x2 := 0; x2 <= A[2]; x2++ {
					k.prev[x0*s1+x1*s2+x2] = k.leaf(x0, x1, x2)
				}
			}
		}
	}
	// Ties are decided with an absolute tolerance: 1e-9 of the largest
	// magnitude a value can reach.
	scale := 0.0
	if !math.IsInf(init.x, 0) {
		scale = math.Abs(init.x)
	}
	for _, os := range opts {
		mx := 0.0
		for _, o := range os {
			if !math.IsInf(o.g.x, 0) {
				mx = math.Max(mx, math.Abs(o.g.x))
			}
		}
		if useMin {
			scale = math.Max(scale, mx)
		} else {
			scale += mx
		}
	}
	tolAbs := 1e-9 * (1 + scale)
	for j := range m {
		ch := k.choice[j*n : (j+1)*n]
		cur := k.cur
		for i := range cur {
			cur[i] = vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		}
		for oi, o := range opts[j] {
			if o.d[2] > A[2] {
				continue
			}
			off := o.d[0]*s1 + o.d[1]*s2 + o.d[2]
			for x0 := o.d[0]; x0 <= A[0]; x0++ {
				for x1 := o.d[1]; x1 <= A[1]; x1++ {
					base := x0*s1 + x1*s2
					relax(cur[base+o.d[2]:base+s2], k.prev[base+o.d[2]-off:base+s2-off], ch[base+o.d[2]:base+s2], o.g, uint8(oi), tolAbs, useMin)
				}
			}
		}
		for i := range cur {
			if math.IsInf(cur[i].y, -1) {
				cur[i] = negInf
			}
		}
		k.prev, k.cur = cur, k.prev
	}
	best := k.prev[n-1]
	if math.IsInf(best.x, -1) {
		return best, nil, false
	}
	codes := make([]uint8, m)
	x := [3]int{A[0], A[1], A[2]}
	for j := m - 1; j >= 0; j-- {
		idx := x[0]*s1 + x[1]*s2 + x[2]
		o := opts[j][k.choice[j*n+idx]]
		codes[j] = o.code
		for i := range x {
			x[i] -= o.d[i]
		}
	}
	return best, codes, true
}

func grow(s []vec, n int) []vec {
	if cap(s) < n {
		return make([]vec, n)
	}
	return s[:n]
}

// relax is the inner loop of knap.solve: cur[i] = max_lex(cur[i], g ⊕ prev[i]).
func relax(cur, prev []vec, ch []uint8, g vec, code uint8, tolAbs float64, useMin bool) {
	for i := range cur {
		p := prev[i]
		if math.IsInf(p.x, -1) {
			continue
		}
		cx := p.x + g.x
		if useMin {
			cx = math.Min(p.x, g.x)
		}
		cy, cz := p.y+g.y, p.z+g.z
		cu := &cur[i]
		d := cx - cu.x
		if d > tolAbs || (d >= -tolAbs && (cy > cu.y || (cy == cu.y && cz > cu.z))) {
			*cu = vec{cx, cy, cz}
			ch[i] = code
		}
	}
}
