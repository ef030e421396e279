package iosim

import (
	"fmt"
	"math"
)

// Fixed checkpoints every P seconds whatever the job (Section II; 1 h by
// default).
type Fixed float64

// Period returns P.
func (f Fixed) Period(int, float64, float64) float64 { return float64(f) }

func (f Fixed) String() string { return fmt.Sprintf("fixed %gs", float64(f)) }

// Daly is the Young/Daly period P = √(2 μ_j C_j) with μ_j = μ_ind/q_j
// (Eq. 5), C_j the interference-free checkpoint time.
type Daly struct{}

// Period returns √(2 μ C / q).
func (Daly) Period(q int, C, mu float64) float64 { return math.Sqrt(2 * mu / float64(q) * C) }

func (Daly) String() string { return "daly" }

// Never never checkpoints (the baseline).
type Never struct{}

// Period returns +Inf.
func (Never) Period(int, float64, float64) float64 { return math.Inf(1) }

func (Never) String() string { return "never" }
