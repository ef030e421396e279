package profile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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

// ReadCRIUCosts reads the CRIU table (tab- or space-separated, a header line
// first: Size(GB), CheckpointTime(s), RestartTime(s), …) and returns the
// sizes, checkpoint times and restart times. Errors name the line.
func ReadCRIUCosts(r io.Reader, name string) (sizes, ckpt, restart []float64, err error) {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Fields(s)
		if line == 1 {
			if _, e := strconv.ParseFloat(f[0], 64); e != nil {
				continue // header
			}
		}
		if len(f) < 3 {
			return nil, nil, nil, &trace.ParseError{Source: name, Line: line, Msg: fmt.Sprintf("want size, checkpoint time, restart time; got %q", s)}
		}
		var v [3]float64
		for k := range 3 {
			x, e := strconv.ParseFloat(f[k], 64)
			if e != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return nil, nil, nil, &trace.ParseError{Source: name, Line: line, Msg: fmt.Sprintf("field %d %q is not a number >= 0", k+1, f[k])}
			}
			v[k] = x
		}
		sizes, ckpt, restart = append(sizes, v[0]), append(ckpt, v[1]), append(restart, v[2])
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, &trace.ParseError{Source: name, Line: line + 1, Msg: err.Error()}
	}
	if len(sizes) == 0 {
		return nil, nil, nil, &trace.ParseError{Source: name, Msg: "no measurement"}
	}
	return sizes, ckpt, restart, nil
}
