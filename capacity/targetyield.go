package capacity

import (
	"fmt"
	"math"
)

// TargetYield is TARGETYIELD(Y) (Section 4.3.1): DPGOODPUT in a section
// whose starting minimum yield minYield(T_i) is at least Y, DPYIELD
// otherwise. Time and memory as DPGoodput.
type TargetYield struct {
	Y  float64
	gp DPGoodput
	yd DPYield
}

func (a *TargetYield) Name() string { return fmt.Sprintf("target-yield:%g", a.Y) }

func (a *TargetYield) Plan(st *State) (*Plan, error) {
	if minYieldAt(st) >= a.Y {
		return a.gp.Plan(st)
	}
	return a.yd.Plan(st)
}

// minYieldAt is minYield(T_i) over the jobs that are not done.
func minYieldAt(st *State) float64 {
	y := math.Inf(1)
	for j := range st.Jobs {
		if alive(st, j) {
			y = math.Min(y, st.Yield(j))
		}
	}
	return y
}
