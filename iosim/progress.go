package iosim

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/units"
)

// NoProgressError is CheckProgress's refusal: the platform's failures come
// too fast for some class (or all of them) to make progress, with the
// arithmetic that shows it.
type NoProgressError struct {
	// Class is the first class that cannot progress ("" when the refusal
	// is Theorem 1's platform-wide waste).
	Class string
	// C is the class's interference-free checkpoint (and recovery) time,
	// MTBF its jobs' MTBF μ_ind/q, both in seconds.
	C, MTBF float64
	// Nodes is q, the class's nodes per job.
	Nodes int
	// Waste is Theorem 1's lower bound with the whole bandwidth for
	// checkpoints (≥ 1 when Class is "").
	Waste float64
}

func (e *NoProgressError) Error() string {
	if e.Class == "" {
		return fmt.Sprintf("the platform cannot make progress: Theorem 1 gives a waste of at least %.3g ≥ 1 even with the whole bandwidth for checkpoints (raise the MTBF or the bandwidth, or switch failures off)", e.Waste)
	}
	return fmt.Sprintf("the platform cannot make progress: class %s checkpoints (and recovers) in C = %s but its %d-node jobs fail every %s on average (node MTBF / %d), so C ≥ MTBF and the expected waste is ≥ 1 (raise the MTBF or the bandwidth, or switch failures off)",
		e.Class, units.FormatSeconds(e.C), e.Nodes, units.FormatSeconds(e.MTBF), e.Nodes)
}

// CheckProgress refuses a platform on which failures leave no progress to
// simulate, before any event is fired: a class whose interference-free
// checkpoint time C = R is at least its jobs' MTBF μ_ind/q (a failure is
// expected during every checkpoint and every recovery), or a platform
// whose Theorem 1 bound with the whole bandwidth for checkpoints (the
// smallest first-order waste any strategy can reach) is ≥ 1. It returns a
// *NoProgressError, or nil. A run with failures switched off is never
// refused. O(K) for K classes.
func (c *Config) CheckProgress() error {
	mu := float64(c.Platform.NodeMTBF)
	if math.IsInf(mu, 1) {
		return nil
	}
	for k, cl := range c.Classes {
		C := c.CheckpointTime(k)
		muJ := mu / float64(cl.Nodes)
		if !(C < muJ) {
			return &NoProgressError{Class: cl.Name, C: C, MTBF: muJ, Nodes: cl.Nodes}
		}
	}
	b, err := c.LowerBound(BoundOptions{FullBandwidth: true})
	if err != nil {
		return err
	}
	if err := checkFiniteBound(*c, b, false); err != nil {
		return err // an MTBF so large that Eq. (8) overflows, not a platform that cannot progress
	}
	if !(b.Waste < 1) {
		return &NoProgressError{Waste: b.Waste}
	}
	return nil
}
