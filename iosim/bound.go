package iosim

import (
	"errors"
	"fmt"
	"math"
)

// BoundClass is one application class in the steady state of Section IV.
type BoundClass struct {
	Name  string
	Jobs  float64 // n_i, jobs of the class running at any time (may be fractional)
	Nodes float64 // q_i
	C, R  float64 // checkpoint and recovery times without interference (s)
	// Work is the longest work of a job of the class (1.2 w, Section V)
	// in seconds; 0 for jobs that never end. Only FractionBound uses it.
	Work float64
}

// Bound is Theorem 1's lower bound on the platform waste.
type Bound struct {
	// Waste is W of Eq. (7) at the periods below.
	Waste float64 `json:"waste"`
	// Lambda is the smallest λ ≥ 0 such that Eq. (6) holds.
	Lambda float64 `json:"lambda"`
	// Periods are the P_i of Eq. (8); Daly the unconstrained P_i of
	// Eq. (5) (λ = 0).
	Periods []float64 `json:"periods"`
	Daly    []float64 `json:"daly"`
	// IOFraction is F of Eq. (6) at Periods (≤ 1); DalyIOFraction at Daly.
	IOFraction     float64 `json:"io_fraction"`
	DalyIOFraction float64 `json:"daly_io_fraction"`
	// DalyWaste is Eq. (7) at the Daly periods, whether or not they meet
	// the I/O constraint (a bound only when DalyIOFraction ≤ 1).
	DalyWaste float64 `json:"daly_waste"`
}

// Eq8 is the KKT period of Eq. (8): P = √(2μN/q² (q/N + λ) C).
func Eq8(q, C, N, mu, lambda float64) float64 {
	return math.Sqrt(2 * mu * N / (q * q) * (q/N + lambda) * C)
}

// Eq7 is the platform waste W = Σ n_i q_i/N (C_i/P_i + q_i/μ (P_i/2 + R_i)).
func Eq7(cs []BoundClass, P []float64, N, mu float64) float64 {
	w := 0.0
	for i, c := range cs {
		w += c.Jobs * c.Nodes / N * (c.C/P[i] + c.Nodes/mu*(P[i]/2+c.R))
	}
	return w
}

// Eq6 is the I/O usage F = Σ n_i C_i / P_i.
func Eq6(cs []BoundClass, P []float64) float64 {
	f := 0.0
	for i, c := range cs {
		f += c.Jobs * c.C / P[i]
	}
	return f
}

// LowerBound evaluates Theorem 1 for the classes on N nodes of MTBF mu:
// the periods of Eq. (8) with the smallest λ ≥ 0 meeting Eq. (6), found by
// doubling then bisection on F(λ), which decreases strictly in λ (every
// P_i grows with λ), to a relative precision of 1e-12; waste from Eq. (7).
//
// The KKT multiplier λ is dimensionless (W and F are). W depends on C and
// μ only through C/μ: scaling both leaves the bound unchanged. O(K · 100)
// for K classes.
func LowerBound(cs []BoundClass, N, mu float64) (Bound, error) {
	if len(cs) == 0 {
		return Bound{}, errors.New("bound: no class")
	}
	if !(N > 0) || !(mu > 0) || math.IsInf(mu, 0) {
		return Bound{}, fmt.Errorf("bound: need N > 0 and finite μ > 0, got N=%v μ=%v", N, mu)
	}
	for _, c := range cs {
		if !(c.Jobs >= 0) || !(c.Nodes > 0) || !(c.C > 0) || !(c.R >= 0) {
			return Bound{}, fmt.Errorf("bound: class %s: need n ≥ 0, q > 0, C > 0, R ≥ 0", c.Name)
		}
	}
	periods := func(l float64) []float64 {
		P := make([]float64, len(cs))
		for i, c := range cs {
			P[i] = Eq8(c.Nodes, c.C, N, mu, l)
		}
		return P
	}
	F := func(l float64) float64 { return Eq6(cs, periods(l)) }
	var b Bound
	b.Daly = periods(0)
	b.DalyIOFraction = Eq6(cs, b.Daly)
	b.DalyWaste = Eq7(cs, b.Daly, N, mu)
	lambda := 0.0
	if b.DalyIOFraction > 1 {
		lo, hi := 0.0, 1.0
		for F(hi) > 1 {
			lo, hi = hi, hi*2
			if hi > 1e300 {
				return Bound{}, errors.New("bound: no λ meets the I/O constraint")
			}
		}
		for range 2000 {
			mid := (lo + hi) / 2
			if F(mid) > 1 {
				lo = mid
			} else {
				hi = mid
			}
			if hi-lo <= 1e-12*hi {
				break
			}
		}
		lambda = hi // F(hi) ≤ 1: feasible
	}
	b.Lambda = lambda
	b.Periods = periods(lambda)
	b.IOFraction = Eq6(cs, b.Periods)
	b.Waste = Eq7(cs, b.Periods, N, mu)
	return b, nil
}

// BoundOptions selects how a Config becomes the steady state of Section IV.
type BoundOptions struct {
	// FullBandwidth uses β for the checkpoints, as the paper's Maple code
	// does; by default checkpoints get β_avail = β minus the steady-state
	// rate of input, output and regular I/O (Section IV: "assuming these
	// operations span the entire execution of the jobs").
	FullBandwidth bool
	// Maple reproduces the published bound curve: on the embedded
	// platforms, with the Maple files' own inputs (MapleFiles: their
	// shares, job sizes, checkpoint times and units); on any other
	// platform, the files' computation on its classes. Class job counts
	// are n_i q_i ∝ share_i / w_i, and λ = min(0, r) where r solves F = 1,
	// so λ = 0 whenever the I/O constraint binds. See PaperBound.
	Maple bool
}

// BoundClasses turns c into the steady state of Theorem 1: n_i = share_i N
// / q_i jobs of class i run at any time (the class holds its share of the
// nodes), C_i = R_i = checkpoint bytes / β_avail.
func (c *Config) BoundClasses(o BoundOptions) ([]BoundClass, float64, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	if m, ok := c.mapleInputs(); ok && o.Maple {
		return mapleClasses(m, float64(c.Platform.Bandwidth)), float64(c.Platform.Bandwidth), nil
	}
	N := float64(c.Platform.Nodes)
	beta := float64(c.Platform.Bandwidth)
	cs := make([]BoundClass, len(c.Classes))
	norm := 0.0
	for _, k := range c.Classes {
		if o.Maple {
			norm += k.Share / float64(k.Walltime)
		}
	}
	ioRate := 0.0
	for i, k := range c.Classes {
		n := k.Share * N / float64(k.Nodes)
		if o.Maple {
			n = k.Share / float64(k.Walltime) / norm * N / float64(k.Nodes)
		}
		cs[i] = BoundClass{Name: k.Name, Jobs: n, Nodes: float64(k.Nodes), Work: 1.2 * float64(k.Walltime)}
		mem := c.JobMemory(i)
		ioRate += n * (k.Input + k.Output + k.RegularIO) * mem / float64(k.Walltime)
	}
	if !o.FullBandwidth && !o.Maple {
		beta -= ioRate
		if !(beta > 0) {
			return nil, 0, fmt.Errorf("bound: regular I/O (%.4g B/s) uses all the bandwidth (%.4g B/s)", ioRate, c.Platform.Bandwidth)
		}
	}
	for i := range cs {
		cs[i].C = c.Classes[i].Checkpoint * c.JobMemory(i) / beta
		cs[i].R = cs[i].C
	}
	return cs, beta, nil
}

// LowerBound is Theorem 1 for the config (see BoundClasses); with
// o.Maple it is the published curve (PaperBound).
func (c *Config) LowerBound(o BoundOptions) (Bound, error) {
	cs, _, err := c.BoundClasses(o)
	if err != nil {
		return Bound{}, err
	}
	N, mu := float64(c.Platform.Nodes), float64(c.Platform.NodeMTBF)
	if o.Maple {
		return PaperBound(cs, N, mu)
	}
	return LowerBound(cs, N, mu)
}

// PaperBound is what the paper's Maple code computes: λ = min(0, r) with
// r the root of F(λ) = 1. When the I/O constraint binds (r > 0) it returns
// the Daly periods (λ = 0), which violate Eq. (6), so the curve lies below
// Theorem 1's bound exactly where bandwidth is scarce; when it does not
// bind (r < 0) it returns periods shorter than Daly's, which waste more
// than λ = 0 (and are undefined once q_i/N + r < 0, where we return NaN).
func PaperBound(cs []BoundClass, N, mu float64) (Bound, error) {
	b, err := LowerBound(cs, N, mu)
	if err != nil {
		return b, err
	}
	if b.Lambda > 0 { // r > 0: min(0, r) = 0
		b.Lambda = 0
		b.Periods = b.Daly
		b.IOFraction = b.DalyIOFraction
		b.Waste = b.DalyWaste
		return b, nil
	}
	// r ≤ 0 solves F(r) = 1 below 0: bisection on (−min q/N, 0].
	lo := math.Inf(-1)
	for _, c := range cs {
		lo = math.Max(lo, -c.Nodes/N)
	}
	F := func(l float64) float64 {
		f := 0.0
		for _, c := range cs {
			f += c.Jobs * c.C / Eq8(c.Nodes, c.C, N, mu, l)
		}
		return f
	}
	hi := 0.0
	if F(lo*(1-1e-15)) < 1 { // root below the domain: Maple's fsolve fails
		b.Waste, b.Lambda = math.NaN(), math.NaN()
		return b, nil
	}
	for range 2000 {
		mid := (lo + hi) / 2
		if F(mid) > 1 {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-15 {
			break
		}
	}
	b.Lambda = hi
	b.Periods = make([]float64, len(cs))
	for i, c := range cs {
		b.Periods[i] = Eq8(c.Nodes, c.C, N, mu, hi)
	}
	b.IOFraction = Eq6(cs, b.Periods)
	b.Waste = Eq7(cs, b.Periods, N, mu)
	return b, nil
}
