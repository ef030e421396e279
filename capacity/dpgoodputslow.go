package capacity

// DPGoodputSlow is DPGOODPUTSLOW-BEST-Cnf (Section 4.2.1, Appendix D.1)
// when BestCnf is set, DPGOODPUTSLOW (C_nf = C_max, Section 4.2.3)
// otherwise: one dynamic program over the 15 paths of Fig. 4 with the three
// capacities (Π_1, Π_2, Π_3) and the value (work, jobs active at the end,
// jobs checkpointed at the end) compared lexicographically. With equal
// checkpoint times it is optimal (Theorem 1, Corollary 1). Time
// O(m·P_max³) per C_nf (O(m²·P_max³) with BestCnf), memory O(m·P_max³)
// bytes of traceback, reused between sections.
type DPGoodputSlow struct {
	BestCnf bool
	k       knap
	opts    [][]option
}

func (a *DPGoodputSlow) Name() string {
	if a.BestCnf {
		return "dp-goodput-slow-best-cnf"
	}
	return "dp-goodput-slow"
}

func (a *DPGoodputSlow) Plan(st *State) (*Plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	cands := []float64{st.CMax()}
	if a.BestCnf {
		cands = candidatesCnf(st)
	}
	var best *Plan
	var bestV vec
	for _, cnf := range cands {
		p, v, ok := a.solve(st, cnf)
		if ok && (best == nil || better(v, bestV)) {
			best, bestV = p, v
		}
	}
	if best == nil {
		if a.k.tooBig {
			return nil, errTooLarge
		}
		return nil, errNoPlan
	}
	return best, nil
}

func (a *DPGoodputSlow) solve(st *State, cnf float64) (*Plan, vec, bool) {
	a.opts = a.opts[:0]
	run0 := 0
	for j, jb := range st.Jobs {
		if st.Status[j] == Running {
			run0 += jb.P
		}
		var os []option
		for _, c := range casesFor(st.Status[j]) {
			if !alive(st, j) {
				break
			}
			w, ok := caseWork(c, jb, st.T, cnf)
			if !ok {
				continue
			}
			in1, in2, in3, act, ck := caseUse(c)
			o := option{code: c, g: vec{float64(jb.P) * w, b2f(act), b2f(ck)}}
			if in1 {
				o.d[0] = jb.P
			}
			if in2 {
				o.d[1] = jb.P
			}
			if in3 {
				o.d[2] = jb.P
			}
			os = append(os, o)
		}
		if !alive(st, j) {
			os = []option{{}}
		}
		a.opts = append(a.opts, os)
	}
	v, codes, ok := a.k.solve([3]int{st.P - run0, st.P, st.Keep(st.P)}, a.opts, vec{}, false)
	if !ok {
		return nil, v, false
	}
	pl := planFromCases(st, codes, cnf)
	pl.Gain = v.x
	return pl, v, true
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
