package capacity

import (
	"strings"
	"testing"
)

// A two-job state: job 0 (3 procs) was running, job 1 (2 procs) idle;
// P = 5, δ = 2, P_min = 1, T = 100, C = 10, R = 5.
func smallState() *State {
	return &State{
		Platform: Platform{PMin: 1, PMax: 8, Delta: 2},
		P:        5, T: 100,
		Jobs:   []Job{{P: 3, C: 10, R: 5}, {P: 2, C: 10, R: 5}},
		Status: []Status{Running, Idle},
		Work:   []float64{0, 0}, Avail: []float64{0, 0},
	}
}

func TestValidateAcceptsAndMeasures(t *testing.T) {
	st := smallState()
	pl := NewPlan(2, 100)
	pl.Jobs[0] = []Interval{{Run, 0, 100}}                                        // keeps 3 ≤ max(5−2,1) = 3
	pl.Jobs[1] = []Interval{{Recover, 0, 5}, {Run, 5, 90}, {Checkpoint, 90, 100}} // recovers, checkpoints at the end
	out, err := Validate(st, pl)
	if err != nil {
		t.Fatal(err)
	}
	if out.Work[0] != 100 || out.Work[1] != 85 || out.Area != 3*100+2*85 {
		t.Fatalf("work %v area %v", out.Work, out.Area)
	}
	if out.End[0] != Running || out.End[1] != Checkpointed {
		t.Fatalf("end %v", out.End)
	}
	if out.Wasted != 2*5+2*10 {
		t.Fatalf("wasted %v", out.Wasted)
	}
}

func TestValidateRejectsBrokenPlans(t *testing.T) {
	cases := []struct {
		name string
		j0   []Interval
		j1   []Interval
		want string
	}{
		{"capacity", []Interval{{Run, 0, 100}}, []Interval{{Recover, 0, 5}, {Run, 5, 100}}, "processors in use"},
		{"online constraint", []Interval{{Run, 0, 90}, {Checkpoint, 90, 100}}, []Interval{{Recover, 0, 5}, {Run, 5, 100}}, ""},
		{"online constraint 2", []Interval{{Run, 0, 100}}, nil, ""}, // baseline valid
		{"running dropped", nil, nil, "work lost"},
		{"running stops unsaved", []Interval{{Run, 0, 50}}, nil, "work lost"},
		{"idle runs without recovery", []Interval{{Run, 0, 90}, {Checkpoint, 90, 100}}, []Interval{{Run, 0, 100}}, "without recovery"},
		{"short checkpoint", []Interval{{Run, 0, 95}, {Checkpoint, 95, 100}}, nil, "checkpoint lasts"},
		{"short recovery", []Interval{{Run, 0, 100}}, []Interval{{Recover, 10, 12}, {Run, 12, 90}, {Checkpoint, 90, 100}}, "recovery lasts"},
		{"beyond section", []Interval{{Run, 0, 101}}, nil, "outside the section"},
		{"overlap", []Interval{{Run, 0, 60}, {Run, 50, 100}}, nil, "before the previous"},
		{"empty", []Interval{{Run, 0, 100}}, []Interval{{Recover, 10, 10}}, "empty"},
		{"recovery of loaded job", []Interval{{Recover, 0, 5}, {Run, 5, 100}}, nil, "already loaded"},
		{"stop after recovery then unsaved", []Interval{{Run, 0, 100}}, []Interval{{Recover, 0, 5}, {Run, 5, 50}}, "work lost"},
	}
	for _, c := range cases {
		st := smallState()
		if c.name == "capacity" {
			st.P = 4 // 3 + 2 processors > 4
		}
		pl := NewPlan(2, 100)
		pl.Jobs[0], pl.Jobs[1] = c.j0, c.j1
		_, err := Validate(st, pl)
		switch c.name {
		case "online constraint 2":
			if err != nil {
				t.Errorf("%s: valid plan rejected: %v", c.name, err)
			}
			continue
		case "online constraint":
			// Job 0 checkpoints and job 1 (2 procs) runs unsaved: 2 ≤ 3, valid.
			if err != nil {
				t.Errorf("%s: valid plan rejected: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// Both jobs running unsaved at the end: 5 > max(5−2, 1) = 3.
	st := smallState()
	pl := NewPlan(2, 100)
	pl.Jobs[0] = []Interval{{Run, 0, 100}}
	pl.Jobs[1] = nil
	st.Jobs[1].P = 1
	pl.Jobs[1] = []Interval{{Recover, 0, 5}, {Run, 5, 100}}
	if _, err := Validate(st, pl); err == nil || !strings.Contains(err.Error(), "online constraint") {
		t.Errorf("4 unsaved processors > 3: got %v", err)
	}
	// Wrong number of jobs.
	if _, err := Validate(st, NewPlan(1, 100)); err == nil {
		t.Error("plan with one job accepted for two")
	}
}

func TestCheckpointedJobMayContinueOrStop(t *testing.T) {
	st := smallState()
	st.Status[0] = Checkpointed
	for _, ivs := range [][]Interval{nil, {{Run, 0, 100}}, {{Recover, 20, 25}, {Run, 25, 100}}} {
		pl := NewPlan(2, 100)
		pl.Jobs[0] = ivs
		if _, err := Validate(st, pl); err != nil {
			t.Errorf("%v: %v", ivs, err)
		}
	}
	// Continuing at 0 needs no recovery; a recovery at 0 is refused.
	pl := NewPlan(2, 100)
	pl.Jobs[0] = []Interval{{Recover, 0, 5}, {Run, 5, 100}}
	if _, err := Validate(st, pl); err == nil {
		t.Error("recovery of a loaded job accepted")
	}
}

func TestStateValidate(t *testing.T) {
	bad := []func(*State){
		func(s *State) { s.Delta = -1 },
		func(s *State) { s.PMin = 9 },
		func(s *State) { s.Jobs[0].P = 9 },
		func(s *State) { s.T = 0 },
		func(s *State) { s.T = -3 },
		func(s *State) { s.P = 9 },
		func(s *State) { s.Jobs[1].C = 0 },
		func(s *State) { s.Status = s.Status[:1] },
	}
	for i, f := range bad {
		st := smallState()
		f(st)
		if err := st.Validate(); err == nil {
			t.Errorf("case %d: bad state accepted", i)
		}
	}
	if err := smallState().Validate(); err != nil {
		t.Fatal(err)
	}
}
