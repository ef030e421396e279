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

// chain status tells what Slurm and the folder know together: a pending
// reservation's reason (squeue %r), a reservation whose runner vanished
// (the folder says running, sacct says TIMEOUT), a reservation recorded
// only in its job comment, the reason a chain stopped itself, and what a
// skipped reservation found saved.
func TestStatusReconcilesAndSaysWhy(t *testing.T) {
	st := newState(t, Chain{Job: "job.sh", Name: "toy", Steps: steps(4)})
	writePlan(st)
	f := &fakeSlurm{}
	ctx := context.Background()
	if err := Submit(ctx, f, st, []int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	f.jobs[0].state, f.jobs[1].state, f.jobs[2].reason = "TIMEOUT", "TIMEOUT", "PartitionTimeLimit"
	f.jobs[1].comment = "ckpt:chain=c1;r=2;outcome=timeout;progress=90;work=140"
	st.WriteOutcome(Outcome{Reservation: 1, JobID: "1001", Outcome: OutcomeRunning, Progress: 0})
	cs, err := Status(ctx, f, st)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Outcome != "pending" || cs.Reason != "Slurm: PartitionTimeLimit" || cs.Jobs[0].Outcome != OutcomeVanished ||
		cs.Jobs[1].Outcome != OutcomeTimeout || cs.Jobs[1].Progress != 90 || len(cs.Warnings) != 2 {
		t.Errorf("%+v", cs)
	}
	var b strings.Builder
	cs.WriteText(&b)
	if !strings.Contains(b.String(), "pending (Slurm: PartitionTimeLimit)") || !strings.Contains(b.String(), "PENDING (PartitionTimeLimit)") {
		t.Errorf("text:\n%s", b.String())
	}
	st.Stop("stalled: 2 reservations in a row saved no new progress")
	f.jobs[2].state = "CANCELLED"
	st.WriteOutcome(Outcome{Reservation: 3, JobID: "1003", Outcome: OutcomeSkipped, Progress: 31, End: t0, Note: "the chain stopped itself"})
	cs, _ = Status(ctx, f, st)
	b.Reset()
	cs.WriteText(&b)
	if cs.Outcome != OutcomeStalled || !strings.HasPrefix(cs.Reason, "stalled: 2 reservations") || !strings.Contains(b.String(), "skipped       31.0s saved") {
		t.Errorf("%+v\n%s", cs, b.String())
	}
}

// A reservation that found the work done says what is saved.
func TestSkippedSummary(t *testing.T) {
	if got := (Outcome{Outcome: OutcomeSkipped, Progress: 31}).Summary(); got != "skipped, progress 31.0s saved" {
		t.Errorf("%q", got)
	}
}
