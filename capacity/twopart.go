package capacity

// Glossary of twopart.go, from the code's names to the paper's symbols
// (Section 4.2.3, Appendices D.2–D.5):
//
//	T, st.T        the section length T_{i+1} − T_i
//	cmax           C_max, the length of phase 3 (the largest C_j)
//	cnf            C_nf, the length of phase 1
//	end2           T − C_max, the end of phase 2
//	run0           Σ_{J_j ∈ Run^(0)} p_j: DP1 starts at Π_1 = P_i − run0
//	opts, os       the cases of every job: (1)–(10) of G' in DP1, the two
//	               of H in DP2 (code 0 runs on, 1 checkpoints)
//	code           the case number of Appendix D
//	d1, d2         the processors a case takes from Π_1 (phase 1) and Π_2
//	               (phase 2); the DP2 capacity Π_3 = max(P_i − δ, P_min)
//	w, l           the work of a case in phases 1–2, and l_j(T_i)
//	lmin           l_min, the least work of the alive jobs (DPYIELD)
//	wgt            (2 − Yield_j(T_i))^X of DPBiC (D.5)
//	g2, g2c        the phase-3 gains of H: running on, or checkpointing
//	una            TARGETGOODPUT's una_i, the unused area allowed (D.4)
//	unaQ, unaA     the step of the discretised una, and una_i in steps:
//	               the third DP1 capacity
//	unused         the unused area p_j·C_j, p_j·R_j or p_j·(C_j + R_j) a
//	               case consumes from una
//	c1, c2         the cases chosen by DP1 and DP2 (traceback)
//	v1, v2         G'_m(P_i − run0, P_i[, una_i]) and H_m(Π_3)
//	k1, k2         the knapsacks of DP1 and DP2
//	Ja             the jobs active in phase 2, Run^(2) ∪ Rec^(2)

import (
	"errors"
	"math"
)

// objective selects the gain of the two-part programs of Appendix D.
type objective uint8

const (
	objGoodput objective = iota // D.2: useful work
	objBiC                      // D.5: useful work × (2 − Yield_j)^X
	objYield                    // D.3: minimum effective working time
)

// twoPart is the shared engine of DPGOODPUT, DPGOODPUT-BEST-Cnf, DPYIELD,
// DPBIC and DPBIC-BEST-Cnf (Section 4.2.3, Appendices D.2, D.3 and D.5):
// DP1 decides phases 1 and 2 on capacities (Π_1, Π_2), then DP2 decides
// which of the jobs active in phase 2 checkpoint in phase 3 on Π_3. Phase 3
// is C_max long; phase 1 is C_nf = C_max long, or, with bestCnf, every
// candidate of candidatesCnf is tried and the best total kept.
// Time O(m·P_max²) per C_nf (DP1) plus O(m·P_max) (DP2); memory reused.
type twoPart struct {
	obj     objective
	x       float64 // DPBiC exponent X
	bestCnf bool
	k1, k2  knap
	opts    [][]option
	// TARGETGOODPUT: una (allowed unused area) as a third DP1 capacity,
	// in units of unaQ (Appendix D.4).
	unaOn bool
	una   float64
	// DPYIELD's pruning of DP1 (prune.go): its scratch, and noPrune to
	// run the unpruned program (tests).
	vals        []float64
	kept        []option
	pick, order []int
	fit         []int
	noPrune     bool
}

// unaLevels is the number of steps of the discretised una dimension.
// Areas are rounded up, so a plan within the discretised budget is within
// the exact one.
const unaLevels = 64

var errNoPlan = errors.New("no feasible schedule: the section is too short for the checkpoint and recovery times")

func (tp *twoPart) plan(st *State) (*Plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	cmax := st.CMax()
	cands := []float64{cmax}
	if tp.bestCnf {
		cands = candidatesCnf(st)
	}
	var best *Plan
	var bestV vec
	for _, cnf := range cands {
		p, v, ok := tp.solve(st, cnf, cmax)
		if ok && (best == nil || better(v, bestV)) {
			best, bestV = p, v
		}
	}
	if best == nil {
		if tp.k1.tooBig || tp.k2.tooBig {
			return nil, errTooLarge
		}
		return nil, errNoPlan
	}
	return best, nil
}

// candidatesCnf is {C_k | J_k ∈ Run^(0)} ∪ {C_max}, sorted, without
// duplicates. The paper's set lacks C_max; adding it makes every -BEST-Cnf
// variant at least as good as its fixed-C_nf counterpart on every section
// and defines the set when no job is running at T_i.
func candidatesCnf(st *State) []float64 {
	cs := []float64{st.CMax()}
	for j, s := range st.Status {
		if s == Running {
			cs = append(cs, st.Jobs[j].C)
		}
	}
	sortUniq(&cs)
	return cs
}

func sortUniq(cs *[]float64) {
	s := *cs
	for i := 1; i < len(s); i++ {
		for k := i; k > 0 && s[k] < s[k-1]; k-- {
			s[k], s[k-1] = s[k-1], s[k]
		}
	}
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	*cs = out
}

func (tp *twoPart) weight(y float64) float64 {
	if tp.obj != objBiC || tp.x == 0 {
		return 1
	}
	return math.Pow(2-y, tp.x)
}

// solve runs DP1 and DP2 for one C_nf and returns the plan and its value
// (DP1.x + DP2.x, DP1.y, DP2.y) for comparing C_nf candidates.
func (tp *twoPart) solve(st *State, cnf, cmax float64) (*Plan, vec, bool) {
	unaQ, unaA, ok := tp.unaBudget()
	if !ok {
		return nil, vec{}, false
	}
	init := vec{}
	if tp.obj == objYield {
		init = vec{math.Inf(1), 0, 0}
	}
	run0 := tp.dp1Options(st, cnf, cmax, unaQ, unaA)
	tp.k1.lbOn = false
	switch {
	case tp.noPrune || tp.unaOn:
	case tp.obj == objYield:
		tp.pruneYield(st.P-run0, st.P, init)
	default:
		tp.k1.lb, tp.k1.lbOn, tp.pick, tp.order = goodputLowerBound(tp.opts, st.P-run0, st.P, tp.pick, tp.order)
	}
	tp.k1.leaf = nil
	if tp.unaOn {
		// D.4: the processors left unused in phases 1 and 2 consume
		// Π_2·T + Π_1·C_nf of the budget.
		T := st.T
		tp.k1.leaf = func(x0, x1, x2 int) vec {
			if float64(x2) < math.Ceil((float64(x1)*T+float64(x0)*cnf)/unaQ) {
				return negInf
			}
			return init
		}
	}
	v1, c1, ok := tp.k1.solve([3]int{st.P - run0, st.P, unaA}, tp.opts, init, tp.obj == objYield)
	if !ok {
		return nil, vec{}, false
	}
	tp.dp2Options(st, c1, cnf, cmax)
	v2, c2, ok := tp.k2.solve([3]int{0, 0, st.Keep(st.P)}, tp.opts, init, tp.obj == objYield)
	if !ok {
		return nil, vec{}, false
	}
	pl := planFromCases(st, fig4Cases(st, c1, c2), cnf)
	tot := vec{v1.x + v2.x, v1.y, v2.y}
	if tp.obj == objYield {
		tot = vec{math.Min(v1.x, v2.x), v1.y, v1.z}
	}
	pl.Gain = tot.x
	return pl, tot, true
}

// unaBudget returns the step unaQ of the discretised una dimension of
// TARGETGOODPUT and the budget una_i in steps (1, 0 without una); ok is
// false when the budget is already exhausted.
func (tp *twoPart) unaBudget() (unaQ float64, unaA int, ok bool) {
	if !tp.unaOn {
		return 1, 0, true
	}
	if tp.una < 0 {
		return 0, 0, false
	}
	unaQ = math.Max(tp.una/unaLevels, 1e-9)
	return unaQ, int(math.Floor(tp.una / unaQ)), true
}

// dp1Options fills tp.opts with the cases (1)–(10) of every job for DP1
// (Appendix D.2; D.3 gains for DPYIELD, D.4 una costs, D.5 weights) and
// returns Σ_{Run^(0)} p_j.
func (tp *twoPart) dp1Options(st *State, cnf, cmax, unaQ float64, unaA int) (run0 int) {
	lmin := math.Inf(1)
	if tp.obj == objYield {
		for j := range st.Jobs {
			if alive(st, j) {
				lmin = math.Min(lmin, work(st, j))
			}
		}
	}
	tp.opts = tp.opts[:0]
	for j, jb := range st.Jobs {
		if st.Status[j] == Running {
			run0 += jb.P
		}
		tp.opts = append(tp.opts, tp.jobOptions(st, j, cnf, st.T-cmax, lmin, unaQ, unaA))
	}
	return run0
}

// jobOptions lists the DP1 cases of job j: for each, the processors taken
// from (Π_1, Π_2, una) and the gain; end2 = T − C_max is the end of phase
// 2. A job that is done or not released has the neutral case only.
func (tp *twoPart) jobOptions(st *State, j int, cnf, end2, lmin, unaQ float64, unaA int) []option {
	jb := st.Jobs[j]
	p, T := jb.P, st.T
	s := st.Status[j]
	wgt := tp.weight(st.Yield(j))
	l := work(st, j)
	if !alive(st, j) {
		s = Done
	}
	var os []option
	add := func(code uint8, d1, d2 int, w float64, phase1Only bool, unused float64) {
		if w < 0 || (phase1Only && cnf > T) {
			return
		}
		active := d2 > 0
		var g vec
		switch tp.obj {
		case objYield:
			g = vec{l + w, 0, 0}
			if active {
				g.z = float64(p)
				if feq(l, lmin) {
					g.y = float64(p)
				}
			}
		default:
			g = vec{float64(p) * w * wgt, 0, 0}
			if active {
				g.y = 1
			}
		}
		o := option{d: [3]int{d1, d2, 0}, g: g, code: code}
		if tp.unaOn {
			o.d[2] = int(math.Ceil(float64(p) * unused / unaQ))
			if o.d[2] > unaA {
				return
			}
		}
		os = append(os, o)
	}
	switch s {
	case Running: // D.2 cases (1), (2)
		add(1, 0, p, end2, false, 0)
		add(2, 0, 0, cnf-jb.C, true, jb.C)
	case Checkpointed: // (3)–(6)
		add(3, p, p, end2, false, 0)
		add(4, p, 0, cnf-jb.C, true, jb.C)
		add(5, 0, p, end2-cnf-jb.R, false, jb.R)
		add(6, 0, 0, 0, false, 0)
	case Idle: // (7)–(10)
		add(7, p, p, end2-jb.R, false, jb.R)
		add(8, p, 0, cnf-jb.C-jb.R, true, jb.C+jb.R)
		add(9, 0, p, end2-cnf-jb.R, false, jb.R)
		add(10, 0, 0, 0, false, 0)
	default:
		os = append(os, option{g: tp.neutral()})
	}
	return os
}

// neutral is the gain of a job that takes no part: 0, or +∞ under min.
func (tp *twoPart) neutral() vec {
	if tp.obj == objYield {
		return vec{math.Inf(1), 0, 0}
	}
	return vec{}
}

// dp2Options fills tp.opts with the two cases of H for the jobs of
// Ja = Run^(2) ∪ Rec^(2) chosen by DP1 (c1): keep running through phase 3
// (taking p_j of Π_3) or checkpoint (when C_j ≤ T).
func (tp *twoPart) dp2Options(st *State, c1 []uint8, cnf, cmax float64) {
	end2 := st.T - cmax
	tp.opts = tp.opts[:0]
	for j, jb := range st.Jobs {
		var w float64 // l_j over phases 1–2
		switch c1[j] {
		case 1, 3:
			w = end2
		case 7:
			w = end2 - jb.R
		case 5, 9:
			w = end2 - cnf - jb.R
		default:
			tp.opts = append(tp.opts, []option{{g: tp.neutral()}})
			continue
		}
		run := option{d: [3]int{0, 0, jb.P}, g: tp.g2(st, j, w, cmax), code: 0}
		if jb.C > st.T {
			tp.opts = append(tp.opts, []option{run})
			continue
		}
		tp.opts = append(tp.opts, []option{run, {g: tp.g2c(st, j, w, cmax), code: 1}})
	}
}

// fig4Cases maps the DP1 case c1[j] and the DP2 choice c2[j] (1:
// checkpoint in phase 3) of every job to its path of Fig. 4.
func fig4Cases(st *State, c1, c2 []uint8) []uint8 {
	cases := make([]uint8, len(c1))
	for j := range cases {
		ck := c2[j] == 1
		switch c1[j] {
		case 1:
			cases[j] = pick(ck, caseRunCkpt3, caseRunRun)
		case 2:
			cases[j] = caseRunCkpt1
		case 3:
			cases[j] = pick(ck, caseCkptCkpt3, caseCkptRun)
		case 4:
			cases[j] = caseCkptCkpt1
		case 5:
			cases[j] = pick(ck, caseCkptRec2Ckpt, caseCkptRec2Run)
		case 6:
			cases[j] = caseCkptIdle
		case 7:
			cases[j] = pick(ck, caseIdleRec1Ckpt, caseIdleRec1Run)
		case 8:
			cases[j] = caseIdleRecCkpt1
		case 9:
			cases[j] = pick(ck, caseIdleRec2Ckpt, caseIdleRec2Run)
		default:
			cases[j] = 0
			if st.Status[j] == Idle {
				cases[j] = caseIdleIdle
			}
		}
	}
	return cases
}

func pick(c bool, a, b uint8) uint8 {
	if c {
		return a
	}
	return b
}

func work(st *State, j int) float64 {
	if st.Work == nil {
		return 0
	}
	return st.Work[j]
}

// g2 is the phase-3 gain of a job of Ja that keeps running (D.2–D.5 H).
func (tp *twoPart) g2(st *State, j int, w12, cmax float64) vec {
	p := float64(st.Jobs[j].P)
	switch tp.obj {
	case objYield:
		return vec{work(st, j) + w12 + cmax, 0, 0}
	case objBiC:
		return vec{p * cmax * tp.weight(tp.yieldAt(st, j, w12, cmax)), 0, 0}
	}
	return vec{p * cmax, 0, 0}
}

// g2c is the phase-3 gain of a job of Ja that checkpoints.
func (tp *twoPart) g2c(st *State, j int, w12, cmax float64) vec {
	jb := st.Jobs[j]
	p := float64(jb.P)
	switch tp.obj {
	case objYield:
		return vec{work(st, j) + w12 + cmax - jb.C, 1, 0}
	case objBiC:
		return vec{p * (cmax - jb.C) * tp.weight(tp.yieldAt(st, j, w12, cmax)), 1, 0}
	}
	return vec{p * (cmax - jb.C), 1, 0}
}

// yieldAt is Yield_j(T_{i+1} − C_max) after w12 of work in phases 1–2.
func (tp *twoPart) yieldAt(st *State, j int, w12, cmax float64) float64 {
	den := 0.0
	if st.Avail != nil {
		den = st.Avail[j]
	}
	if st.Jobs[j].P <= st.P {
		den += st.T - cmax
	}
	if den <= 0 {
		return 0
	}
	return (work(st, j) + w12) / den
}
