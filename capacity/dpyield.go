package capacity

// DPYield is DPYIELD (Section 4.2.4, Appendix D.3): the two-part program
// with the value (minimum effective working time over the jobs,
// processors given to the jobs of minimum work, processors used),
// combined by (min, +, +) and compared lexicographically. For infinite jobs
// that may all run in every section the minimum yield is the minimum work
// over a common denominator. Time and memory as DPGoodput.
type DPYield struct{ tp twoPart }

func (a *DPYield) Name() string { return "dp-yield" }

func (a *DPYield) Plan(st *State) (*Plan, error) {
	a.tp.obj = objYield
	return a.tp.plan(st)
}
