package capacity

import (
	"fmt"
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/trace"
)

// Params are the simulation parameters of Section 6.1.2.
type Params struct {
	Sections int     // n
	AvgT     float64 // section lengths ~ U[0.8, 1.2]·AvgT
	PMax     int
	PMinFrac float64 // P_min = PMinFrac·P_max
	Delta    float64 // δ = Delta·P_max
	Load     float64 // Σ_j p_j ≈ Load·P_max
	CLo, CHi float64 // C_j ~ U[CLo, CHi], R_j = C_j
}

// DefaultParams is the default simulation of Section 6.1.2: 400 sections,
// avgT = 100, P_max = 400, P_min = 0.2·P_max, δ = 0.1·P_max, Load = 2,
// C_j = R_j ~ U[5, 20]. The light simulation sets P_max = 100.
func DefaultParams() Params {
	return Params{Sections: 400, AvgT: 100, PMax: 400, PMinFrac: 0.2, Delta: 0.1, Load: 2, CLo: 5, CHi: 20}
}

// LightParams is DefaultParams with P_max = 100.
func LightParams() Params { p := DefaultParams(); p.PMax = 100; return p }

// Platform returns P_min and δ rounded to processors.
func (pr Params) Platform() Platform {
	return Platform{PMin: int(pr.PMinFrac*float64(pr.PMax) + 0.5), PMax: pr.PMax, Delta: int(pr.Delta*float64(pr.PMax) + 0.5)}
}

// Generate draws an instance (Section 6.1): P_1 uniform in [P_min, P_max],
// then P_{i+1} = P_i + U{−δ..δ} clamped to [P_min, P_max]; lengths
// U[0.8, 1.2]·avgT; job widths drawn from widths restricted to p ≤ P_min
// until Σ p_j ≥ Load·P_max; C_j ~ U[CLo, CHi], R_j = C_j. The paper does
// not say how P_i evolves; the clamped uniform walk is our choice.
func Generate(r *rand.Rand, pr Params, widths []int) (*Instance, error) {
	pl := pr.Platform()
	if err := pl.Validate(); err != nil {
		return nil, err
	}
	if pr.Sections < 1 || !(pr.AvgT > 0) || !(pr.Load > 0) || !(pr.CLo > 0) || pr.CHi < pr.CLo {
		return nil, fmt.Errorf("bad parameters %+v", pr)
	}
	var pool []int
	for _, w := range widths {
		if w >= 1 && w <= pl.PMin {
			pool = append(pool, w)
		}
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("no job of the workload fits in p_min = %d processors", pl.PMin)
	}
	in := &Instance{Platform: pl}
	p := pl.PMin + r.IntN(pl.PMax-pl.PMin+1)
	for range pr.Sections {
		in.Sections = append(in.Sections, Section{P: p, Length: pr.AvgT * (0.8 + 0.4*r.Float64())})
		p += r.IntN(2*pl.Delta+1) - pl.Delta
		p = min(max(p, pl.PMin), pl.PMax)
	}
	target := int(pr.Load*float64(pl.PMax) + 0.5)
	for sum := 0; sum < target; {
		w := pool[r.IntN(len(pool))]
		c := pr.CLo + (pr.CHi-pr.CLo)*r.Float64()
		in.Jobs = append(in.Jobs, Job{P: w, C: c, R: c})
		sum += w
	}
	return in, nil
}

// Widths returns the processor counts of an SWF log: the allocated
// processors, or the requested ones when unknown (−1); jobs with neither are
// skipped.
func Widths(jobs []trace.SWFJob) []int {
	var ws []int
	for _, j := range jobs {
		switch {
		case j.AllocatedProcs > 0:
			ws = append(ws, int(j.AllocatedProcs))
		case j.RequestedProcs > 0:
			ws = append(ws, int(j.RequestedProcs))
		}
	}
	return ws
}
