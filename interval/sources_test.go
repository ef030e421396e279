package interval

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/trace"
)

// Hand-counted groups: the filter keeps one priority below a length.
func TestEstimateFiltered(t *testing.T) {
	tasks := []TraceTask{
		{Priority: 1, Te: 500, Failures: []float64{10, 20}},
		{Priority: 1, Te: 800},
		{Priority: 1, Te: 5000, Failures: []float64{1000}},
		{Priority: 2, Te: 100, Failures: []float64{4}},
	}
	s, err := EstimateFiltered(tasks, TraceFilter{Priority: 1, MaxLength: 1000})
	if err != nil || s.Tasks != 2 || s.Failures != 2 || s.MNOF != 1 || s.MTBF != 15 {
		t.Errorf("priority 1 below 1000: %+v, %v", s, err)
	}
	s, err = EstimateFiltered(tasks, AllTasks)
	if err != nil || s.Tasks != 4 || s.Failures != 4 || s.MTBF != 1034.0/4 {
		t.Errorf("all: %+v, %v", s, err)
	}
	if ey, mtbf := s.Model(); ey != 1 || mtbf != 1034.0/4 {
		t.Errorf("model %v %v", ey, mtbf)
	}
	// A group without failure: E(Y) = 0 and an infinite MTBF.
	s, err = EstimateFiltered(tasks, TraceFilter{Priority: 1, MaxLength: 600})
	if err != nil || s.Tasks != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	s, _ = EstimateFiltered(tasks[1:2], AllTasks)
	if ey, mtbf := s.Model(); ey != 0 || !math.IsInf(mtbf, 1) {
		t.Errorf("no failure: model %v %v", ey, mtbf)
	}
	for _, f := range []TraceFilter{{Priority: 3, MaxLength: math.Inf(1)}, {Priority: -1, MaxLength: 50}, {Priority: 1, MaxLength: 0}, {Priority: 1, MaxLength: math.NaN()}} {
		if _, err := EstimateFiltered(tasks, f); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
	if got := (TraceFilter{Priority: 1, MaxLength: 1000}).String(); got != "priority 1, work < 16m40s" {
		t.Errorf("String = %q", got)
	}
}

// LANLSystem picks one system and lists the others when asked for a
// missing one or none.
func TestLANLSystem(t *testing.T) {
	at := func(sys int, h float64) trace.LANLFailure {
		s := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
		return trace.LANLFailure{System: sys, Started: s, Fixed: s}
	}
	recs := []trace.LANLFailure{at(2, 0), at(17, 0), at(2, 10), at(7, 3), at(17, 4), at(2, 30)}
	s, err := LANLSystem(recs, 2, 2)
	if err != nil || s.System != 2 || s.Failures != 3 || s.MTBF != 15*3600 || len(s.Intervals) != 2 {
		t.Fatalf("system 2: %+v, %v", s, err)
	}
	if got := LANLSystemNumbers(recs, 2); len(got) != 2 || got[0] != 2 || got[1] != 17 {
		t.Errorf("systems %v", got)
	}
	for _, sys := range []int{7, 99, -1} {
		_, err := LANLSystem(recs, sys, 2)
		if err == nil || !strings.Contains(err.Error(), "(systems: 2, 17)") {
			t.Errorf("system %d: %v", sys, err)
		}
	}
	if _, err := LANLSystem(recs, 2, 10); err == nil || strings.Contains(err.Error(), "systems:") {
		t.Errorf("no system with 10 failures: %v", err)
	}
}
