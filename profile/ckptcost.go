package profile

import (
	"fmt"
	"io"
	"math"

	"github.com/ckpt-hpc/ckpt/trace"
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

// CRIU is C(V) fitted by FitCheckpointCost to the 13 CRIU/podman
// measurements of checkpoint-costs/criu-podman-bandwidth.tsv (0.3 to 47 GB):
// l ≈ 4.1 s, b ≈ 0.207 GB/s. The test refits it from the file.
var CRIU = CheckpointCost{Latency: 4.1195, Bandwidth: 0.207072}

// CRIURestart is the same model fitted to the restart times of that table:
// R(V) ≈ 0.61 s + V / 0.523 GB/s.
var CRIURestart = CheckpointCost{Latency: 0.61183, Bandwidth: 0.522840}

// FitCheckpointCost is the ordinary least-squares fit of time = l + V/b to
// (size GB, seconds) pairs. It needs two distinct sizes and a positive slope.
func FitCheckpointCost(sizes, times []float64) (CheckpointCost, error) {
	n := len(sizes)
	if n != len(times) || n < 2 {
		return CheckpointCost{}, fmt.Errorf("need at least 2 (size, time) pairs, got %d and %d", len(sizes), len(times))
	}
	var sx, sy, sxx, sxy float64
	for i := range sizes {
		sx += sizes[i]
		sy += times[i]
		sxx += sizes[i] * sizes[i]
		sxy += sizes[i] * times[i]
	}
	fn := float64(n)
	den := fn*sxx - sx*sx
	if den <= 0 {
		return CheckpointCost{}, fmt.Errorf("sizes are all equal: cannot fit a bandwidth")
	}
	slope := (fn*sxy - sx*sy) / den
	if !(slope > 0) {
		return CheckpointCost{}, fmt.Errorf("checkpoint time does not grow with size (slope %v s/GB)", slope)
	}
	l := (sy - slope*sx) / fn
	return CheckpointCost{Latency: math.Max(l, 0), Bandwidth: 1 / slope}, nil
}

// CRIUFormat is the layout of the CRIU table
// (checkpoint-costs/criu-podman-bandwidth.tsv): a header line, then per
// measurement the size (GB), the checkpoint and restart times (s) and
// further columns (bandwidths) that are ignored.
var CRIUFormat = trace.CostFormat{Columns: []string{"size", "checkpoint", "restart"}, MoreColumns: true, Header: true}

// ReadCRIUCosts reads the CRIU table (CRIUFormat, through
// trace.ReadCostTable) and returns the sizes, checkpoint times and restart
// times. Errors are *trace.ParseError values naming the line.
func ReadCRIUCosts(r io.Reader, name string) (sizes, ckpt, restart []float64, err error) {
	t, err := trace.ReadCostTable(r, name, CRIUFormat)
	if err != nil {
		return nil, nil, nil, err
	}
	return t.Column(0), t.Column(1), t.Column(2), nil
}
