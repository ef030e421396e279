package capacity

import (
	"errors"
	"runtime"
	"testing"
)

// TestTableGuardBeforeAllocating: a section whose tables exceed maxTable
// is refused before they are allocated, whichever program asks. One job on
// 9 000 processors passed the traceback-only guard (m·n = 8.1·10⁷ bytes)
// and then allocated 2.6 GB of value layers (32 bytes per state).
func TestTableGuardBeforeAllocating(t *testing.T) {
	const p = 9000
	st := &State{Platform: Platform{PMin: 1, PMax: p, Delta: 1}, P: p, T: 100,
		Jobs: []Job{{P: 1, C: 1, R: 1}}, Status: []Status{Idle}, Work: []float64{0}, Avail: []float64{0}}
	for _, spec := range []string{"dp-goodput", "dp-goodput-best-cnf", "dp-yield", "dp-bic:15", "dp-bic-best-cnf:15",
		"target-yield:0.5", "target-goodput:0.5", "dp-goodput-slow"} {
		a, err := New(spec)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = a.Plan(st)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, errTooLarge) {
			t.Errorf("%s: err %v, want %v", spec, err, errTooLarge)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", spec, got)
		}
	}
	if b := tableBytes(1, (p+1)*(p+1)); b <= maxTable {
		t.Fatalf("tableBytes = %g: the test's instance is no longer too large", b)
	}
}

// TargetGoodput refuses a section whose una table is too large instead of
// planning it silently with DPGOODPUT, whose table alone fits (50 jobs on
// 700 processors: 82·65·701² bytes against 82·701²).
func TestTargetGoodputTooLargeIsRefused(t *testing.T) {
	const p, m = 700, 50
	st := &State{Platform: Platform{PMin: 1, PMax: p, Delta: 1}, P: p, T: 100}
	for range m {
		st.Jobs = append(st.Jobs, Job{P: 10, C: 1, R: 1})
		st.Status, st.Work, st.Avail = append(st.Status, Idle), append(st.Work, 0), append(st.Avail, 0)
	}
	if _, err := (&TargetGoodput{G: 0.5}).Plan(st); !errors.Is(err, errTooLarge) {
		t.Fatalf("err %v, want %v", err, errTooLarge)
	}
	if _, err := (&DPGoodput{}).Plan(st); err != nil {
		t.Fatalf("dp-goodput: %v", err)
	}
}
