package capacity

import (
	"errors"
	"fmt"
	"math"
)

// TargetGoodput is TARGETGOODPUT(G) (Section 4.3.2, Appendix D.4): DPYIELD
// whose DP1 also tracks una, the unused area still allowed so that the
// goodput stays above the target G·(bound): checkpoints and recoveries of
// phases 1–2 and the processors left idle (Π_2·T + Π_1·C_nf) consume it.
// una_i = (1 − G)·MW_i + una_{i−1} − (1 − RG_{i−1})·MW_{i−1}, which unrolls
// to (1 − G)·MW_i − G·Σ_{k<i} MW_k + Σ_{k<i} work_k. una is discretised in
// unaLevels steps, areas rounded up (conservative). When no plan meets the
// budget (una_i < 0, or too small) the section falls back to DPGOODPUT, the
// most goodput that can be recovered; the paper does not say what to do
// then. A section whose una table is too large (errTooLarge) is refused,
// not planned by DPGOODPUT. Time O(m·P_max²·unaLevels) per section.
type TargetGoodput struct {
	G  float64
	tp twoPart
	gp DPGoodput
}

func (a *TargetGoodput) Name() string { return fmt.Sprintf("target-goodput:%g", a.G) }

func (a *TargetGoodput) Plan(st *State) (*Plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	cmin, rmin := math.Inf(1), math.Inf(1)
	for _, jb := range st.Jobs {
		cmin, rmin = math.Min(cmin, jb.C), math.Min(rmin, jb.R)
	}
	mw := MW(st.Platform, st.P, st.PrevP, st.T, rmin, cmin)
	a.tp.obj, a.tp.unaOn = objYield, true
	a.tp.una = (1-a.G)*mw - a.G*st.MWSum + st.WorkSum
	p, err := a.tp.plan(st)
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, errTooLarge):
		return nil, err // not DPGOODPUT in its name
	}
	return a.gp.Plan(st)
}
