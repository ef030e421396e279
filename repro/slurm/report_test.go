package slurm

import (
	"math"
	"strings"
	"testing"
)

// TestTable4PaperMeans: the paper column of Table 4's comparison is the
// mean of its ten runs, summed by hand: 68.8%, 1.945, 62.4%, 2.15.
func TestTable4PaperMeans(t *testing.T) {
	app := Apps()[0]
	var rs []Result
	for _, strat := range []string{DynProgCount, HPC} {
		rs = append(rs, Result{Job: Job{Experiment: Table4, App: app, Strategy: strat, Run: 1, Walltime: 100}, Done: true, Held: 125, Response: 150, Scale: 10, SimHeld: 110})
	}
	cs := Comparisons(Summarize(rs))
	want := map[string]float64{"mix DYN-PROG-COUNT utilisation (%)": 68.8, "mix DYN-PROG-COUNT stretch": 1.945, "mix HPC utilisation (%)": 62.4, "mix HPC stretch": 2.15}
	for _, c := range cs {
		if w, ok := want[c.Quantity]; ok {
			if math.Abs(c.Paper-w) > 1e-9 {
				t.Errorf("%s: paper %v, want %v", c.Quantity, c.Paper, w)
			}
			delete(want, c.Quantity)
		}
		if strings.HasSuffix(c.Quantity, "utilisation (%)") && strings.Contains(c.Quantity, "mix D") && c.Ours != 80 {
			t.Errorf("%s: ours %v, want 100·100/125 = 80", c.Quantity, c.Ours)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing rows: %v", want)
	}
}

// TestSummarizeByHand: two jobs of one cell, measures worked by hand; a
// job not done is counted but not measured.
func TestSummarizeByHand(t *testing.T) {
	app := Apps()[0]
	j := Job{Experiment: Fig8, App: app, Strategy: HPC}
	a, b, c := j, j, j
	a.Walltime, b.Walltime, c.Walltime = 100, 200, 300
	rs := []Result{
		{Job: a, Done: true, Held: 100, Response: 300, SimHeld: 100, Scale: 20, Reservations: 1},
		{Job: b, Done: true, Held: 400, Response: 600, SimHeld: 300, Scale: 20, Reservations: 2},
		{Job: c, Done: false, Held: 900, Response: 1000, Scale: 20, Reservations: 3},
	}
	ss := Summarize(rs)
	if len(ss) != 1 {
		t.Fatalf("%d cells", len(ss))
	}
	s := ss[0]
	// held: 300/500 and (1 + 2)/2; queue: 300/900, (3 + 3)/2; waits 200/20 = 10 s each
	if s.Jobs != 3 || s.Done != 2 || s.Utilization != 0.6 || s.Stretch != 1.5 || math.Abs(s.QueueUtilization-1.0/3) > 1e-12 || s.QueueStretch != 3 || s.Wait != 10 {
		t.Errorf("%+v", s)
	}
	// waits at real length: held + 10 → 110/100, 410/200
	if math.Abs(s.WaitStretch-(1.1+2.05)/2) > 1e-12 || math.Abs(s.SimUtilization-300.0/400) > 1e-12 {
		t.Errorf("wait stretch %v, sim utilisation %v", s.WaitStretch, s.SimUtilization)
	}
}

// The count of completed jobs is sacct's (a reservation COMPLETED), and a
// disagreement with the runners' records is said.
func TestCompletedLineCountsWhatSacctCounts(t *testing.T) {
	rs := []Result{{JobIDs: []string{"1", "2"}, Done: true}, {JobIDs: []string{"3"}, Done: true}, {JobIDs: []string{"4"}}}
	acct := map[string]Acct{"1": {State: "FAILED"}, "2": {State: "COMPLETED"}, "3": {State: "TIMEOUT"}, "4": {State: "TIMEOUT"}}
	if got, want := CompletedLine(rs, acct), "jobs completed: 1 of 3 (sacct: a reservation COMPLETED); the runners recorded 2 done: the records disagree"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
