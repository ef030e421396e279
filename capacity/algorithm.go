package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/registry"
)

// Algorithm decides the schedule of one section from what is known at its
// start. Implementations may keep scratch memory between calls (they are
// not safe for concurrent use); Plan must not modify the state.
type Algorithm interface {
	Name() string
	Plan(st *State) (*Plan, error)
}

// Factory builds an algorithm from its numeric parameter (ignored by the
// algorithms that have none).
type Factory struct {
	New      func(param float64) Algorithm
	HasParam bool
	// ParamMax is the largest accepted parameter (the smallest is 0):
	// 1 for the fractions Y and G of TargetYield and TargetGoodput.
	ParamMax float64
}

// MaxBiCExponent bounds the X of DPBiC(X): the gains are weighted by
// (2 − Yield_j)^X ≤ 2^X, which must stay far from overflow (the paper
// uses X ≤ 45).
const MaxBiCExponent = 100

// algorithms is the table of the algorithms by name (the names of the
// paper in lower case; sorted).
var algorithms = registry.New("algorithm",
	registry.Entry[Factory]{Name: "dp-bic",
		Help:  "DPBIC(X): DPGOODPUT with gains weighted by (2-Yield_j)^X (Sec. 4.3.3, App. D.5)",
		Value: Factory{New: func(x float64) Algorithm { return &DPBiC{X: x} }, HasParam: true, ParamMax: MaxBiCExponent}},
	registry.Entry[Factory]{Name: "dp-bic-best-cnf",
		Help:  "DPBIC-BEST-Cnf(X): DPBIC for every C_nf candidate",
		Value: Factory{New: func(x float64) Algorithm { return &DPBiC{X: x, BestCnf: true} }, HasParam: true, ParamMax: MaxBiCExponent}},
	registry.Entry[Factory]{Name: "dp-goodput",
		Help:  "DPGOODPUT: two-part DP (DP1 phases 1-2, DP2 phase 3), C_nf = C_max (Sec. 4.2.3, App. D.2)",
		Value: Factory{New: func(float64) Algorithm { return &DPGoodput{} }}},
	registry.Entry[Factory]{Name: "dp-goodput-best-cnf",
		Help:  "DPGOODPUT-BEST-Cnf: DPGOODPUT for every C_nf candidate",
		Value: Factory{New: func(float64) Algorithm { return &DPGoodput{BestCnf: true} }}},
	registry.Entry[Factory]{Name: "dp-goodput-slow",
		Help:  "DPGOODPUTSLOW: the 15-case DP on (Π1, Π2, Π3) with C_nf = C_max (Sec. 4.2.3)",
		Value: Factory{New: func(float64) Algorithm { return &DPGoodputSlow{} }}},
	registry.Entry[Factory]{Name: "dp-goodput-slow-best-cnf",
		Help:  "DPGOODPUTSLOW-BEST-Cnf: the 15-case DP for every C_nf candidate (Sec. 4.2.1, App. D.1)",
		Value: Factory{New: func(float64) Algorithm { return &DPGoodputSlow{BestCnf: true} }}},
	registry.Entry[Factory]{Name: "dp-yield",
		Help:  "DPYIELD: two-part DP maximising the minimum work (Sec. 4.2.4, App. D.3)",
		Value: Factory{New: func(float64) Algorithm { return &DPYield{} }}},
	registry.Entry[Factory]{Name: "greedy-goodput",
		Help:  "GREEDYGOODPUT: widest jobs first, checkpoint the fewest at the end (Sec. 4.1.1, Alg. 1)",
		Value: Factory{New: func(float64) Algorithm { return &GreedyGoodput{} }}},
	registry.Entry[Factory]{Name: "greedy-yield",
		Help:  "GREEDYYIELD: lowest yield first, checkpoint everything at the end (Sec. 4.1.2)",
		Value: Factory{New: func(float64) Algorithm { return &GreedyYield{} }}},
	registry.Entry[Factory]{Name: "target-goodput",
		Help:  "TARGETGOODPUT(G): DPYIELD under an unused-area budget keeping goodput >= G·bound (Sec. 4.3.2, App. D.4)",
		Value: Factory{New: func(g float64) Algorithm { return &TargetGoodput{G: g} }, HasParam: true, ParamMax: 1}},
	registry.Entry[Factory]{Name: "target-yield",
		Help:  "TARGETYIELD(Y): DPGOODPUT once minYield >= Y, DPYIELD before (Sec. 4.3.1)",
		Value: Factory{New: func(y float64) Algorithm { return &TargetYield{Y: y} }, HasParam: true, ParamMax: 1}},
)

// Names lists the algorithms, sorted.
func Names() []string { return algorithms.Names() }

// New builds the algorithm named spec: "dp-goodput", or "dp-bic:15",
// "target-yield:0.5", "target-goodput:0.9" for the parameterised ones. The
// parameter must be a number in [0, ParamMax]: a fraction in [0, 1] for
// target-yield and target-goodput, an exponent in [0, MaxBiCExponent] for
// dp-bic.
func New(spec string) (Algorithm, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	f, err := algorithms.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := 0.0
	switch {
	case f.HasParam && !hasArg:
		return nil, fmt.Errorf("algorithm %q needs a parameter: %s:X with X in [0, %g]", name, name, f.ParamMax)
	case !f.HasParam && hasArg:
		return nil, fmt.Errorf("algorithm %q takes no parameter (got %q)", name, arg)
	case hasArg:
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(v >= 0 && v <= f.ParamMax) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("algorithm %q: bad parameter %q (want a number in [0, %g])", name, arg, f.ParamMax)
		}
		p = v
	}
	return f.New(p), nil
}

// ParseList resolves a comma-separated list of algorithm specs (as
// --strategies takes it): every spec must be valid, none empty or given
// twice. It returns the specs, trimmed.
func ParseList(list string) ([]string, error) {
	specs, err := registry.SplitList(list)
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		if _, err := New(s); err != nil {
			return nil, err
		}
	}
	return specs, nil
}
