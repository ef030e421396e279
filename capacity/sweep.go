package capacity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/trace"
)

// Workload is a named pool of job widths (Section 6.1.1).
type Workload struct {
	Name   string
	Widths []int
	// Specs are the jobs with their run times (finite jobs, Section 6.3);
	// nil for a workload without run times.
	Specs []JobSpec
}

// DefaultTimeUnit is the paper's time unit in seconds (Appendix E.5.1).
const DefaultTimeUnit = 20

// UniformWorkload has widths 1..n equally likely (a synthetic stand-in
// when no log is at hand).
func UniformWorkload(n int) Workload {
	w := Workload{Name: "uniform"}
	for p := 1; p <= n; p++ {
		w.Widths = append(w.Widths, p)
	}
	return w
}

// LoadWorkload reads the widths of a job log: a CQSim result file (".rst",
// semicolon-separated, as the KIT ForHLR II file of the shared data) or an
// SWF v2.2 log, gzipped or not. Errors name the file and line.
func LoadWorkload(path string) (Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return Workload{}, err
	}
	defer f.Close()
	name := filepath.Base(path)
	var jobs []trace.SWFJob
	if strings.HasSuffix(path, ".rst") {
		jobs, err = trace.ReadCQSim(f, name)
	} else {
		_, jobs, err = trace.ReadSWF(f, name)
	}
	if err != nil {
		return Workload{}, err
	}
	ws := Widths(jobs)
	if len(ws) == 0 {
		return Workload{}, fmt.Errorf("%s: no job with a known processor count", name)
	}
	short := strings.SplitN(name, "-", 2)[0]
	return Workload{Name: short, Widths: ws, Specs: Specs(jobs, DefaultTimeUnit)}, nil
}

// SweepPoint is one (workload, parameters, algorithm) cell of a sweep.
// Instance numbers the (workload, parameters) pair: the instances of a
// replicate are drawn from Seed(base, Instance, rep), so every algorithm
// of a cell sees the same instances.
type SweepPoint struct {
	Workload *Workload
	Params   Params
	Algo     string
	Vary     string  // name of the varied parameter (label)
	Value    float64 // its value (label)
	Instance int
	// Release, when set, makes the jobs finite with release dates by this
	// method (GenerateFinite); the workload needs run times.
	Release ReleaseMethod
}

// SweepRow is one simulated instance.
type SweepRow struct {
	Workload    string  `row:"workload"`
	Vary        string  `row:"vary"`
	Value       float64 `row:"value"`
	Algorithm   string  `row:"algorithm"`
	Jobs        int     `row:"jobs"`
	Goodput     float64 `row:"goodput"`
	MinYield    float64 `row:"min_yield"`
	RelGoodput  float64 `row:"rel_goodput"`
	RelYield    float64 `row:"rel_yield"`
	Checkpoints int     `row:"checkpoints"`
	Recoveries  int     `row:"recoveries"`
	Finished    int     `row:"finished"`
}

// RunSweepItem draws the instance of (pt, rep) and simulates pt.Algo on it.
func RunSweepItem(pt SweepPoint, base uint64, rep int) (SweepRow, *Result, error) {
	r := runner.NewRand(runner.Seed(base, pt.Instance, rep))
	var in *Instance
	var err error
	if pt.Release != "" {
		if len(pt.Workload.Specs) == 0 {
			return SweepRow{}, nil, fmt.Errorf("workload %s has no run times: finite jobs need an SWF or CQSim log", pt.Workload.Name)
		}
		in, err = GenerateFinite(r, pt.Params, pt.Workload.Specs, pt.Release)
	} else {
		in, err = Generate(r, pt.Params, pt.Workload.Widths)
	}
	if err != nil {
		return SweepRow{}, nil, err
	}
	a, err := New(pt.Algo)
	if err != nil {
		return SweepRow{}, nil, err
	}
	res, err := Simulate(in, a)
	if err != nil {
		return SweepRow{}, nil, err
	}
	return SweepRow{Workload: pt.Workload.Name, Vary: pt.Vary, Value: pt.Value, Algorithm: pt.Algo,
		Jobs: len(in.Jobs), Goodput: res.Goodput, MinYield: res.MinYield, RelGoodput: res.RelGoodput,
		RelYield: res.RelYield, Checkpoints: res.Checkpoints, Recoveries: res.Recoveries, Finished: res.Finished}, res, nil
}

// SetParam sets the parameter named by one of avgT, pmax, pmin (fraction of
// P_max), delta (fraction of P_max), load, sections.
func SetParam(pr *Params, name string, v float64) error {
	switch name {
	case "avgT":
		pr.AvgT = v
	case "pmax":
		pr.PMax = int(v)
	case "pmin":
		pr.PMinFrac = v
	case "delta":
		pr.Delta = v
	case "load":
		pr.Load = v
	case "sections":
		pr.Sections = int(v)
	default:
		return fmt.Errorf("unknown parameter %q (want avgT, pmax, pmin, delta, load or sections)", name)
	}
	return nil
}

// InUnits expresses the widths in allocation units of u processors
// (⌈p/u⌉): the ALCF Theta log allocates 128 nodes at least, so none of its
// jobs fits under P_min = 0.2·P_max of the paper's settings unless counted
// in 128-node blocks.
func (w Workload) InUnits(u int) Workload {
	out := Workload{Name: w.Name, Widths: make([]int, len(w.Widths))}
	for i, p := range w.Widths {
		out.Widths[i] = (p + u - 1) / u
	}
	for _, s := range w.Specs {
		out.Specs = append(out.Specs, JobSpec{(s.P + u - 1) / u, s.L})
	}
	return out
}
