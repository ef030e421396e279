package capacity

import (
	"fmt"
	"math"
	"strconv"
)

// Bounds on the simulation parameters and on the times of a state file:
// beyond them the sums of the dynamic programs (P_max·T per section, over
// 10⁷ sections) would lose their precision or overflow.
const (
	// MaxSections bounds Params.Sections.
	MaxSections = 10_000_000
	// MaxLoad bounds Params.Load (Σ p_j / P_max).
	MaxLoad = 1000
	// MaxTime bounds every time: section lengths, AvgT, C_j, R_j, and the
	// work and yield denominators of a state file.
	MaxTime = 1e12
	// MaxInstances bounds the instances per sweep point: a million
	// instances of the smallest setting take days; more is a typo.
	MaxInstances = 1_000_000
)

// ParamError is a simulation parameter out of its range. Param is its name
// as SetParam takes it (avgT, pmax, pmin, delta, load, sections) or cmin,
// cmax for the checkpoint-time range.
type ParamError struct {
	Param string
	Value float64
	// Want says what the value must be ("a fraction in [0, 1]").
	Want string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s = %s: must be %s", e.Param, formatValue(e.Value), e.Want)
}

// formatValue prints a parameter's value as the user typed it (NaN and
// ±Inf included, never an integer conversion of them).
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Validate reports the first parameter out of its range as a *ParamError:
// 1 ≤ Sections ≤ MaxSections, 1 ≤ PMax ≤ MaxProcessors, PMinFrac and Delta
// fractions in [0, 1], 0 < Load ≤ MaxLoad, 0 < AvgT ≤ MaxTime,
// 0 < CLo ≤ CHi ≤ MaxTime, and P_min = round(PMinFrac·PMax) ≥ 1 (MinPMax).
// NaN is out of every range.
func (pr Params) Validate() error {
	checks := []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"sections", float64(pr.Sections), pr.Sections >= 1 && pr.Sections <= MaxSections, fmt.Sprintf("in [1, %d]", MaxSections)},
		{"pmax", float64(pr.PMax), pr.PMax >= 1 && pr.PMax <= MaxProcessors, fmt.Sprintf("in [1, %d]", MaxProcessors)},
		{"pmin", pr.PMinFrac, pr.PMinFrac >= 0 && pr.PMinFrac <= 1, "a fraction of P_max in [0, 1]"},
		{"delta", pr.Delta, pr.Delta >= 0 && pr.Delta <= 1, "a fraction of P_max in [0, 1]"},
		{"load", pr.Load, pr.Load > 0 && pr.Load <= MaxLoad, fmt.Sprintf("in (0, %d]", MaxLoad)},
		{"avgT", pr.AvgT, pr.AvgT > 0 && pr.AvgT <= MaxTime, fmt.Sprintf("in (0, %g]", float64(MaxTime))},
		{"cmin", pr.CLo, pr.CLo > 0 && pr.CLo <= MaxTime, fmt.Sprintf("in (0, %g]", float64(MaxTime))},
		{"cmax", pr.CHi, pr.CHi >= pr.CLo && pr.CHi <= MaxTime, fmt.Sprintf("in [cmin, %g]", float64(MaxTime))},
		// A checkpoint below the resolution of the longest section (1.2·avgT·2^-44, as
		// a state file's) cannot be told from 0 there: the plans it gave were invalid.
		{"cmin", pr.CLo, pr.CLo >= 1.2*pr.AvgT*0x1p-44, fmt.Sprintf("at least the time resolution of a section, 1.2·avgT·2^-44 = %.3g", 1.2*pr.AvgT*0x1p-44)},
	}
	for _, c := range checks {
		if !c.ok {
			return &ParamError{Param: c.name, Value: c.v, Want: c.want}
		}
	}
	// The jobs are drawn no wider than P_min (Generate): P_min = 0 has none.
	if pr.Platform().PMin < 1 {
		lo := MinPMax(pr.PMinFrac)
		if lo > MaxProcessors {
			return &ParamError{Param: "pmin", Value: pr.PMinFrac, Want: fmt.Sprintf("at least %g so that P_min = round(pmin·pmax) >= 1 processor", 0.5/float64(MaxProcessors))}
		}
		return &ParamError{Param: "pmax", Value: float64(pr.PMax), Want: fmt.Sprintf("in [%d, %d] so that P_min = round(%g·pmax) >= 1 processor", lo, MaxProcessors, pr.PMinFrac)}
	}
	return pr.Platform().Validate()
}

// MinPMax returns the least P_max for which P_min = round(pminFrac·P_max)
// is at least 1 (MaxProcessors+1 when none up to MaxProcessors is).
func MinPMax(pminFrac float64) int {
	if !(pminFrac > 0) {
		return MaxProcessors + 1
	}
	lo := int(min(math.Ceil(0.5/pminFrac), MaxProcessors+1))
	for lo > 1 && (Params{PMax: lo - 1, PMinFrac: pminFrac}).Platform().PMin >= 1 {
		lo--
	}
	for lo <= MaxProcessors && (Params{PMax: lo, PMinFrac: pminFrac}).Platform().PMin < 1 {
		lo++
	}
	return lo
}

// SetParam sets the parameter named by one of avgT, pmax, pmin (fraction of
// P_max), delta (fraction of P_max), load, sections. pmax and sections must
// be integers; the ranges are checked by Params.Validate.
func SetParam(pr *Params, name string, v float64) error {
	integer := func(hi int) (int, error) {
		if v != math.Trunc(v) || !(v >= 1 && v <= float64(hi)) {
			return 0, &ParamError{Param: name, Value: v, Want: fmt.Sprintf("an integer in [1, %d]", hi)}
		}
		return int(v), nil
	}
	var err error
	switch name {
	case "avgT":
		pr.AvgT = v
	case "pmax":
		pr.PMax, err = integer(MaxProcessors)
	case "pmin":
		pr.PMinFrac = v
	case "delta":
		pr.Delta = v
	case "load":
		pr.Load = v
	case "sections":
		pr.Sections, err = integer(MaxSections)
	default:
		return fmt.Errorf("unknown parameter %q (want avgT, pmax, pmin, delta, load or sections)", name)
	}
	return err
}

// ParseRelease reads a release-date method: "" (infinite jobs), fifo,
// smallest or accumulation.
func ParseRelease(s string) (ReleaseMethod, error) {
	switch m := ReleaseMethod(s); m {
	case "", FIFO, Smallest, Accumulation:
		return m, nil
	}
	return "", fmt.Errorf("release method %q: want fifo, smallest or accumulation", s)
}
