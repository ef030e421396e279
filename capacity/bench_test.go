package capacity

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

// The benchmarks time the algorithms on the job widths of the workloads of
// `ckpt repro capacity` (KIT ForHLR II, NASA iPSC, ALCF Theta in 128-node
// blocks) from the data folder (datadir: $CKPT_DATA, else ../shared/data
// beside the checkout), and on uniform widths when the logs are missing.

var benchWL struct {
	once sync.Once
	ws   []Workload
}

func benchWorkloads() []Workload {
	benchWL.once.Do(func() {
		for _, f := range []string{"KIT-FH2-2016-1_CQSim-simresult.rst", "NASA-iPSC-1993-3.1-cln.swf.gz", "ALCF-Theta-2022_cqsimplus.swf"} {
			path, err := datadir.Path("", "swf", f)
			if err != nil {
				continue
			}
			w, err := LoadWorkload(path)
			if err != nil {
				continue
			}
			if strings.HasPrefix(w.Name, "ALCF") {
				w = w.InUnits(128)
			}
			w.Specs = nil
			benchWL.ws = append(benchWL.ws, w)
		}
	})
	if len(benchWL.ws) == 0 {
		return []Workload{UniformWorkload(80)}
	}
	return benchWL.ws
}

// benchInstances draws one instance of pr per workload.
func benchInstances(b *testing.B, pr Params) []*Instance {
	var out []*Instance
	for i, w := range benchWorkloads() {
		in, err := Generate(rand.New(rand.NewPCG(uint64(i+1), 1)), pr, w.Widths)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, in)
	}
	return out
}

// benchStates runs spec itself over the first 20 sections of one instance
// per workload and returns the states met in sections 10–19, so that every
// algorithm is timed on the mid-run states it produces (running,
// checkpointed and idle jobs in its own proportions).
func benchStates(b *testing.B, pr Params, spec string) []*State {
	pr.Sections = 20
	var out []*State
	for _, in := range benchInstances(b, pr) {
		st := NewState(in)
		a, err := New(spec)
		if err != nil {
			b.Fatal(err)
		}
		for i, s := range in.Sections {
			st.P, st.T = s.P, s.Length
			if i >= 10 {
				cp := *st
				cp.Status = append([]Status(nil), st.Status...)
				cp.Work = append([]float64(nil), st.Work...)
				cp.Avail = append([]float64(nil), st.Avail...)
				out = append(out, &cp)
			}
			pl, err := a.Plan(st)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Advance(st, pl, 5, 5); err != nil {
				b.Fatal(err)
			}
		}
	}
	return out
}

func benchAlgo(b *testing.B, pr Params, spec string) { benchAlgoPruned(b, pr, spec, true) }

// benchAlgoPruned is benchAlgo, with prune.go's pruning switched off when
// !prune.
func benchAlgoPruned(b *testing.B, pr Params, spec string, prune bool) {
	states := benchStates(b, pr, spec)
	a, err := New(spec)
	if err != nil {
		b.Fatal(err)
	}
	if !prune {
		setNoPrune(a)
	}
	i := 0
	for b.Loop() {
		if _, err := a.Plan(states[i%len(states)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCells(b, a, i)
}

// reportCells reports the knapsack cell updates per op of a dynamic
// program (a machine-independent measure of its work).
func reportCells(b *testing.B, a Algorithm, ops int) {
	if c := cellsOf(a); c > 0 && ops > 0 {
		b.ReportMetric(float64(c)/float64(ops), "cells/op")
	}
}

// cellsOf is the cell updates made so far by the knapsacks of a.
func cellsOf(a Algorithm) int64 {
	switch a := a.(type) {
	case *DPYield:
		return a.tp.k1.cells + a.tp.k2.cells
	case *DPGoodput:
		return a.tp.k1.cells + a.tp.k2.cells
	case *DPBiC:
		return a.tp.k1.cells + a.tp.k2.cells
	case *TargetYield:
		return cellsOf(&a.gp) + cellsOf(&a.yd)
	}
	return 0
}

// benchSpecs are the algorithms of the default setting (Figs. 7b–15).
var benchSpecs = []string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-goodput-best-cnf", "dp-yield", "dp-bic:15", "dp-bic-best-cnf:15", "target-yield:0.5"}

// lightOnly are the algorithms the paper runs in the light setting only
// (Figs. 6 and 7a).
var lightOnly = []string{"dp-goodput-slow", "dp-goodput-slow-best-cnf", "target-goodput:0.9"}

// BenchmarkSectionDefault times one section (ns/op) of each algorithm in the
// default setting (P_max = 400), averaged over the three workloads.
func BenchmarkSectionDefault(b *testing.B) {
	for _, s := range benchSpecs {
		b.Run(s, func(b *testing.B) { benchAlgo(b, DefaultParams(), s) })
	}
}

// BenchmarkSectionLight times one section in the light setting (P_max =
// 100), including the slow 15-case programs and TARGETGOODPUT.
func BenchmarkSectionLight(b *testing.B) {
	for _, s := range append(append([]string{}, benchSpecs...), lightOnly...) {
		b.Run(s, func(b *testing.B) { benchAlgo(b, LightParams(), s) })
	}
}

// BenchmarkInstanceDefault times a whole simulation (ns/op) of the paper's
// size, 400 sections, one instance per workload in turn; run it with
// -benchtime=3x or so.
func BenchmarkInstanceDefault(b *testing.B) {
	for _, s := range benchSpecs {
		b.Run(s, func(b *testing.B) { benchInstance(b, DefaultParams(), s) })
	}
}

// BenchmarkInstanceLight is BenchmarkInstanceDefault in the light setting.
func BenchmarkInstanceLight(b *testing.B) {
	for _, s := range append(append([]string{}, benchSpecs...), lightOnly...) {
		b.Run(s, func(b *testing.B) { benchInstance(b, LightParams(), s) })
	}
}

func benchInstance(b *testing.B, pr Params, spec string) { benchInstancePruned(b, pr, spec, true) }

// benchInstancePruned is benchInstance, with prune.go's pruning switched
// off when !prune.
func benchInstancePruned(b *testing.B, pr Params, spec string, prune bool) {
	ins := benchInstances(b, pr)
	i := 0
	var cells int64
	for b.Loop() {
		a, err := New(spec)
		if err != nil {
			b.Fatal(err)
		}
		if !prune {
			setNoPrune(a)
		}
		if _, err := Simulate(ins[i%len(ins)], a); err != nil {
			b.Fatal(err)
		}
		cells += cellsOf(a)
		i++
	}
	if cells > 0 {
		b.ReportMetric(float64(cells)/float64(i), "cells/op")
	}
}

// BenchmarkPruning times the two-part programs on the default sections
// (as BenchmarkSectionDefault) with and without the pruning of prune.go:
// the same states, the same plans; cells/op shows the work saved.
func BenchmarkPruning(b *testing.B) {
	for _, spec := range []string{"dp-yield", "dp-goodput", "dp-bic:15", "dp-goodput-best-cnf"} {
		for _, noPrune := range []bool{false, true} {
			name := spec + "/pruned"
			if noPrune {
				name = spec + "/unpruned"
			}
			b.Run(name, func(b *testing.B) { benchAlgoPruned(b, DefaultParams(), spec, !noPrune) })
		}
	}
}

// BenchmarkInstancePruning is BenchmarkInstanceDefault with and without the
// pruning of prune.go, for the cells/op of a whole simulation.
func BenchmarkInstancePruning(b *testing.B) {
	for _, spec := range []string{"dp-yield", "dp-goodput", "dp-bic:15"} {
		for _, noPrune := range []bool{false, true} {
			name := spec + "/pruned"
			if noPrune {
				name = spec + "/unpruned"
			}
			b.Run(name, func(b *testing.B) { benchInstancePruned(b, DefaultParams(), spec, !noPrune) })
		}
	}
}
