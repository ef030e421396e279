package capacity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/registry"
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
// semicolon-separated, as the KIT ForHLR II file of the shared data), a
// Batsim JSON workload (".json"; run times from delay profiles) or an SWF
// v2.2 log, gzipped or not. Errors name the file and line.
func LoadWorkload(path string) (Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return Workload{}, err
	}
	defer f.Close()
	name := filepath.Base(path)
	var jobs []trace.SWFJob
	switch {
	case strings.HasSuffix(path, ".rst"):
		jobs, err = trace.ReadCQSim(f, name)
	case strings.HasSuffix(path, ".json"):
		var bw trace.BatsimWorkload
		bw, err = trace.ReadBatsim(f, name)
		jobs = bw.SWF()
	default:
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

// LoadWorkloads reads a comma-separated list of workloads: paths of SWF or
// CQSim logs (LoadWorkload), or "uniform" for widths 1..max(pmin, 1). An
// empty item or one given twice is an error.
func LoadWorkloads(list string, pmin int) ([]Workload, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, err
	}
	var ws []Workload
	for _, s := range items {
		if s == "uniform" {
			ws = append(ws, UniformWorkload(max(pmin, 1)))
			continue
		}
		w, err := LoadWorkload(s)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
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

// SweepRow is one simulated instance; its columns (row tags, runner.RowOf)
// and JSON keys are the same snake_case names.
type SweepRow struct {
	Workload    string  `row:"workload" json:"workload"`
	Vary        string  `row:"vary" json:"vary"`
	Value       float64 `row:"value" json:"value"`
	Algorithm   string  `row:"algorithm" json:"algorithm"`
	Jobs        int     `row:"jobs" json:"jobs"`
	Goodput     float64 `row:"goodput" json:"goodput"`
	MinYield    float64 `row:"min_yield" json:"min_yield"`
	RelGoodput  float64 `row:"rel_goodput" json:"rel_goodput"`
	RelYield    float64 `row:"rel_yield" json:"rel_yield"`
	Checkpoints int     `row:"checkpoints" json:"checkpoints"`
	Recoveries  int     `row:"recoveries" json:"recoveries"`
	Finished    int     `row:"finished" json:"finished"`
}

// instance draws the point's instance of replicate rep.
func (pt SweepPoint) instance(base uint64, rep int) (*Instance, error) {
	r := runner.NewRand(runner.Seed(base, pt.Instance, rep))
	if pt.Release != "" {
		if len(pt.Workload.Specs) == 0 {
			return nil, fmt.Errorf("workload %s has no run times: finite jobs need an SWF or CQSim log", pt.Workload.Name)
		}
		return GenerateFinite(r, pt.Params, pt.Workload.Specs, pt.Release)
	}
	return Generate(r, pt.Params, pt.Workload.Widths)
}

// RunSweepItem draws the instance of (pt, rep) and simulates pt.Algo on it;
// ctx stops the simulation between sections.
func RunSweepItem(ctx context.Context, pt SweepPoint, base uint64, rep int) (SweepRow, *Result, error) {
	in, err := pt.instance(base, rep)
	if err != nil {
		return SweepRow{}, nil, err
	}
	a, err := New(pt.Algo)
	if err != nil {
		return SweepRow{}, nil, err
	}
	res, err := SimulateContext(ctx, in, a)
	if err != nil {
		return SweepRow{}, nil, err
	}
	return SweepRow{Workload: pt.Workload.Name, Vary: pt.Vary, Value: pt.Value, Algorithm: pt.Algo,
		Jobs: len(in.Jobs), Goodput: res.Goodput, MinYield: res.MinYield, RelGoodput: res.RelGoodput,
		RelYield: res.RelYield, Checkpoints: res.Checkpoints, Recoveries: res.Recoveries, Finished: res.Finished}, res, nil
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

// Experiment is what `ckpt capacity simulate` and `ckpt capacity sweep`
// run: every workload × every value of the varied parameter × every
// strategy, on instances generated from Params (Section 6.1).
type Experiment struct {
	Workloads  []Workload
	Params     Params
	Strategies []string // algorithm specs, as New takes them
	// Vary names the parameter set to each of Values (see SetParam); ""
	// runs Params alone.
	Vary    string
	Values  []float64
	Release ReleaseMethod // "" for infinite jobs
}

// Points validates the experiment and lists its sweep points,
// workload-major, then value, then strategy. The instance number of a
// point is workload·len(Values) + value index, so every strategy of a
// (workload, value) pair sees the same instances.
func (e Experiment) Points() ([]SweepPoint, error) {
	if err := e.Params.Validate(); err != nil {
		return nil, err
	}
	if len(e.Strategies) == 0 {
		return nil, fmt.Errorf("no strategy")
	}
	for _, s := range e.Strategies {
		if _, err := New(s); err != nil {
			return nil, err
		}
	}
	if _, err := ParseRelease(string(e.Release)); err != nil {
		return nil, err
	}
	for _, w := range e.Workloads {
		if e.Release != "" && len(w.Specs) == 0 {
			return nil, fmt.Errorf("workload %s has no run times: finite jobs need an SWF or CQSim log", w.Name)
		}
	}
	params, values, err := e.variants()
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		for _, a := range e.Strategies {
			if hi := MaxPMax(a, p); p.PMax > hi {
				return nil, &ParamError{Param: "pmax", Value: float64(p.PMax), Want: fmt.Sprintf("in [%d, %d] for %s: above, its dynamic program's tables take more than 2 GiB", MinPMax(p.PMinFrac), hi, a)}
			}
		}
	}
	var pts []SweepPoint
	for wi := range e.Workloads {
		for vi, p := range params {
			for _, a := range e.Strategies {
				pts = append(pts, SweepPoint{Workload: &e.Workloads[wi], Params: p, Algo: a, Vary: e.Vary,
					Value: values[vi], Instance: wi*len(params) + vi, Release: e.Release})
			}
		}
	}
	return pts, nil
}

// variants returns the parameters of every value of the varied parameter
// (Params alone when nothing varies), each validated.
func (e Experiment) variants() ([]Params, []float64, error) {
	if e.Vary == "" {
		return []Params{e.Params}, []float64{0}, nil
	}
	if len(e.Values) == 0 {
		return nil, nil, fmt.Errorf("%s: no value", e.Vary)
	}
	out := make([]Params, len(e.Values))
	for i, v := range e.Values {
		out[i] = e.Params
		if err := SetParam(&out[i], e.Vary, v); err != nil {
			return nil, nil, err
		}
		if err := out[i].Validate(); err != nil {
			return nil, nil, err
		}
	}
	return out, e.Values, nil
}

// RunPoints simulates reps instances of every point on the experiment
// runner (opts: seed, workers, shard, progress) and passes the rows to
// sink in item order, the same bytes whatever the number of workers.
// Cancelling ctx stops every simulation within a section; the sink has
// then received only complete rows, and RunPoints returns ctx.Err().
func RunPoints(ctx context.Context, opts runner.Options, pts []SweepPoint, reps int, sink runner.Sink[SweepRow]) error {
	return runner.Run(ctx, opts, pts, reps,
		func(ctx context.Context, it runner.Item[SweepPoint]) (SweepRow, error) {
			row, _, err := RunSweepItem(ctx, it.Param, opts.Seed, it.Rep)
			return row, err
		}, sink)
}

// MarshalJSON writes the row with its Go field names, NaN and ±Inf as
// null (a ratio to a zero bound).
func (r SweepRow) MarshalJSON() ([]byte, error) {
	type num = output.Number
	return json.Marshal(struct {
		Workload    string
		Vary        string
		Value       num
		Algorithm   string
		Jobs        int
		Goodput     num
		MinYield    num
		RelGoodput  num
		RelYield    num
		Checkpoints int
		Recoveries  int
		Finished    int
	}{r.Workload, r.Vary, num(r.Value), r.Algorithm, r.Jobs, num(r.Goodput), num(r.MinYield),
		num(r.RelGoodput), num(r.RelYield), r.Checkpoints, r.Recoveries, r.Finished})
}
