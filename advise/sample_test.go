package advise

import (
	"context"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// TestReplaySampleConservation replays the first 4,000 jobs of KTH-SP2 and
// checks the replay's accounting against sums computed here from the log:
// the users' requests never kill and their turnaround is Σ wait(R) + X;
// every policy runs each job's length once to completion (used = Σ X +
// lost); no policy asks more than the request.
func TestReplaySampleConservation(t *testing.T) {
	path := datadirtest.ForTest(t, "swf", "KTH-SP2-1996-2.1-cln.swf.gz")
	l, err := ReadSWFFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Jobs = l.Jobs[:4000]
	rep, err := Replay(context.Background(), l, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var turn, used, censored float64
	for _, j := range l.Jobs {
		x := j.Run
		if j.Run >= j.Requested-math.Max(1, 0.01*j.Requested) {
			x, censored = j.Requested, censored+1
		}
		turn += rep.Wait.A*j.Requested + rep.Wait.B + x
		used += x * float64(max(j.Nodes, 1))
	}
	n := float64(len(l.Jobs))
	if int(censored) != rep.Censored {
		t.Errorf("%d censored jobs, the replay says %d", int(censored), rep.Censored)
	}
	u := rep.Policies[0]
	if math.Abs(u.MeanTurnaround-turn/n) > 1e-6*turn/n || u.KillRate != 0 || u.SubmissionsPerJob != 1 {
		t.Errorf("users' requests: %+v, want mean turnaround %v, no kill", u, turn/n)
	}
	for _, p := range rep.Policies {
		if math.Abs(p.used-(used+p.lost)) > 1e-6*used {
			t.Errorf("%s: used %v node-s, want Σ X + lost = %v", p.Policy, p.used, used+p.lost)
		}
		if p.SubmissionsPerJob < 1 || p.KillRate < 0 || p.KillRate > 1 || p.MeanTurnaround < 0 {
			t.Errorf("%s: %+v", p.Policy, p)
		}
	}
	if rep.Policies[5].Changed == 0 {
		t.Error("ckpt changed no job: the sample tests nothing of it")
	}
}
