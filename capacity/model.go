package capacity

import (
	"fmt"
	"math"
)

// Job is a rigid job J_j (Section 2): it runs on exactly P processors or
// not at all, checkpoints in time C and recovers in time R (also the first
// time it runs). Release and Length describe a finite job (Section 5);
// Length = 0 means an infinite job.
type Job struct {
	P       int     `json:"p"`                 // p_j, processors, ≥ 1
	C       float64 `json:"c"`                 // C_j, checkpoint time, > 0
	R       float64 `json:"r"`                 // R_j, recovery time, > 0
	Release float64 `json:"release,omitempty"` // r_j, release date (finite jobs)
	Length  float64 `json:"length,omitempty"`  // L_j, work to do (finite jobs); 0 = infinite
}

// Platform holds the constants of the machine: P_min ≤ P_i ≤ P_max and
// |P_{i+1} − P_i| ≤ Delta (Section 2).
type Platform struct {
	PMin  int `json:"p_min"`
	PMax  int `json:"p_max"`
	Delta int `json:"delta"`
}

// Validate reports the first inconsistent field.
func (pl Platform) Validate() error {
	switch {
	case pl.Delta < 0:
		return fmt.Errorf("delta = %d: must be >= 0", pl.Delta)
	case pl.PMin < 0:
		return fmt.Errorf("p_min = %d: must be >= 0", pl.PMin)
	case pl.PMax < 1:
		return fmt.Errorf("p_max = %d: must be >= 1", pl.PMax)
	case pl.PMin > pl.PMax:
		return fmt.Errorf("p_min = %d > p_max = %d", pl.PMin, pl.PMax)
	}
	return nil
}

// Keep is Π_3 = max(P − δ, P_min): the most processors that jobs running
// without a checkpoint may hold right before the next event, so that at
// least min(δ, P − P_min) processors are checkpointed (Section 4.2.1).
func (pl Platform) Keep(p int) int { return max(p-pl.Delta, pl.PMin) }

// Status is a job's state at an event T_i (the end of phase 0 of Fig. 4).
type Status uint8

const (
	// Idle: the job holds no processors (Idle^(0)); it must recover first.
	Idle Status = iota
	// Checkpointed: the job holds its processors and its state is saved
	// (Ckpt^(0)); it may continue without recovery or be stopped freely.
	Checkpointed
	// Running: the job holds its processors and has unsaved work (Run^(0));
	// it must stay active until it checkpoints.
	Running
	// Done: a finite job that has completed (Section 5).
	Done
)

var statusNames = [...]string{"idle", "checkpointed", "running", "done"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// ParseStatus is the inverse of String.
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames {
		if n == s {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q (want idle, checkpointed or running)", s)
}

// MarshalText writes the status name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	*s = v
	return err
}

// State is what an online algorithm knows at event T_i: the platform, the
// current section (P_i and its length T = T_{i+1} − T_i, never P_{i+1}),
// every job with its status and its history.
type State struct {
	Platform
	P      int      // P_i
	T      float64  // T_{i+1} − T_i
	Jobs   []Job    // J_1..J_m
	Status []Status // status of each job at T_i
	// Work[j] is l_j(T_i), the effective working time so far.
	Work []float64
	// Avail[j] is the yield's denominator at T_i: ∫_{r_j}^{T_i} 1{P(u) ≥ p_j} du
	// (Eq. 2). Yield_j(T_i) = Work[j]/Avail[j], 0 when Avail[j] = 0.
	Avail []float64
	// PrevP is P_{i−1} (0 for the first section); MWSum is Σ_{k<i} MW_k and
	// WorkSum Σ_{k<i} Σ_j p_j l_j^k. TargetGoodput derives una_i from them.
	PrevP   int
	MWSum   float64
	WorkSum float64
	// Now is T_i (finite jobs: release dates are compared with it).
	Now float64
}

// Yield returns Yield_j(T_i) (Eq. 2).
func (s *State) Yield(j int) float64 {
	if s.Avail == nil || s.Avail[j] <= 0 {
		return 0
	}
	return s.Work[j] / s.Avail[j]
}

// CMax returns C_max over the jobs that are not done (0 if none).
func (s *State) CMax() float64 {
	c := 0.0
	for j, jb := range s.Jobs {
		if s.Status[j] != Done && jb.Release <= s.Now {
			c = math.Max(c, jb.C)
		}
	}
	return c
}

// Validate checks the state: the platform, P_min ≤ P ≤ P_max, T > 0, every
// job at most P_max wide with finite non-negative costs, and slices of m
// entries.
func (s *State) Validate() error {
	if err := s.Platform.Validate(); err != nil {
		return err
	}
	if s.P < s.PMin || s.P > s.PMax {
		return fmt.Errorf("p = %d outside [p_min, p_max] = [%d, %d]", s.P, s.PMin, s.PMax)
	}
	if !(s.T > 0) || math.IsInf(s.T, 0) {
		return fmt.Errorf("section length %v: must be > 0 and finite", s.T)
	}
	m := len(s.Jobs)
	if len(s.Status) != m || (s.Work != nil && len(s.Work) != m) || (s.Avail != nil && len(s.Avail) != m) {
		return fmt.Errorf("state has %d jobs but %d statuses, %d work and %d avail entries", m, len(s.Status), len(s.Work), len(s.Avail))
	}
	run := 0
	for j, jb := range s.Jobs {
		if err := jb.validate(s.PMax); err != nil {
			return fmt.Errorf("job %d: %v", j, err)
		}
		if s.Status[j] > Done {
			return fmt.Errorf("job %d: invalid status %d", j, s.Status[j])
		}
		if s.Status[j] == Running {
			run += jb.P
		}
		if s.Status[j] != Idle && s.Status[j] != Done && jb.Release > s.Now {
			return fmt.Errorf("job %d: %s before its release date %v", j, s.Status[j], jb.Release)
		}
		if s.Work != nil && (s.Work[j] < 0 || math.IsNaN(s.Work[j])) {
			return fmt.Errorf("job %d: work %v must be >= 0", j, s.Work[j])
		}
	}
	if run > s.P {
		return fmt.Errorf("running jobs hold %d processors but p = %d", run, s.P)
	}
	return nil
}

func (jb Job) validate(pmax int) error {
	switch {
	case jb.P < 1:
		return fmt.Errorf("p = %d: must be >= 1", jb.P)
	case jb.P > pmax:
		return fmt.Errorf("p = %d wider than p_max = %d", jb.P, pmax)
	case !(jb.C > 0) || math.IsInf(jb.C, 0):
		return fmt.Errorf("c = %v: must be > 0 and finite", jb.C)
	case !(jb.R > 0) || math.IsInf(jb.R, 0):
		return fmt.Errorf("r = %v: must be > 0 and finite", jb.R)
	case !(jb.Length >= 0) || math.IsInf(jb.Length, 0):
		return fmt.Errorf("length = %v: must be >= 0 and finite", jb.Length)
	case !(jb.Release >= 0) || math.IsInf(jb.Release, 0):
		return fmt.Errorf("release = %v: must be >= 0 and finite", jb.Release)
	}
	return nil
}
