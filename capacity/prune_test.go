package capacity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// TestPrunedUnchanged runs every two-part program (DPYIELD, DPGOODPUT,
// DPBIC and their -Best-Cnf variants) with and without the pruning of
// prune.go on random instances (widths, loads, section lengths, P_min and
// δ drawn at random, infinite and finite jobs) and requires the same plan
// in every section: same cases, C_nf and intervals, the same value, the
// same error. The states are those of the unpruned run, so both see the
// same sequence.
func TestPrunedUnchanged(t *testing.T) {
	pruned := 0
	rapid.Check(t, func(t *rapid.T) {
		pr := Params{
			Sections: rapid.IntRange(1, 12).Draw(t, "sections"),
			AvgT:     float64(rapid.IntRange(15, 200).Draw(t, "avgT")),
			PMax:     rapid.IntRange(4, 60).Draw(t, "pmax"),
			PMinFrac: float64(rapid.IntRange(0, 10).Draw(t, "pmin")) / 10,
			Delta:    float64(rapid.IntRange(0, 10).Draw(t, "delta")) / 10,
			Load:     float64(rapid.IntRange(2, 12).Draw(t, "load")) / 4,
			CLo:      5, CHi: float64(rapid.IntRange(5, 30).Draw(t, "chi")),
		}
		widths := rapid.SliceOfN(rapid.IntRange(1, 16), 1, 8).Draw(t, "widths")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 3))
		var in *Instance
		var err error
		if rapid.Bool().Draw(t, "finite") {
			var specs []JobSpec
			for i, w := range widths {
				specs = append(specs, JobSpec{P: w, L: float64(10 + 37*i%150)})
			}
			in, err = GenerateFinite(r, pr, specs, FIFO)
		} else {
			in, err = Generate(r, pr, widths)
		}
		if err != nil {
			t.Skip(err)
		}
		finite := len(in.Jobs) > 0 && in.Jobs[0].Length > 0
		cmin, rmin := math.Inf(1), math.Inf(1)
		for _, jb := range in.Jobs {
			cmin, rmin = math.Min(cmin, jb.C), math.Min(rmin, jb.R)
		}
		spec := rapid.SampledFrom(prunedSpecs).Draw(t, "spec")
		on, off := mustNew(t, spec), mustNew(t, spec)
		setNoPrune(off)
		st := NewState(in)
		for i, s := range in.Sections {
			st.P, st.T = s.P, s.Length
			want, werr := off.Plan(st)
			got, gerr := on.Plan(st)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("section %d: error %v, unpruned %v", i, gerr, werr)
			}
			if werr != nil {
				return
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("section %d: pruned plan\n%+v\nunpruned\n%+v", i, got, want)
			}
			if finite {
				if want, err = Finish(st, want); err != nil {
					t.Fatalf("section %d: %v", i, err)
				}
			}
			if _, err := Advance(st, want, cmin, rmin); err != nil {
				t.Fatalf("section %d: %v", i, err)
			}
		}
		if cellsOf(on) < cellsOf(off) {
			pruned++
		}
	})
	if pruned == 0 {
		t.Error("the pruning never removed a cell: the test compares nothing")
	}
}

var prunedSpecs = []string{"dp-yield", "dp-goodput", "dp-goodput-best-cnf", "dp-bic:2", "dp-bic:15", "dp-bic-best-cnf:7", "target-yield:0.5"}

func mustNew(t interface{ Fatal(...any) }, spec string) Algorithm {
	a, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// setNoPrune makes a run the unpruned programs.
func setNoPrune(a Algorithm) {
	switch a := a.(type) {
	case *DPYield:
		a.tp.noPrune = true
	case *DPGoodput:
		a.tp.noPrune = true
	case *DPBiC:
		a.tp.noPrune = true
	case *TargetYield:
		setNoPrune(&a.gp)
		setNoPrune(&a.yd)
	}
}

// TestPrunedUnchangedPaperSize is TestPrunedUnchanged on instances of the
// paper's default size (P_max = 400, Load = 2) drawn from the job widths of
// the logs of the benchmarks (uniform widths without the data folder), 30
// sections each: the pruning removes most of the cells there.
func TestPrunedUnchangedPaperSize(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("paper-size instances")
	}
	pr := DefaultParams()
	pr.Sections = 30
	for _, spec := range []string{"dp-yield", "dp-goodput", "dp-bic:15"} {
		for i, w := range benchWorkloads() {
			in, err := Generate(rand.New(rand.NewPCG(uint64(i+1), 7)), pr, w.Widths)
			if err != nil {
				t.Fatal(err)
			}
			on, off := mustNew(t, spec), mustNew(t, spec)
			setNoPrune(off)
			st := NewState(in)
			for k, s := range in.Sections {
				st.P, st.T = s.P, s.Length
				got, gerr := on.Plan(st)
				want, werr := off.Plan(st)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
					t.Fatalf("%s on %s, section %d: pruned %+v (%v), unpruned %+v (%v)", spec, w.Name, k, got, gerr, want, werr)
				}
				if werr != nil {
					break
				}
				if _, err := Advance(st, want, pr.CLo, pr.CLo); err != nil {
					t.Fatal(err)
				}
			}
			if cellsOf(on) >= cellsOf(off) {
				t.Errorf("%s on %s: %d cells pruned, %d unpruned: nothing pruned", spec, w.Name, cellsOf(on), cellsOf(off))
			}
		}
	}
}
