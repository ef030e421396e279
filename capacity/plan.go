package capacity

import "fmt"

// Kind is what a job does on its processors during an interval.
type Kind uint8

const (
	Run        Kind = iota // useful work (counts in l_j)
	Checkpoint             // saving the state, C_j long
	Recover                // loading the state, R_j long
)

var kindNames = [...]string{"run", "checkpoint", "recover"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MarshalText writes the kind name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown activity %q (want run, checkpoint or recover)", b)
}

// Interval is one activity of a job, in time relative to the start of the
// section: [Start, End) ⊆ [0, T]. A job holds its p_j processors exactly
// during its intervals; between them it is idle.
type Interval struct {
	Kind  Kind    `json:"kind"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Plan is the explicit schedule of one section: the intervals of every job,
// sorted by start. Gain is the algorithm's own objective value, for
// information only: metrics are always recomputed from the validated
// intervals.
type Plan struct {
	T    float64      `json:"t"`
	Jobs [][]Interval `json:"jobs"`
	// Case[j] is the path of Fig. 4 (1..15) chosen for job j by the
	// phase-based algorithms, 0 otherwise.
	Case []uint8 `json:"cases,omitempty"`
	// Cnf is the length of phase 1 chosen by the phase-based algorithms.
	Cnf  float64 `json:"cnf"`
	Gain float64 `json:"gain"`
}

// NewPlan returns an empty plan (every job idle) for m jobs.
func NewPlan(m int, T float64) *Plan {
	return &Plan{T: T, Jobs: make([][]Interval, m)}
}

// add appends [s, e) of kind k to job j, dropping empty intervals.
func (p *Plan) add(j int, k Kind, s, e float64) {
	if e > s {
		p.Jobs[j] = append(p.Jobs[j], Interval{k, s, e})
	}
}
