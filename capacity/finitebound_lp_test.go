package capacity

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// lpYieldFeasible decides the relaxation of Section 5.1 for yield y as a
// linear program solved by gonum's simplex, written from the model and not
// from the max-flow code: x_jk is the time job j runs in the k-th interval
// between consecutive breakpoints (section starts, releases, deadlines),
// allowed when the interval lies in [r_j, d_j] and p_j fits in its section;
// x_jk ≤ |k|, Σ_j p_j x_jk ≤ P_k |k|, Σ_k x_jk = the work job j needs.
func lpYieldFeasible(t *testing.T, in *Instance, y float64) bool {
	t.Helper()
	var starts []float64
	end := 0.0
	for _, s := range in.Sections {
		starts = append(starts, end)
		end += s.Length
	}
	type need struct {
		j       int
		r, d, w float64
	}
	var needs []need
	pts := append([]float64{end}, starts...)
	for j, jb := range in.Jobs {
		if jb.Release >= end {
			continue
		}
		d, w := end, (end-jb.Release)*y // infinite, or not done by the end
		if jb.Length > 0 && jb.Release+jb.Length/y < end {
			d, w = jb.Release+jb.Length/y, jb.Length
		}
		needs = append(needs, need{j, jb.Release, d, w})
		pts = append(pts, jb.Release, d)
	}
	sort.Float64s(pts)
	var iv [][2]float64
	for k := 0; k+1 < len(pts); k++ {
		if pts[k+1] > pts[k] {
			iv = append(iv, [2]float64{pts[k], pts[k+1]})
		}
	}
	procs := func(t float64) int { // processors of the section holding t
		i := sort.SearchFloat64s(starts, t)
		if i == len(starts) || starts[i] > t {
			i--
		}
		return in.Sections[i].P
	}
	type v struct{ n, k int }
	var vars []v
	for n, nd := range needs {
		has := false
		for k, c := range iv {
			if c[0] >= nd.r && c[1] <= nd.d && in.Jobs[nd.j].P <= procs(c[0]) {
				vars = append(vars, v{n, k})
				has = true
			}
		}
		if !has && nd.w > 0 {
			return false
		}
	}
	// Columns: x (len(vars)), slack of x ≤ |k| (len(vars)), slack of the
	// capacity of each interval (len(iv)). Rows: the bounds on x, the
	// capacities, the works.
	nv, ni, nn := len(vars), len(iv), len(needs)
	A := mat.NewDense(nv+ni+nn, 2*nv+ni, nil)
	b := make([]float64, nv+ni+nn)
	for q, x := range vars {
		l := iv[x.k][1] - iv[x.k][0]
		A.Set(q, q, 1)
		A.Set(q, nv+q, 1)
		b[q] = l
		A.Set(nv+x.k, q, float64(in.Jobs[needs[x.n].j].P))
		A.Set(nv+ni+x.n, q, 1)
	}
	for k, c := range iv {
		A.Set(nv+k, 2*nv+k, 1)
		b[nv+k] = float64(procs(c[0])) * (c[1] - c[0])
	}
	for n, nd := range needs {
		b[nv+ni+n] = nd.w
	}
	_, _, err := lp.Simplex(make([]float64, 2*nv+ni), A, b, 1e-10, nil)
	if errors.Is(err, lp.ErrInfeasible) {
		return false
	}
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return true
}

// TestFiniteYieldBoundMatchesLP checks the max-flow bound against the LP it
// relaxes, by the same bisection on y, on small random finite instances.
func TestFiniteYieldBoundMatchesLP(t *testing.T) {
	t.Parallel()
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 77))
		pl := Platform{PMin: 2, PMax: 6, Delta: 2}
		in := &Instance{Platform: pl}
		p := 2 + r.IntN(5)
		for range 2 + r.IntN(3) {
			in.Sections = append(in.Sections, Section{P: p, Length: float64(5 + r.IntN(20))})
			p = min(6, max(2, p+r.IntN(5)-2))
		}
		for range 2 + r.IntN(4) {
			jb := Job{P: 1 + r.IntN(3), C: 1, R: 1, Release: float64(r.IntN(30))}
			if r.IntN(4) > 0 {
				jb.Length = float64(1 + r.IntN(25))
			}
			in.Jobs = append(in.Jobs, jb)
		}
		got := FiniteYieldBound(in, 1e-9)
		lo, hi := 0.0, 1.0
		if lpYieldFeasible(t, in, 1) {
			lo = 1
		}
		for hi-lo > 1e-9 {
			mid := (lo + hi) / 2
			if lpYieldFeasible(t, in, mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		if math.Abs(got-lo) > 1e-6 {
			t.Errorf("seed %d: max-flow bound %v, LP %v (%+v)", seed, got, lo, in)
		}
	}
}
