package capacity

import (
	"context"
	"fmt"
	"math"
)

// Section is one interval [T_i, T_{i+1}) with P_i processors.
type Section struct {
	P      int     `json:"p"`
	Length float64 `json:"length"`
}

// Instance is a whole scenario: the platform, the sections and the jobs,
// all Idle at T_1.
type Instance struct {
	Platform
	Sections []Section
	Jobs     []Job
}

// Validate checks the platform, every section (P_min ≤ P_i ≤ P_max,
// |P_{i+1} − P_i| ≤ δ, positive length) and every job.
func (in *Instance) Validate() error {
	if err := in.Platform.Validate(); err != nil {
		return err
	}
	if len(in.Sections) == 0 {
		return fmt.Errorf("no section")
	}
	for i, s := range in.Sections {
		if !(s.Length > 0) || math.IsInf(s.Length, 0) {
			return fmt.Errorf("section %d: length %v must be > 0 and finite", i, s.Length)
		}
		if s.P < in.PMin || s.P > in.PMax {
			return fmt.Errorf("section %d: p = %d outside [p_min, p_max] = [%d, %d]", i, s.P, in.PMin, in.PMax)
		}
		if i > 0 && abs(s.P-in.Sections[i-1].P) > in.Delta {
			return fmt.Errorf("section %d: p changes by %d > delta = %d", i, s.P-in.Sections[i-1].P, in.Delta)
		}
	}
	for j, jb := range in.Jobs {
		if err := jb.validate(in.PMax); err != nil {
			return fmt.Errorf("job %d: %v", j, err)
		}
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Result summarises a simulation; every number is computed from the
// validated plans.
type Result struct {
	Algorithm string    `json:"algorithm"`
	Goodput   float64   `json:"goodput"`   // Eq. (1)
	MinYield  float64   `json:"min_yield"` // Eq. (3)
	Yields    []float64 `json:"yields"`    // Eq. (2) at T_{n+1}
	// GoodputBound and YieldBound are the upper bounds of Section 3.4;
	// RelGoodput and RelYield the ratios to them.
	GoodputBound float64   `json:"goodput_bound"`
	YieldBound   float64   `json:"yield_bound"`
	RelGoodput   float64   `json:"rel_goodput"`
	RelYield     float64   `json:"rel_yield"`
	Checkpoints  int       `json:"checkpoints"`
	Finished     int       `json:"finished"` // finite jobs completed
	Recoveries   int       `json:"recoveries"`
	Work         []float64 `json:"-"`
}

// MW is the most useful work of section i (Section 3.4): P_i·T −
// max(0, P_i − P_{i−1})·R_min − min(δ, P_i − P_min)·C_min, with P_0 = 0.
func MW(pl Platform, p, prevP int, T, rmin, cmin float64) float64 {
	return float64(p)*T - float64(max(0, p-prevP))*rmin - float64(min(pl.Delta, p-pl.PMin))*cmin
}

// Bounds returns the upper bounds of Section 3.4 on the goodput (Σ MW_i
// over Σ P_i T_i) and on the minimum yield (T_y/(T_{n+1} − T_1) with
// T_y = Σ MW_i / Σ_j p_j, capped at 1).
func Bounds(in *Instance) (goodput, yield float64) {
	cmin, rmin := math.Inf(1), math.Inf(1)
	sp := 0
	for _, jb := range in.Jobs {
		cmin, rmin = math.Min(cmin, jb.C), math.Min(rmin, jb.R)
		sp += jb.P
	}
	var mw, area, total float64
	prev := 0
	for _, s := range in.Sections {
		mw += MW(in.Platform, s.P, prev, s.Length, rmin, cmin)
		area += float64(s.P) * s.Length
		total += s.Length
		prev = s.P
	}
	if sp == 0 {
		return mw / area, 1
	}
	return mw / area, math.Min(1, mw/float64(sp)/total)
}

// NewState returns the state at T_1 (every job idle, no history).
func NewState(in *Instance) *State {
	m := len(in.Jobs)
	return &State{Platform: in.Platform, Jobs: in.Jobs, Status: make([]Status, m),
		Work: make([]float64, m), Avail: make([]float64, m)}
}

// Advance validates plan for the current section of st (P, T already set),
// and moves st to the next event. It returns the outcome.
func Advance(st *State, pl *Plan, cmin, rmin float64) (*Outcome, error) {
	out, err := Validate(st, pl)
	if err != nil {
		return nil, err
	}
	for j, jb := range st.Jobs {
		if st.Status[j] == Done {
			continue
		}
		// Eq. 2 with release dates (Section 5.1): the job is counted from
		// r_j to its completion e_j.
		from, to := math.Max(0, jb.Release-st.Now), st.T
		if out.Completed[j] >= 0 {
			to = out.Completed[j]
		}
		if jb.P <= st.P && to > from {
			st.Avail[j] += to - from
		}
		st.Work[j] += out.Work[j]
		st.Status[j] = out.End[j]
	}
	st.MWSum += MW(st.Platform, st.P, st.PrevP, st.T, rmin, cmin)
	st.WorkSum += out.Area
	st.PrevP = st.P
	st.Now += st.T
	return out, nil
}

// SimulateContext runs algo over every section of the instance, validating
// every plan (an invalid plan is an error naming the section). It checks
// ctx before every section (one plan: milliseconds in the paper's
// settings) and returns ctx.Err() when it is done.
func SimulateContext(ctx context.Context, in *Instance, algo Algorithm) (*Result, error) {
	res := &Result{Algorithm: algo.Name()}
	st, area, finite, err := runSections(ctx, in, algo, 0, func(_ int, _ float64, _ int, pl *Plan) {
		for _, ivs := range pl.Jobs {
			for _, iv := range ivs {
				switch iv.Kind {
				case Checkpoint:
					res.Checkpoints++
				case Recover:
					res.Recoveries++
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	res.Work = st.Work
	res.Goodput = st.WorkSum / area
	res.MinYield = math.Inf(1)
	for j, jb := range in.Jobs {
		if jb.Release >= st.Now {
			continue // released after the end (finite jobs)
		}
		y := st.Yield(j)
		res.Yields = append(res.Yields, y)
		res.MinYield = math.Min(res.MinYield, y)
	}
	if len(res.Yields) == 0 {
		res.MinYield = 0
	}
	res.GoodputBound, res.YieldBound = Bounds(in)
	res.RelGoodput = unsigned0(res.Goodput / res.GoodputBound)
	if finite {
		// The yield bound of Section 3.4 assumes infinite jobs; Section
		// 5.1's bound for finite jobs is FiniteYieldBound (in the tests).
		res.YieldBound = 0
	} else {
		res.RelYield = unsigned0(res.MinYield / res.YieldBound)
	}
	res.Finished = 0
	for _, s := range st.Status {
		if s == Done {
			res.Finished++
		}
	}
	return res, nil
}

// runSections runs algo over the first sections of the instance (all when
// sections <= 0): it plans each section (Finish for finite jobs), calls
// each with the section's index, start time, processor count and plan, and
// validates and applies the plan (Advance). It checks ctx before every
// section. It returns the final state, the processor-time Σ P·T of the
// sections run, and whether some job is finite. SimulateContext and Trace
// are this loop.
func runSections(ctx context.Context, in *Instance, algo Algorithm, sections int, each func(i int, start float64, p int, pl *Plan)) (st *State, area float64, finite bool, err error) {
	if err := in.Validate(); err != nil {
		return nil, 0, false, err
	}
	st = NewState(in)
	cmin, rmin := math.Inf(1), math.Inf(1)
	for _, jb := range in.Jobs {
		cmin, rmin = math.Min(cmin, jb.C), math.Min(rmin, jb.R)
		finite = finite || jb.Length > 0
	}
	if sections <= 0 || sections > len(in.Sections) {
		sections = len(in.Sections)
	}
	for i, s := range in.Sections[:sections] {
		if err := ctx.Err(); err != nil {
			return nil, 0, false, err
		}
		st.P, st.T = s.P, s.Length
		pl, err := algo.Plan(st)
		if err == nil && finite {
			pl, err = Finish(st, pl)
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("section %d: %s: %w", i, algo.Name(), err)
		}
		each(i, st.Now, s.P, pl)
		if _, err := Advance(st, pl, cmin, rmin); err != nil {
			return nil, 0, false, fmt.Errorf("section %d: %s produced an invalid plan: %w", i, algo.Name(), err)
		}
		area += float64(s.P) * s.Length
	}
	return st, area, finite, nil
}

// unsigned0 is x with −0 made 0: a zero over a negative bound (the
// checkpoint costs exceed the section) printed "-0".
func unsigned0(x float64) float64 {
	if x == 0 {
		return 0
	}
	return x
}
