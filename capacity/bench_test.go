package capacity

import (
	"math/rand/v2"
	"testing"
)

// benchStates simulates 20 sections of a generated instance with
// DPGoodput and returns the states met, so that every algorithm is timed on
// realistic mid-run states (running, checkpointed and idle jobs).
func benchStates(b *testing.B, pr Params) []*State {
	pr.Sections = 20
	in, err := Generate(rand.New(rand.NewPCG(1, 1)), pr, UniformWorkload(pr.Platform().PMin).Widths)
	if err != nil {
		b.Fatal(err)
	}
	st := NewState(in)
	var out []*State
	a := &DPGoodput{}
	for _, s := range in.Sections {
		st.P, st.T = s.P, s.Length
		cp := *st
		cp.Status = append([]Status(nil), st.Status...)
		cp.Work = append([]float64(nil), st.Work...)
		cp.Avail = append([]float64(nil), st.Avail...)
		out = append(out, &cp)
		pl, err := a.Plan(st)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Advance(st, pl, 5, 5); err != nil {
			b.Fatal(err)
		}
	}
	return out[10:]
}

func benchAlgo(b *testing.B, pr Params, spec string) {
	states := benchStates(b, pr)
	a, err := New(spec)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := a.Plan(states[i%len(states)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

var benchSpecs = []string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-goodput-best-cnf", "dp-yield", "dp-bic:15", "dp-bic-best-cnf:15", "target-yield:0.5"}

// BenchmarkSectionDefault times one section (ns/op) of each algorithm in the
// default setting (P_max = 400).
func BenchmarkSectionDefault(b *testing.B) {
	for _, s := range benchSpecs {
		b.Run(s, func(b *testing.B) { benchAlgo(b, DefaultParams(), s) })
	}
}

// BenchmarkSectionLight times one section in the light setting (P_max =
// 100), including the slow 15-case programs.
func BenchmarkSectionLight(b *testing.B) {
	for _, s := range append(benchSpecs, "dp-goodput-slow", "dp-goodput-slow-best-cnf", "target-goodput:0.9") {
		b.Run(s, func(b *testing.B) { benchAlgo(b, LightParams(), s) })
	}
}
