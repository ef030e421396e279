package capacity

import (
	"math"
	"sort"
	"testing"
)

func TestFiniteYieldBoundHandComputed(t *testing.T) {
	pl := Platform{PMin: 2, PMax: 2, Delta: 0}
	// Two jobs of 2 processors and 5 units of work on 2 processors for 10:
	// the fairest schedule shares the machine and both finish at 10 → 0.5.
	in := &Instance{Platform: pl, Sections: []Section{{2, 10}}, Jobs: []Job{{P: 2, C: 1, R: 1, Length: 5}, {P: 2, C: 1, R: 1, Length: 5}}}
	if y := FiniteYieldBound(in, 1e-9); math.Abs(y-0.5) > 1e-6 {
		t.Fatalf("got %v, want 0.5", y)
	}
	// The second released at 5: one after the other, both at yield 1.
	in.Jobs[1].Release = 5
	in.Sections[0].Length = 20
	if y := FiniteYieldBound(in, 1e-9); y != 1 {
		t.Fatalf("got %v, want 1", y)
	}
	// Released at 2 instead: they overlap on [2, 10]; Y is limited by the
	// area: by d = 2 + 5/Y both need 20 units on 2 processors, so
	// 2·(2 + 5/Y) ≥ 20 → Y ≤ 5/8.
	in.Jobs[1].Release = 2
	if y := FiniteYieldBound(in, 1e-9); math.Abs(y-5.0/8) > 1e-6 {
		t.Fatalf("got %v, want 0.625", y)
	}
}

// Infinite jobs of width ≤ P_min with Σ p_j ≥ P_max: the flow bound is the
// aggregate capacity Σ P_i L_i / (Σ p_j · T_total) (no checkpoint cost in
// the relaxation).
func TestFiniteYieldBoundInfiniteJobs(t *testing.T) {
	for seed := range uint64(5) {
		in := smallInstance(seed, 15)
		var area, total float64
		for _, s := range in.Sections {
			area += float64(s.P) * s.Length
			total += s.Length
		}
		sp := 0
		for _, jb := range in.Jobs {
			sp += jb.P
		}
		want := area / float64(sp) / total
		if y := FiniteYieldBound(in, 1e-10); math.Abs(y-want) > 1e-7 {
			t.Fatalf("seed %d: flow bound %v, closed form %v", seed, y, want)
		}
		// and it is above the Section 3.4 bound, which also charges C and R.
		if _, yb := Bounds(in); yb > FiniteYieldBound(in, 1e-10)+1e-9 {
			t.Fatalf("Section 3.4 bound %v above the relaxation", yb)
		}
	}
}

// FiniteYieldBound is the upper bound on the maximum minimum yield of
// Section 5.1 for jobs with release dates r_j and lengths L_j (Length = 0:
// an infinite job). For a target Y each job gets the deadline
// d_j = min(r_j + L_j/Y, T_{n+1}) (and the length (T_{n+1} − r_j)·Y when
// d_j = T_{n+1}); Y is achievable by the relaxation when the linear program
// (4)–(6) on the subsections cut at every section bound, release date and
// deadline is feasible. That program is a transportation problem, decided
// exactly by a maximum flow: source → job (p_j·L_j) → subsection φ it may use
// (p_j·L(φ), when r_j < M(φ) < d_j and p_j ≤ P_S(φ)) → sink (L(φ)·P_S(φ));
// Y is feasible iff the flow saturates the jobs. Feasibility is monotone in Y,
// so a bisection to within tol on [0, 1] gives the bound. The condition
// p_j ≤ P_S(φ) is ours (a job cannot run on fewer processors); it only
// tightens the bound and never binds in the paper's setting (p_j ≤ P_min).
// Time O(log(1/tol)) max flows (Dinic) on m + |S| + 2 nodes and O(m·|S|)
// edges, |S| ≤ n + 2m.
func FiniteYieldBound(in *Instance, tol float64) float64 {
	if tol <= 0 {
		tol = 1e-9
	}
	lo, hi := 0.0, 1.0
	if yieldFeasible(in, 1) {
		return 1
	}
	for hi-lo > tol {
		mid := (lo + hi) / 2
		if yieldFeasible(in, mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func yieldFeasible(in *Instance, y float64) bool {
	var starts []float64
	t := 0.0
	for _, s := range in.Sections {
		starts = append(starts, t)
		t += s.Length
	}
	end := t
	type jd struct {
		idx       int
		r, d, len float64
	}
	var jobs []jd
	cuts := append([]float64{end}, starts...)
	for j, jb := range in.Jobs {
		if jb.Release >= end {
			continue
		}
		d, l := end, (end-jb.Release)*y
		if jb.Length > 0 && jb.Release+jb.Length/y < end {
			d, l = jb.Release+jb.Length/y, jb.Length
		}
		if l <= 0 {
			continue
		}
		jobs = append(jobs, jd{j, jb.Release, d, l})
		cuts = append(cuts, jb.Release, d)
	}
	sort.Float64s(cuts)
	var bounds []float64
	for _, c := range cuts {
		if len(bounds) == 0 || c > bounds[len(bounds)-1] {
			bounds = append(bounds, c)
		}
	}
	// Subsections and the processors of their section.
	type sub struct {
		l, mid float64
		p      int
	}
	var subs []sub
	si := 0
	for k := 0; k+1 < len(bounds); k++ {
		a, b := bounds[k], bounds[k+1]
		mid := (a + b) / 2
		for si+1 < len(starts) && starts[si+1] <= mid {
			si++
		}
		subs = append(subs, sub{b - a, mid, in.Sections[si].P})
	}
	nj, ns := len(jobs), len(subs)
	g := newFlow(nj + ns + 2)
	src, snk := nj+ns, nj+ns+1
	need := 0.0
	for a, j := range jobs {
		p := float64(in.Jobs[j.idx].P)
		g.add(src, a, p*j.len)
		need += p * j.len
		for b, s := range subs {
			if j.r < s.mid && s.mid < j.d && in.Jobs[j.idx].P <= s.p {
				g.add(a, nj+b, p*s.l)
			}
		}
	}
	for b, s := range subs {
		g.add(nj+b, snk, s.l*float64(s.p))
	}
	return g.maxflow(src, snk) >= need*(1-1e-12)
}

// flow is Dinic's maximum flow on float capacities.
type flow struct {
	head       []int
	to, next   []int
	cap        []float64
	level, itr []int
}

func newFlow(n int) *flow {
	f := &flow{head: make([]int, n), level: make([]int, n), itr: make([]int, n)}
	for i := range f.head {
		f.head[i] = -1
	}
	return f
}

func (f *flow) add(u, v int, c float64) {
	f.to, f.cap, f.next = append(f.to, v), append(f.cap, c), append(f.next, f.head[u])
	f.head[u] = len(f.to) - 1
	f.to, f.cap, f.next = append(f.to, u), append(f.cap, 0), append(f.next, f.head[v])
	f.head[v] = len(f.to) - 1
}

const flowEps = 1e-12

func (f *flow) bfs(s, t int) bool {
	for i := range f.level {
		f.level[i] = -1
	}
	f.level[s] = 0
	q := []int{s}
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for e := f.head[u]; e >= 0; e = f.next[e] {
			if f.cap[e] > flowEps && f.level[f.to[e]] < 0 {
				f.level[f.to[e]] = f.level[u] + 1
				q = append(q, f.to[e])
			}
		}
	}
	return f.level[t] >= 0
}

func (f *flow) dfs(u, t int, push float64) float64 {
	if u == t {
		return push
	}
	for ; f.itr[u] >= 0; f.itr[u] = f.next[f.itr[u]] {
		e := f.itr[u]
		v := f.to[e]
		if f.cap[e] > flowEps && f.level[v] == f.level[u]+1 {
			if d := f.dfs(v, t, math.Min(push, f.cap[e])); d > 0 {
				f.cap[e] -= d
				f.cap[e^1] += d
				return d
			}
		}
	}
	return 0
}

func (f *flow) maxflow(s, t int) float64 {
	total := 0.0
	for f.bfs(s, t) {
		copy(f.itr, f.head)
		for {
			d := f.dfs(s, t, math.Inf(1))
			if d <= flowEps {
				break
			}
			total += d
		}
	}
	return total
}
