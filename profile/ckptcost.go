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

// MaxSeconds is the largest duration a profile may give (a checkpoint
// latency, a restart cost, a task's walltime at its quantile 1 − 10⁻⁷):
// reservation.MaxWalltime, 10¹⁰ s (317 years), the bound of every duration
// of the planner. Larger values come from a unit error.
const MaxSeconds = 1e10

// MinBandwidth is the smallest checkpoint bandwidth, in GB/s (1 byte/s):
// below it C(V) of a large V overflows.
const MinBandwidth = 1e-9

// Cost is C(V) for V GB.
func (c CheckpointCost) Cost(v float64) float64 { return c.Latency + v/c.Bandwidth }

// Validate reports a latency outside [0, MaxSeconds] or a bandwidth
// below MinBandwidth or infinite.
func (c CheckpointCost) Validate() error {
	if !(c.Latency >= 0 && c.Latency <= MaxSeconds) {
		return fmt.Errorf("checkpoint latency %v s, want a value in [0, %.0e]", c.Latency, float64(MaxSeconds))
	}
	if !(c.Bandwidth >= MinBandwidth) || math.IsInf(c.Bandwidth, 0) {
		return fmt.Errorf("checkpoint bandwidth %v GB/s, want a finite value >= %g", c.Bandwidth, MinBandwidth)
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
