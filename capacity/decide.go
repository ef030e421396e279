package capacity

import "fmt"

// DecisionJob is the schedule of one job in a Decision.
type DecisionJob struct {
	Job     int        `json:"job"`
	P       int        `json:"p"`
	Case    uint8      `json:"case,omitempty"` // the path of Fig. 4 (15-path program only)
	Start   Status     `json:"start"`
	End     Status     `json:"end"`
	Work    float64    `json:"work"`
	Actions []Interval `json:"actions"`
}

// Decision is the validated plan of one section for a resource manager,
// the output of `ckpt capacity decide`.
type Decision struct {
	Algorithm string        `json:"algorithm"`
	P         int           `json:"p"`
	Length    float64       `json:"length"`
	Keep      int           `json:"keep"`   // Π_3 = max(P − δ, P_min)
	Cnf       float64       `json:"cnf"`    // end of phase 1
	Phase3    float64       `json:"phase3"` // start of phase 3, T − C_max
	Gain      float64       `json:"gain"`   // useful work Σ_j p_j·l_j of the section
	Goodput   float64       `json:"goodput"`
	Jobs      []DecisionJob `json:"jobs"`
}

// Decide plans the section of st with the algorithm named spec (see New),
// validates the plan (Validate) and measures it: the useful work Gain and
// the section's goodput Gain/(P·T). An invalid plan is an error naming the
// algorithm. st must be valid (ReadState validates it); its times are at
// most MaxTime, so every number is finite.
func Decide(st *State, spec string) (*Decision, error) {
	a, err := New(spec)
	if err != nil {
		return nil, err
	}
	pl, err := a.Plan(st)
	if err != nil {
		return nil, err
	}
	out, err := Validate(st, pl)
	if err != nil {
		return nil, fmt.Errorf("%s produced an invalid schedule: %v", a.Name(), err)
	}
	d := &Decision{Algorithm: a.Name(), P: st.P, Length: st.T, Keep: st.Keep(st.P), Cnf: pl.Cnf,
		Phase3: st.T - st.CMax(), Gain: out.Area}
	if st.P > 0 { // P = 0 (p_min = 0) does no work: goodput 0, not 0/0
		d.Goodput = out.Area / (float64(st.P) * st.T)
	}
	for j, ivs := range pl.Jobs {
		dj := DecisionJob{Job: j, P: st.Jobs[j].P, Start: st.Status[j], End: out.End[j], Work: out.Work[j], Actions: ivs}
		if dj.Actions == nil {
			dj.Actions = []Interval{}
		}
		if pl.Case != nil {
			dj.Case = pl.Case[j]
		}
		d.Jobs = append(d.Jobs, dj)
	}
	return d, nil
}
