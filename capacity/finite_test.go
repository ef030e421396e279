package capacity

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestFinishHandComputed(t *testing.T) {
	st := &State{Platform: Platform{PMin: 1, PMax: 6, Delta: 1}, P: 5, T: 100,
		Jobs: []Job{{P: 2, C: 5, R: 5, Length: 30}, {P: 3, C: 5, R: 5, Length: 1000}, {P: 2, C: 5, R: 5, Length: 1000},
			{P: 3, C: 5, R: 5, Length: 1000}},
		Status: []Status{Running, Running, Idle, Idle}, Work: make([]float64, 4), Avail: make([]float64, 4)}
	pl := NewPlan(4, 100)
	pl.Jobs[0] = []Interval{{Run, 0, 95}, {Checkpoint, 95, 100}}
	pl.Jobs[1] = []Interval{{Run, 0, 100}}
	f, err := Finish(st, pl)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Validate(st, f)
	if err != nil {
		t.Fatal(err)
	}
	// Job 0 completes at 30, final checkpoint to 35; 2 processors free on
	// [35, 100]: job 2 (p = 2) fits, job 3 (p = 3) does not.
	if out.End[0] != Done || out.Completed[0] != 30 || out.Work[0] != 30 {
		t.Fatalf("job 0: %v %v %v", out.End[0], out.Completed[0], out.Work[0])
	}
	if out.Work[2] != 100-35-5-5 || len(f.Jobs[3]) != 0 || out.End[2] != Checkpointed {
		t.Fatalf("reallocation: %v %v", f.Jobs[2], f.Jobs[3])
	}
	// The input plan is untouched.
	if pl.Jobs[0][0].End != 95 {
		t.Fatal("Finish modified its input")
	}
	// A job whose final checkpoint would cross the event checkpoints as
	// usual and completes later.
	st.Jobs[0].Length = 97
	f, err = Finish(st, pl)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = Validate(st, f); err != nil || out.End[0] != Checkpointed || out.Work[0] != 95 {
		t.Fatalf("%v %v", out, err)
	}
	// The validator rejects a completion without the final checkpoint.
	pl2 := NewPlan(4, 100)
	pl2.Jobs[0] = []Interval{{Run, 0, 97}, {Checkpoint, 98, 100}}
	pl2.Jobs[1] = []Interval{{Run, 0, 100}}
	if _, err := Validate(st, pl2); err == nil {
		t.Fatal("completion without final checkpoint accepted")
	}
}

func TestReallocateSubsetSumIsExact(t *testing.T) {
	// 5 free processors, idle jobs of 3, 3 and 2: the best is 3 + 2.
	st := &State{Platform: Platform{PMin: 1, PMax: 5, Delta: 1}, P: 5, T: 100,
		Jobs:   []Job{{P: 3, C: 1, R: 1}, {P: 3, C: 1, R: 1}, {P: 2, C: 1, R: 1}},
		Status: []Status{Idle, Idle, Idle}, Work: make([]float64, 3), Avail: make([]float64, 3)}
	pl := NewPlan(3, 100)
	if err := reallocate(st, pl, 10); err != nil {
		t.Fatal(err)
	}
	used := 0
	for j, ivs := range pl.Jobs {
		if len(ivs) > 0 {
			used += st.Jobs[j].P
		}
	}
	if used != 5 {
		t.Fatalf("reallocated %d processors, want 5", used)
	}
	if _, err := Validate(st, pl); err != nil {
		t.Fatal(err)
	}
}

func TestFiniteSimulationConservesWork(t *testing.T) {
	specs := []JobSpec{{1, 30}, {2, 300}, {3, 50}, {4, 1000}, {2, 8}, {5, 150}}
	pr := Params{Sections: 40, AvgT: 100, PMax: 30, PMinFrac: 0.2, Delta: 0.1, Load: 2, CLo: 5, CHi: 20}
	for _, method := range []ReleaseMethod{FIFO, Smallest, Accumulation} {
		in, err := GenerateFinite(rand.New(rand.NewPCG(1, 2)), pr, specs, method)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []Algorithm{&GreedyGoodput{}, &GreedyYield{}, &DPGoodput{}, &DPYield{}, &DPBiC{X: 2}} {
			res, err := Simulate(in, a)
			if err != nil {
				t.Fatalf("%s %s: %v", method, a.Name(), err)
			}
			if res.Finished == 0 {
				t.Errorf("%s %s: no job finished", method, a.Name())
			}
			done := 0
			for j, jb := range in.Jobs {
				if res.Work[j] > jb.Length+1e-6 {
					t.Fatalf("job %d worked %v > %v", j, res.Work[j], jb.Length)
				}
				if math.Abs(res.Work[j]-jb.Length) < 1e-6 {
					done++
				}
			}
			if done != res.Finished {
				t.Errorf("%s %s: %d jobs at full length, %d finished", method, a.Name(), done, res.Finished)
			}
			for _, y := range res.Yields {
				if y < 0 || y > 1+1e-9 {
					t.Errorf("%s %s: yield %v", method, a.Name(), y)
				}
			}
		}
	}
	if _, err := GenerateFinite(rand.New(rand.NewPCG(1, 2)), pr, specs, "nope"); err == nil {
		t.Error("bad method accepted")
	}
}

// Simulate runs algo over every section of the instance, validating every
// plan. An invalid plan is an error naming the section.
func Simulate(in *Instance, algo Algorithm) (*Result, error) {
	return SimulateContext(context.Background(), in, algo)
}
