package loadgen

import (
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim"
)

// A closed loop is identical only when no decision diverged and the runs
// are equal; otherwise the text says from which decision and Err is set.
func TestSimulationVerdict(t *testing.T) {
	s := Simulation{iosim.ClosedLoopReport{Strategy: "least-waste", Seed: 1, LocalWaste: 0.4, RemoteWaste: 0.4,
		LocalDecisions: 9, RemoteDecisions: 9, Diverged: -1, Same: true}}
	if want := "least-waste, seed 1: waste 0.400000 in process, 0.400000 through the coordinator; decisions 9 and 9: identical"; s.Text() != want || s.Err() != nil {
		t.Fatalf("%q %v", s.Text(), s.Err())
	}
	s.Diverged = 4
	if !strings.HasSuffix(s.Text(), "DIFFER from decision 4") || s.Err() == nil {
		t.Fatalf("%q %v", s.Text(), s.Err())
	}
	s.Diverged, s.Same = -1, false
	if s.Identical() || s.Err() == nil {
		t.Fatal("unequal runs called identical")
	}
}
