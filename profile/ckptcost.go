package profile

import (
	"fmt"
	"math"
)

// CheckpointCost is the latency/bandwidth model of Section 4.2: writing V GB
// takes C(V) = Latency + V/Bandwidth seconds.
type CheckpointCost struct {
	// Latency l in seconds. Valid range [0, +∞).
	Latency float64 `json:"latency" yaml:"latency"`
	// Bandwidth b in GB/s. Valid range (0, +∞).
	Bandwidth float64 `json:"bandwidth" yaml:"bandwidth"`
}

// Cost is C(V) for V GB.
func (c CheckpointCost) Cost(v float64) float64 { return c.Latency + v/c.Bandwidth }

// Validate reports a latency below 0 or a bandwidth not above 0.
func (c CheckpointCost) Validate() error {
	if !(c.Latency >= 0) || math.IsInf(c.Latency, 0) {
		return fmt.Errorf("checkpoint latency %v s, want a finite value >= 0", c.Latency)
	}
	if !(c.Bandwidth > 0) || math.IsInf(c.Bandwidth, 0) {
		return fmt.Errorf("checkpoint bandwidth %v GB/s, want a finite value > 0", c.Bandwidth)
	}
	return nil
}

// CRIU is C(V) fitted by least squares to the 13 CRIU/podman
// measurements of checkpoint-costs/criu-podman-bandwidth.tsv (0.3 to 47 GB):
// l ≈ 4.1 s, b ≈ 0.207 GB/s. The test refits it from the file.
var CRIU = CheckpointCost{Latency: 4.1195, Bandwidth: 0.207072}

// CRIURestart is the same model fitted to the restart times of that table:
// R(V) ≈ 0.61 s + V / 0.523 GB/s.
var CRIURestart = CheckpointCost{Latency: 0.61183, Bandwidth: 0.522840}
