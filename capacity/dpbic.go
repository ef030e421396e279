package capacity

import "fmt"

// DPBiC is DPBIC(X) (Section 4.3.3, Appendix D.5): DPGOODPUT whose gains
// are weighted by (2 − Yield_j(T_i))^X in DP1 and (2 − Yield_j(T_{i+1} −
// C_max))^X in DP2, so that jobs behind in yield are preferred. DPBiC(0) is
// DPGOODPUT. With BestCnf it is DPBIC-BEST-Cnf(X). Time and memory as
// DPGoodput.
type DPBiC struct {
	X       float64
	BestCnf bool
	tp      twoPart
}

func (a *DPBiC) Name() string {
	if a.BestCnf {
		return fmt.Sprintf("dp-bic-best-cnf:%g", a.X)
	}
	return fmt.Sprintf("dp-bic:%g", a.X)
}

func (a *DPBiC) Plan(st *State) (*Plan, error) {
	a.tp.obj, a.tp.x, a.tp.bestCnf = objBiC, a.X, a.BestCnf
	return a.tp.plan(st)
}
