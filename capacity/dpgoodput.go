package capacity

// DPGoodput is DPGOODPUT (Section 4.2.3, Appendix D.2): DP1 on (Π_1, Π_2)
// with the ten phase-1/2 cases and C_nf = C_max, then DP2 on Π_3 choosing
// the phase-3 checkpoints; ties prefer more jobs active in phase 2, then more
// checkpointed at the end. With BestCnf it is DPGOODPUT-BEST-Cnf: every C_nf
// candidate is tried. Time O(m·P_max²) per section, O(m²·P_max²) with
// BestCnf; memory O(m·P_max²) bytes of traceback, reused between sections.
type DPGoodput struct {
	BestCnf bool
	tp      twoPart
}

func (a *DPGoodput) Name() string {
	if a.BestCnf {
		return "dp-goodput-best-cnf"
	}
	return "dp-goodput"
}

func (a *DPGoodput) Plan(st *State) (*Plan, error) {
	a.tp.obj, a.tp.bestCnf = objGoodput, a.BestCnf
	return a.tp.plan(st)
}
