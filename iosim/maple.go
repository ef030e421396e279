package iosim

import (
	"errors"
	"fmt"
	"math"
)

// MapleInputs are the inputs of one of the paper's Maple bound files
// (maple/celio.mpl and maple/prospective.mpl of
// SMURFSorg/InterferingCheckpoints, the same as sim/figures/model.mpl and
// prosp-model.mpl of SMURFSorg/ABBFHR17-cCR-Platform). They differ from
// Table I and from the simulated platforms:
//
//   - the class shares ("workload") are 0.66, 0.055, 0.155, 0.12 (Table I
//     has 0.165 for Silverton; they sum to 0.99), and n_i q_i ∝ share_i/w_i;
//   - the prospective file keeps Cielo's job sizes (cores/16: 1 024, 256,
//     2 048, 1 875 nodes) on its 50 000 nodes, and its checkpoint times
//     (43.58, 12.60, 190.67, 42.39 s at 1 TB/s, "extracted from the
//     simulation trace") are not those of the simulated prospective
//     classes (2 294 s for EAP at 1 TB/s);
//   - celio.mpl has C and μ both in hours; prospective.mpl has C in
//     seconds and μ in hours (M·24·365 for a node MTBF of M years), so its
//     C/μ is 3 600 times the consistent one: every checkpoint counts as if
//     it took 3 600 times longer;
//   - the prospective curve is the bandwidth at which the bound's waste
//     is 0.8 (a bisection stopped once the waste is within [0.799, 0.801]),
//     not an efficiency of 0.8;
//   - both use R = C, the full bandwidth, and λ = min(0, r) (PaperBound).
type MapleInputs struct {
	File   string
	Nodes  float64   // N
	Shares []float64 // the files' "workload"
	Q      []float64 // nodes per job
	Wall   []float64 // work time in hours (only ratios matter)
	// CkptRef are the checkpoint times in seconds at RefBandwidth; C_i =
	// CkptRef_i · RefBandwidth / β · CUnit (CUnit = 3 600 when the file's C
	// is in seconds and its μ in hours).
	CkptRef      []float64
	RefBandwidth float64
	CUnit        float64
	// TargetWaste is the waste the file's bandwidth curve aims at (0 when
	// the file has no such curve).
	TargetWaste float64
}

// MapleFiles are the Maple files' inputs by embedded platform name.
var MapleFiles = map[string]MapleInputs{
	"cielo": {File: "maple/celio.mpl", Nodes: 17784, Shares: []float64{0.66, 0.055, 0.155, 0.12},
		Q: []float64{1024, 256, 2048, 1875}, Wall: []float64{262.4, 64, 128, 157.2},
		CkptRef: []float64{1310.72, 378.88, 5734.4, 1275}, RefBandwidth: 40e9, CUnit: 1},
	"prospective": {File: "maple/prospective.mpl", Nodes: 50000, Shares: []float64{0.66, 0.055, 0.155, 0.12},
		Q: []float64{1024, 256, 2048, 1875}, Wall: []float64{262.4, 64, 128, 157.2},
		CkptRef: []float64{43.58144, 12.597, 190.67, 42.389}, RefBandwidth: 1e12, CUnit: 3600, TargetWaste: 0.8},
}

// apexNames are the class names of the embedded platforms, in order.
var apexNames = []string{"EAP", "LAP", "Silverton", "VPIC"}

// mapleInputs returns the Maple file's inputs for c when c is one of the
// embedded platforms (by name, node count and class names).
func (c *Config) mapleInputs() (MapleInputs, bool) {
	m, ok := MapleFiles[c.Platform.Name]
	if !ok || float64(c.Platform.Nodes) != m.Nodes || len(c.Classes) != len(apexNames) {
		return MapleInputs{}, false
	}
	for i, k := range c.Classes {
		if k.Name != apexNames[i] {
			return MapleInputs{}, false
		}
	}
	return m, true
}

// mapleClasses are the steady-state classes of the Maple file m at
// bandwidth beta (n_i q_i ∝ share_i / w_i, Σ n_i q_i = N).
func mapleClasses(m MapleInputs, beta float64) []BoundClass {
	norm := 0.0
	for i := range m.Shares {
		norm += m.Shares[i] / m.Wall[i]
	}
	cs := make([]BoundClass, len(m.Shares))
	for i := range cs {
		C := m.CkptRef[i] * m.RefBandwidth / beta * m.CUnit
		cs[i] = BoundClass{Name: apexNames[i], Jobs: m.Shares[i] / m.Wall[i] / norm * m.Nodes / m.Q[i], Nodes: m.Q[i], C: C, R: C}
	}
	return cs
}

// MapleBandwidthFor replays the bandwidth search of prospective.mpl for a
// node MTBF of mu seconds: start with [10¹¹, 10¹²] B/s, multiply the
// bracket by 10 while the waste at its top exceeds the target, then bisect
// until the wastes at both ends are within 0.001 of it, and return the last
// midpoint, as the file prints it. It returns the bandwidth and the waste
// there. O(K) per evaluation, a few dozen evaluations.
func MapleBandwidthFor(m MapleInputs, mu float64) (bw, waste float64, err error) {
	if !(m.TargetWaste > 0) {
		return 0, 0, fmt.Errorf("%s has no bandwidth curve", m.File)
	}
	W := func(beta float64) (float64, error) {
		b, err := PaperBound(mapleClasses(m, beta), m.Nodes, mu)
		return b.Waste, err
	}
	t := m.TargetWaste
	minBW, maxBW := 1e11, 1e12
	maxW, err := W(minBW)
	if err != nil {
		return 0, 0, err
	}
	minW, err := W(maxBW)
	for ; err == nil && minW > t; minW, err = W(maxBW) {
		if maxBW > 1e30 {
			return 0, 0, errors.New("maple: the waste target is not reached below 1e30 B/s")
		}
		minBW = maxBW
		if maxW, err = W(minBW); err != nil {
			return 0, 0, err
		}
		maxBW *= 10
	}
	if err != nil {
		return 0, 0, err
	}
	bw = math.NaN()
	for i := 0; maxW > t+0.001 || minW < t-0.001; i++ {
		if i > 200 {
			return 0, 0, errors.New("maple: the bisection does not converge")
		}
		bw = (maxBW + minBW) / 2
		w, err := W(bw)
		if err != nil {
			return 0, 0, err
		}
		if w < t {
			maxBW = bw
		} else {
			minBW = bw
		}
		if maxW, err = W(minBW); err != nil {
			return 0, 0, err
		}
		if minW, err = W(maxBW); err != nil {
			return 0, 0, err
		}
	}
	waste, err = W(bw)
	return bw, waste, err
}

// BoundBandwidthFor is the smallest bandwidth in [lo, hi] at which the
// lower bound on the waste fraction (FractionBound) is at most 1 −
// efficiency: no strategy can reach the efficiency with less (a bandwidth
// that regular I/O uses up counts as waste 1). Bisection
// on a log scale to relative precision relTol; O(log(hi/lo)/relTol)
// bound evaluations.
func BoundBandwidthFor(c Config, efficiency, lo, hi, relTol float64) (float64, error) {
	if !(efficiency > 0 && efficiency < 1) || !(lo > 0 && hi > lo) || !(relTol > 0) {
		return 0, fmt.Errorf("need efficiency in (0, 1), 0 < lo < hi and tolerance > 0, got %v, %v, %v, %v", efficiency, lo, hi, relTol)
	}
	if err := c.Validate(); err != nil {
		return 0, err
	}
	if math.IsInf(float64(c.Platform.NodeMTBF), 1) {
		return 0, errors.New("the bound needs a finite node MTBF")
	}
	ok := func(beta float64) (bool, error) {
		cb := c.WithBandwidth(beta)
		w, err := cb.FractionBound()
		// The only error left: regular I/O uses all of beta (waste 1).
		return err == nil && w <= 1-efficiency, nil
	}
	return smallestGood(lo, hi, relTol, ok, func() error {
		return fmt.Errorf("the bound does not reach efficiency %v even at %g B/s: %w", efficiency, hi, ErrNotReached)
	})
}

// MapleCurve is the published bandwidth curve's point for c's node MTBF
// (MapleBandwidthFor with the Maple file of c's embedded platform): an
// error when c is not an embedded platform or its file has no curve.
func (c *Config) MapleCurve() (bw, waste float64, err error) {
	m, ok := c.mapleInputs()
	if !ok || !(m.TargetWaste > 0) {
		return 0, 0, fmt.Errorf("platform %s: only the prospective system's Maple file (maple/prospective.mpl) has a bandwidth curve", c.Platform.Name)
	}
	return MapleBandwidthFor(m, float64(c.Platform.NodeMTBF))
}
