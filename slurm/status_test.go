package slurm

import (
	"context"
	"strings"
	"testing"
)

func TestStatusAndCancel(t *testing.T) {
	st := newState(t, Chain{Job: "job.sh", Name: "toy", Steps: steps(4)})
	writePlan(st)
	f := &fakeSlurm{}
	ctx := context.Background()
	if err := Submit(ctx, f, st, []int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	f.jobs[0].state = "TIMEOUT"
	f.jobs[1].state = "RUNNING"
	st.WriteOutcome(Outcome{Reservation: 1, Outcome: OutcomeCheckpointed, Progress: 90})
	st.WriteOutcome(Outcome{Reservation: 2, Outcome: OutcomeRunning, Progress: 90})
	cs, err := Status(ctx, f, st)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Outcome != "running" || cs.Running != 2 || len(cs.Pending) != 1 || cs.Pending[0] != 3 || cs.Progress != 90 ||
		cs.Jobs[0].State != "TIMEOUT" || cs.Reservations != 4 {
		t.Fatalf("%+v", cs)
	}
	ids, err := Cancel(ctx, f, st)
	if err != nil || strings.Join(ids, ",") != "1002,1003" {
		t.Fatalf("cancelled %v, %v", ids, err)
	}
	cs, _ = Status(ctx, f, st)
	if cs.Outcome != OutcomeCancelled || cs.Running != 0 {
		t.Fatalf("after cancel: %+v", cs)
	}
	st.WriteOutcome(Outcome{Reservation: 2, Outcome: OutcomeDone, Progress: 150})
	if cs, _ = Status(ctx, f, st); cs.Outcome != OutcomeDone || cs.Progress != 150 {
		t.Fatalf("done: %+v", cs)
	}
}
