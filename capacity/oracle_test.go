package capacity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomState draws a tiny state: m ≤ 5 jobs on at most 7 processors, random
// statuses (running jobs fit in P), integer or fractional costs.
func randomState(r *rand.Rand, equalC bool) *State {
	pmax := 3 + r.IntN(5)
	pl := Platform{PMin: r.IntN(pmax/2 + 1), PMax: pmax, Delta: r.IntN(pmax + 1)}
	st := &State{Platform: pl, P: pl.PMin + r.IntN(pmax-pl.PMin+1), T: float64(8 + r.IntN(20))}
	if st.P == 0 {
		st.P = 1
	}
	m := 1 + r.IntN(5)
	c0 := float64(1 + r.IntN(3))
	run := 0
	for range m {
		jb := Job{P: 1 + r.IntN(min(3, pmax)), C: float64(1 + r.IntN(4)), R: float64(1 + r.IntN(4))}
		if r.IntN(3) == 0 {
			jb.C += 0.5
		}
		if equalC {
			jb.C = c0
		}
		s := Status(r.IntN(3))
		if s == Running && run+jb.P > pl.Keep(st.P) {
			s = Checkpointed
		}
		if s == Running {
			run += jb.P
		}
		st.Jobs = append(st.Jobs, jb)
		st.Status = append(st.Status, s)
		st.Work = append(st.Work, float64(r.IntN(50)))
		st.Avail = append(st.Avail, 100)
	}
	return st
}

// score is the (work, active at T, checkpointed at T) triple of a validated
// outcome, measured by the validator, not by the DP.
func score(out *Outcome) vec {
	v := vec{x: out.Area}
	for _, e := range out.End {
		if e == Running || e == Checkpointed {
			v.y++
		}
		if e == Checkpointed {
			v.z++
		}
	}
	return v
}

// exhaustive15 tries every assignment of the 15 paths for every C_nf in
// cands, keeps those the validator accepts, and returns the lexicographic
// best triple.
func exhaustive15(st *State, cands []float64) (vec, bool) {
	best, found := vec{}, false
	m := len(st.Jobs)
	cases := make([]uint8, m)
	var rec func(j int, cnf float64)
	rec = func(j int, cnf float64) {
		if j == m {
			out, err := Validate(st, planFromCases(st, cases, cnf))
			if err != nil {
				return
			}
			if v := score(out); !found || better(v, best) {
				best, found = v, true
			}
			return
		}
		for _, c := range casesFor(st.Status[j]) {
			if _, ok := caseWork(c, st.Jobs[j], st.T, cnf); ok {
				cases[j] = c
				rec(j+1, cnf)
			}
		}
	}
	for _, cnf := range cands {
		rec(0, cnf)
	}
	return best, found
}

func sameVec(a, b vec) bool { return feq(a.x, b.x) && a.y == b.y && a.z == b.z }

func TestDPGoodputSlowMatchesExhaustive15(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 400 {
		st := randomState(r, false)
		for _, best := range []bool{true, false} {
			algo := &DPGoodputSlow{BestCnf: best}
			cands := []float64{st.CMax()}
			if best {
				cands = candidatesCnf(st)
			}
			want, ok := exhaustive15(st, cands)
			pl, err := algo.Plan(st)
			if !ok {
				if err == nil {
					t.Fatalf("it %d: exhaustive finds nothing, DP returns a plan", it)
				}
				continue
			}
			if err != nil {
				t.Fatalf("it %d %s: %v (exhaustive %v)", it, algo.Name(), err, want)
			}
			out, err := Validate(st, pl)
			if err != nil {
				t.Fatalf("it %d %s: invalid plan: %v", it, algo.Name(), err)
			}
			if got := score(out); !sameVec(got, want) {
				t.Fatalf("it %d %s: DP %v, exhaustive %v\nstate %+v\ncases %v cnf %v", it, algo.Name(), got, want, st, pl.Case, pl.Cnf)
			}
			if !feq(pl.Gain, out.Area) {
				t.Fatalf("it %d: DP gain %v, validated work %v", it, pl.Gain, out.Area)
			}
		}
	}
}

// dp1Code maps a path of Fig. 4 to the DP1 case of Appendix D.2 and whether
// the job checkpoints in phase 3.
func dp1Code(c uint8) (uint8, bool) {
	switch c {
	case 1, 2:
		return 1, c == 2
	case 3:
		return 2, false
	case 4, 5:
		return 3, c == 5
	case 6:
		return 4, false
	case 7, 8:
		return 5, c == 8
	case 9:
		return 6, false
	case 10, 11:
		return 7, c == 11
	case 12:
		return 8, false
	case 13, 14:
		return 9, c == 14
	}
	return 10, false
}

// dp1Value evaluates a DP1 assignment from the formulas of Appendix D.2
// (written independently of the implementation): phase-1 and phase-2
// processor use and the (work, active in phase 2) pair.
func dp1Value(st *State, codes []uint8, cnf, cmax float64) (u1, u2 int, v vec, ok bool) {
	T := st.T
	for j, k := range codes {
		jb := st.Jobs[j]
		p := float64(jb.P)
		var w float64
		var in1, in2 bool
		switch k {
		case 1:
			w, in2 = T-cmax, true
		case 2:
			w = cnf - jb.C
		case 3:
			w, in1, in2 = T-cmax, true, true
		case 4:
			w, in1 = cnf-jb.C, true
		case 5, 9:
			w, in2 = T-cmax-cnf-jb.R, true
		case 7:
			w, in1, in2 = T-cmax-jb.R, true, true
		case 8:
			w, in1 = cnf-jb.C-jb.R, true
		}
		if w < 0 {
			return 0, 0, v, false
		}
		if st.Status[j] == Running {
			u1 += jb.P
		}
		if in1 {
			u1 += jb.P
		}
		if in2 {
			u2 += jb.P
			v.y++
		}
		v.x += p * w
	}
	return u1, u2, v, u1 <= st.P && u2 <= st.P
}

func TestDPGoodputMatchesTwoStageExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	open := map[Status][]uint8{Running: {1, 2}, Checkpointed: {3, 4, 5, 6}, Idle: {7, 8, 9, 10}}
	for it := range 400 {
		st := randomState(r, false)
		cmax := st.CMax()
		pl, err := (&DPGoodput{}).Plan(st)
		// Exhaustive DP1.
		m := len(st.Jobs)
		codes := make([]uint8, m)
		var best vec
		found := false
		var rec func(j int)
		rec = func(j int) {
			if j == m {
				if _, _, v, ok := dp1Value(st, codes, cmax, cmax); ok && (!found || better(v, best)) {
					best, found = v, true
				}
				return
			}
			for _, k := range open[st.Status[j]] {
				codes[j] = k
				rec(j + 1)
			}
		}
		rec(0)
		if !found {
			if err == nil {
				t.Fatalf("it %d: no DP1 solution but a plan", it)
			}
			continue
		}
		if err != nil {
			// DP2 may still fail only if a Ja job cannot checkpoint; not with these sizes.
			t.Fatalf("it %d: %v", it, err)
		}
		out, err := Validate(st, pl)
		if err != nil {
			t.Fatalf("it %d: invalid plan %v: %v", it, pl.Case, err)
		}
		// DP1 part of the plan is optimal.
		ck := make([]bool, m)
		for j, c := range pl.Case {
			codes[j], ck[j] = dp1Code(c)
		}
		_, _, v1, ok := dp1Value(st, codes, cmax, cmax)
		if !ok || !feq(v1.x, best.x) || v1.y != best.y {
			t.Fatalf("it %d: DP1 %v (ok %v), exhaustive %v", it, v1, ok, best)
		}
		// DP2: best choice of phase-3 checkpoints among the phase-2 jobs.
		var ja []int
		for j, k := range codes {
			if k == 1 || k == 3 || k == 5 || k == 7 || k == 9 {
				ja = append(ja, j)
			}
		}
		bestH, foundH := vec{}, false
		for mask := 0; mask < 1<<len(ja); mask++ {
			var h vec
			keep := 0
			for b, j := range ja {
				p := float64(st.Jobs[j].P)
				if mask>>b&1 == 1 {
					h.x += p * (cmax - st.Jobs[j].C)
					h.y++
				} else {
					h.x += p * cmax
					keep += st.Jobs[j].P
				}
			}
			if keep <= st.Keep(st.P) && (!foundH || better(h, bestH)) {
				bestH, foundH = h, true
			}
		}
		if !foundH || !feq(out.Area, best.x+bestH.x) {
			t.Fatalf("it %d: validated work %v, DP1 %v + DP2 %v", it, out.Area, best.x, bestH.x)
		}
	}
}

// TestTheorem1GridBruteForce checks Corollary 1 against every schedule on
// an integer time grid (T ≤ 6 slots, C = R = 1): with equal checkpoint
// times no schedule, of any shape, beats DPGOODPUTSLOW-BEST-Cnf.
func TestTheorem1GridBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := range 150 {
		pmax := 2 + r.IntN(3)
		pl := Platform{PMin: r.IntN(2), PMax: pmax, Delta: 1 + r.IntN(pmax)}
		st := &State{Platform: pl, P: max(1, pl.PMin+r.IntN(pmax-pl.PMin+1)), T: float64(3 + r.IntN(4))}
		m := 1 + r.IntN(3)
		run := 0
		for range m {
			jb := Job{P: 1 + r.IntN(2), C: 1, R: 1}
			s := Status(r.IntN(3))
			if s == Running && run+jb.P > pl.Keep(st.P) {
				s = Idle
			}
			if s == Running {
				run += jb.P
			}
			st.Jobs, st.Status = append(st.Jobs, jb), append(st.Status, s)
		}
		st.Work, st.Avail = make([]float64, m), make([]float64, m)
		brute := gridBest(st)
		plan, err := (&DPGoodputSlow{BestCnf: true}).Plan(st)
		if math.IsInf(brute, -1) {
			if err == nil {
				t.Fatalf("it %d: no grid schedule but DP found one", it)
			}
			continue
		}
		if err != nil {
			t.Fatalf("it %d: %v", it, err)
		}
		out, err := Validate(st, plan)
		if err != nil {
			t.Fatal(err)
		}
		if !feq(out.Area, brute) {
			t.Fatalf("it %d: DP %v, best grid schedule %v\n%+v", it, out.Area, brute, st)
		}
	}
}

// gridBest enumerates, for every job, every sequence of unit slots
// (idle, run, checkpoint, recover) that loses no work, and returns the best
// total work of a combination that respects P in every slot and the online
// constraint at the end.
func gridBest(st *State) float64 {
	n := int(st.T)
	type seq struct {
		use   []bool
		work  int
		dirty bool // running unsaved at T
	}
	var all [][]seq
	for j := range st.Jobs {
		var seqs []seq
		use := make([]bool, n)
		var rec func(t int, loaded, dirty bool, w int)
		rec = func(t int, loaded, dirty bool, w int) {
			if t == n {
				if dirty && !use[n-1] {
					return
				}
				seqs = append(seqs, seq{append([]bool(nil), use...), w, dirty})
				return
			}
			// idle
			if !dirty {
				use[t] = false
				rec(t+1, false, false, w)
			}
			use[t] = true
			if loaded {
				rec(t+1, true, true, w+1) // run
				rec(t+1, true, false, w)  // checkpoint
			} else {
				rec(t+1, true, false, w) // recover
			}
			use[t] = false
		}
		s := st.Status[j]
		rec(0, s != Idle, s == Running, 0)
		// A Running job cannot be idle at 0; the idle branch is already
		// excluded by dirty. A Checkpointed job idle at 0 becomes unloaded.
		all = append(all, seqs)
	}
	best := math.Inf(-1)
	load := make([]int, n)
	var comb func(j, w, unsaved int)
	comb = func(j, w, unsaved int) {
		if j == len(all) {
			if unsaved <= st.Keep(st.P) {
				best = math.Max(best, float64(w))
			}
			return
		}
		p := st.Jobs[j].P
		for _, s := range all[j] {
			ok := true
			for t, u := range s.use {
				if u && load[t]+p > st.P {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for t, u := range s.use {
				if u {
					load[t] += p
				}
			}
			un := unsaved
			if s.dirty {
				un += p
			}
			comb(j+1, w+p*s.work, un)
			for t, u := range s.use {
				if u {
					load[t] -= p
				}
			}
		}
	}
	comb(0, 0, 0)
	return best
}
