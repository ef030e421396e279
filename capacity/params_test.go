package capacity

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Each out-of-range parameter is refused with its name and value, NaN
// included (it used to pass every `<` test).
func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, c := range []struct {
		set   func(*Params)
		param string
		value string
	}{
		{func(p *Params) { p.Delta = 2 }, "delta", "2"},
		{func(p *Params) { p.Delta = nan }, "delta", "NaN"},
		{func(p *Params) { p.Delta = -0.1 }, "delta", "-0.1"},
		{func(p *Params) { p.PMinFrac = 1.5 }, "pmin", "1.5"},
		{func(p *Params) { p.PMinFrac = nan }, "pmin", "NaN"},
		{func(p *Params) { p.Load = 0 }, "load", "0"},
		{func(p *Params) { p.Load = math.Inf(1) }, "load", "+Inf"},
		{func(p *Params) { p.AvgT = 1e308 }, "avgT", "1e+308"},
		{func(p *Params) { p.AvgT = nan }, "avgT", "NaN"},
		{func(p *Params) { p.CLo = 0 }, "cmin", "0"},
		{func(p *Params) { p.CHi = 1 }, "cmax", "1"},
		{func(p *Params) { p.Sections = 0 }, "sections", "0"},
		{func(p *Params) { p.PMax = MaxProcessors + 1 }, "pmax", "65537"},
	} {
		p := DefaultParams()
		c.set(&p)
		err := p.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param || !strings.Contains(err.Error(), c.param+" = "+c.value+":") {
			t.Errorf("%s = %s: got %v", c.param, c.value, err)
		}
	}
}

func TestSetParamRefusesNonIntegers(t *testing.T) {
	p := DefaultParams()
	for _, c := range []struct {
		name string
		v    float64
	}{{"pmax", 100.5}, {"pmax", 1e300}, {"sections", math.NaN()}, {"sections", 0}, {"nope", 1}} {
		if err := SetParam(&p, c.name, c.v); err == nil {
			t.Errorf("SetParam(%s, %v) accepted", c.name, c.v)
		}
	}
	if err := SetParam(&p, "pmax", 128); err != nil || p.PMax != 128 {
		t.Fatalf("%v %d", err, p.PMax)
	}
}

// Parameters of the algorithms: fractions in [0, 1] for the targets, an
// exponent in [0, MaxBiCExponent] for DPBiC; NaN and ±Inf refused.
func TestNewParameterRanges(t *testing.T) {
	for _, bad := range []string{"target-yield:2", "target-yield:1.0001", "target-goodput:1.5", "target-yield:NaN",
		"dp-bic:Inf", "dp-bic:NaN", "dp-bic:101", "dp-bic-best-cnf:-0.5", "target-yield"} {
		if _, err := New(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, ok := range []string{"target-yield:0", "target-yield:1", "target-goodput:0.95", "dp-bic:0", "dp-bic:100"} {
		if _, err := New(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList(" dp-goodput, dp-bic:15")
	if err != nil || len(got) != 2 || got[0] != "dp-goodput" || got[1] != "dp-bic:15" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "dp-goodput,dp-goodput", "dp-goodput,,dp-yield", "dp-bic:15,nope", "target-yield:2"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseRelease(t *testing.T) {
	for _, ok := range []string{"", "fifo", "smallest", "accumulation"} {
		if m, err := ParseRelease(ok); err != nil || string(m) != ok {
			t.Errorf("%q: %v %v", ok, m, err)
		}
	}
	if _, err := ParseRelease("lifo"); err == nil {
		t.Error("lifo accepted")
	}
}

// Experiment.Points numbers instances by (workload, value) so that every
// strategy sees the same instances, and refuses bad values and workloads
// without run times for finite jobs.
func TestExperimentPoints(t *testing.T) {
	ws := []Workload{UniformWorkload(4), UniformWorkload(3)}
	e := Experiment{Workloads: ws, Params: LightParams(), Strategies: []string{"dp-goodput", "greedy-yield"}, Vary: "load", Values: []float64{1, 2, 3}}
	pts, err := e.Points()
	if err != nil || len(pts) != 2*3*2 {
		t.Fatalf("%d points, %v", len(pts), err)
	}
	for i, p := range pts {
		wi, vi := i/6, i/2%3
		if p.Instance != wi*3+vi || p.Params.Load != e.Values[vi] || p.Workload != &e.Workloads[wi] {
			t.Fatalf("point %d: %+v", i, p)
		}
	}
	for _, bad := range []Experiment{
		{Workloads: ws, Params: LightParams(), Strategies: []string{"dp-goodput"}, Vary: "delta", Values: []float64{2}},
		{Workloads: ws, Params: LightParams(), Strategies: []string{"dp-goodput"}, Vary: "pmax", Values: []float64{10.5}},
		{Workloads: ws, Params: LightParams(), Strategies: []string{"dp-goodput"}, Release: FIFO},
		{Workloads: ws, Params: LightParams()},
	} {
		if _, err := bad.Points(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// ReadState: huge times, empty input, trailing data and JSON type errors
// are one clear line without Go's names.
func TestReadStateRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{strings.Replace(stateJSON, `"length":100`, `"length":1e308`, 1), "length = 1e+308: at most 1e+12"},
		{strings.Replace(stateJSON, `"c":10`, `"c":1e300`, 1), "job 0: c = 1e+300"},
		{strings.Replace(stateJSON, `"work":5`, `"work":1e300`, 1), "job 1: work = 1e+300"},
		{"", "empty input"},
		{" \n", "empty input"},
		{stateJSON + " garbage", "unexpected data after the JSON state"},
		{stateJSON + "{}", "unexpected data after the JSON state"},
		{strings.Replace(stateJSON, `"p_min":2`, `"p_min":"2"`, 1), `field "p_min": want an integer, got a JSON string`},
		{strings.Replace(stateJSON, `"status":"running"`, `"status":1`, 1), `want running, checkpointed or idle`},
		{`[1]`, "want an object"},
		{`{"p_min":2,`, "truncated"},
		// A yield with work or avail, neither, a key given twice: each
		// was read silently (the yield ignored, work 0, the last key kept).
		{strings.Replace(stateJSON, `"yield":0.5`, `"yield":0.9,"work":0`, 1), `s.json: job 0: field "yield" given with "work" or "avail"`},
		{strings.Replace(stateJSON, `"yield":0.5`, `"yield":0.9,"avail":3`, 1), `s.json: job 0: field "yield" given with "work" or "avail"`},
		{strings.Replace(stateJSON, `,"yield":0.5`, ``, 1), `s.json: job 0: missing field "yield" (or "work" and "avail")`},
		{strings.Replace(stateJSON, `"work":5,`, ``, 1), `s.json: job 1: missing field "yield"`},
		{strings.Replace(stateJSON, `"p":8,`, `"p":8,"p":9,`, 1), `s.json: field "p" given twice`},
		{strings.Replace(stateJSON, `{"p":4,`, `{"p":4,"c":1,`, 1), `s.json: job 1: field "c" given twice`},
		{strings.Replace(stateJSON, `"p_min":2`, `"p_min":2,"p_min":2`, 1), `s.json: field "p_min" given twice`},
		{strings.Replace(stateJSON, `"p":8,`, `"p":8,"P":9,`, 1), `s.json: field "P" given twice`},
	} {
		_, err := ReadState(strings.NewReader(c.in), "s.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go ") ||
			strings.Contains(err.Error(), "stateFile") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: got %v, want %q", c.in, err, c.want)
		}
	}
}

// Decide on a small section: the useful work is Σ p_j·(run time),
// recomputed here from the printed actions, and the goodput is it over P·T.
func TestDecideArithmetic(t *testing.T) {
	st, err := ReadState(strings.NewReader(stateJSON), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decide(st, "dp-goodput")
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, j := range d.Jobs {
		for _, iv := range j.Actions {
			if iv.Kind == Run {
				sum += float64(j.P) * (iv.End - iv.Start)
			}
		}
	}
	if math.Abs(sum-d.Gain) > 1e-9 || math.Abs(d.Goodput-sum/(8*100)) > 1e-12 || d.Keep != 6 || d.Phase3 != 100-12 {
		t.Fatalf("%+v (sum %v)", d, sum)
	}
	if _, err := Decide(st, "nope"); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}

// FuzzNew: a spec is refused, or builds an algorithm whose name is a spec
// of the same algorithm (the name re-parses to the same name), with its
// parameter finite and within [0, ParamMax].
func FuzzNew(f *testing.F) {
	for _, s := range []string{"dp-bic:15", "target-yield:0.5", "target-goodput:1", "dp-goodput", "dp-bic:1e2", "target-yield:NaN", "dp-bic:-0", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := New(spec)
		if err != nil {
			return
		}
		b, err := New(a.Name())
		if err != nil || b.Name() != a.Name() {
			t.Fatalf("%q → %q does not re-parse: %v", spec, a.Name(), err)
		}
		name, arg, has := strings.Cut(a.Name(), ":")
		fac, _ := algorithms.Lookup(name)
		if has {
			v, err := strconv.ParseFloat(arg, 64)
			if err != nil || !(v >= 0 && v <= fac.ParamMax) {
				t.Fatalf("%q: parameter %q out of [0, %g]", spec, arg, fac.ParamMax)
			}
		}
	})
}

// The range of P_max is what runs: P_min = round(pmin·pmax) ≥ 1 (jobs are
// drawn no wider than P_min), and the strategies' tables fit in 2 GiB for
// one job at P_i = P_max (audit: 1 and 65536 passed and failed at runtime).
func TestPMaxRange(t *testing.T) {
	for _, c := range []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.PMax = 1 }, "pmax = 1: must be in [3, 65536] so that P_min = round(0.2·pmax) >= 1"},
		{func(p *Params) { p.PMax, p.PMinFrac = 9, 0.05 }, "pmax = 9: must be in [10, 65536]"},
		{func(p *Params) { p.PMinFrac = 0 }, "pmin = 0: must be at least"},
	} {
		p := DefaultParams()
		c.set(&p)
		var pe *ParamError
		if err := p.Validate(); !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v, want %s...", err, c.want)
		}
	}
	for _, f := range []float64{0.2, 0.05, 0.3, 1e-4} {
		lo := MinPMax(f)
		if (Params{PMax: lo, PMinFrac: f}).Platform().PMin != 1 || (Params{PMax: lo - 1, PMinFrac: f}).Platform().PMin != 0 {
			t.Errorf("MinPMax(%g) = %d", f, lo)
		}
	}
	for spec, hi := range map[string]int{"dp-goodput": 8065, "dp-bic:15": 8065, "target-goodput:0.5": 999, "dp-goodput-slow": 415, "greedy-yield": MaxProcessors} {
		p := DefaultParams()
		if got := MaxPMax(spec, p); got != hi {
			t.Errorf("MaxPMax(%s) = %d, want %d", spec, got, hi)
		}
		e := Experiment{Workloads: []Workload{{Name: "uniform"}}, Params: p, Strategies: []string{spec}}
		e.Params.PMax = hi
		if _, err := e.Points(); err != nil {
			t.Errorf("%s at %d: %v", spec, hi, err)
		}
		if hi == MaxProcessors {
			continue
		}
		e.Params.PMax = hi + 1
		var pe *ParamError
		if _, err := e.Points(); !errors.As(err, &pe) || pe.Param != "pmax" || !strings.Contains(err.Error(), "in [3, "+strconv.Itoa(hi)+"] for "+spec) {
			t.Errorf("%s at %d: %v", spec, hi+1, err)
		}
	}
}
