package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newState(t *testing.T, c Chain) *State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "c1")
	os.MkdirAll(dir, 0o755)
	st := &State{ID: "c1", Dir: dir, Chain: c, Jobs: map[int]string{}, Outcomes: map[int]Outcome{}}
	return st
}

func steps(n int) []Step {
	s := make([]Step, n)
	for i := range s {
		s[i] = Step{Time: 60, Checkpoint: i%2 == 0, CheckpointTime: 10, Restart: i > 0, Milestone: float64(100 * (i + 1))}
	}
	return s
}

// notOK are the ways a reservation ends without completing the work.
var notOK = []string{"TIMEOUT", "FAILED", "CANCELLED", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY"}

// playChain runs a chain of n reservations on the fake Slurm, the work
// completing in reservation done, the others ending in notOK states
// (rotated by shift). Runners act as Run does (top up at start, cancel the
// rest when done) unless lazy, when they do nothing (a runner that died):
// the dependencies alone must then stop the chain. It returns the
// reservations that ran, in order.
func playChain(t *testing.T, n, ahead, done, shift int, lazy bool) []int {
	st := newState(t, Chain{Job: "job.sh", Name: "toy", Ahead: ahead, Steps: steps(n)})
	f := &fakeSlurm{}
	ctx := context.Background()
	if err := Submit(ctx, f, st, TopUp(st.Chain, st.Jobs, 0)); err != nil {
		t.Fatal(err)
	}
	res := map[string]int{}
	var ran []int
	for {
		j := f.schedule()
		if j == nil {
			return ran
		}
		for k, id := range st.Jobs {
			res[id] = k
		}
		k := res[j.id]
		ran = append(ran, k)
		if !lazy {
			if err := Submit(ctx, f, st, TopUp(st.Chain, st.Jobs, k)); err != nil {
				t.Fatal(err)
			}
		}
		if k == done {
			j.state = "COMPLETED"
			if !lazy {
				f.Cancel(ctx, Later(st.Jobs, k))
			}
		} else {
			j.state = notOK[(k+shift)%len(notOK)]
		}
	}
}

// No reservation runs after the one that completes the work, whatever its
// position, the window, the states earlier reservations ended in, and
// whether the runners cancel the rest.
func TestChainStopsAtEveryPosition(t *testing.T) {
	t.Parallel()
	const n = 5
	for _, ahead := range []int{0, 1, 2, 4} {
		for done := 1; done <= n+1; done++ { // n+1: never completes
			for shift := range notOK {
				for _, lazy := range []bool{false, true} {
					if lazy && ahead != 0 {
						continue // a dead runner cannot top up the window
					}
					ran := playChain(t, n, ahead, done, shift, lazy)
					want := min(done, n)
					ok := len(ran) == want
					for i, k := range ran {
						ok = ok && k == i+1
					}
					if !ok {
						t.Fatalf("ahead %d, completes in %d, shift %d, lazy %v: ran %v, want 1..%d", ahead, done, shift, lazy, ran, want)
					}
				}
			}
		}
	}
}

// The oracle can fail: with a dependency on the previous reservation only
// (the old chain), a completion in reservation 2 of 4 cancels 3, and 4 —
// depending on a CANCELLED job, "not ok" — runs again.
func TestPreviousOnlyDependencyRunsAgain(t *testing.T) {
	f := &fakeSlurm{}
	prev := ""
	for k := 1; k <= 4; k++ {
		args := []string{fmt.Sprintf("--job-name=toy.r%d", k)}
		if prev != "" {
			args = append(args, "--dependency=afternotok:"+prev, "--kill-on-invalid-dep=yes")
		}
		prev, _ = f.Sbatch(context.Background(), nil, args)
	}
	var ran []string
	for j := f.schedule(); j != nil; j = f.schedule() {
		ran = append(ran, j.name)
		j.state = map[bool]string{true: "COMPLETED", false: "TIMEOUT"}[j.name == "toy.r2"]
	}
	if got := strings.Join(ran, ","); got != "toy.r1,toy.r2,toy.r4" {
		t.Fatalf("previous-only chain ran %s", got)
	}
}

func TestTopUpAndDependencies(t *testing.T) {
	c := Chain{Job: "j", Ahead: 2, Steps: steps(6)}
	jobs := map[int]string{1: "11", 2: "12", 3: "13"}
	if got := fmt.Sprint(TopUp(c, jobs, 0)); got != "[]" {
		t.Errorf("at submission with 3 submitted: %s", got)
	}
	if got := fmt.Sprint(TopUp(c, jobs, 2)); got != "[4]" {
		t.Errorf("reservation 2 starts: %s, want [4]", got)
	}
	if got := fmt.Sprint(TopUp(Chain{Steps: steps(6)}, map[int]string{}, 0)); got != "[1 2 3 4 5 6]" {
		t.Errorf("ahead all: %s", got)
	}
	if _, err := Dependencies(map[int]string{1: "11", 3: "13"}, 4); err == nil {
		t.Error("a gap in the dependencies was accepted")
	}
	if got := fmt.Sprint(Later(jobs, 1)); got != "[12 13]" {
		t.Errorf("Later: %s", got)
	}
}

// A submission that fails mid-way stops: what is recorded is a prefix.
func TestSubmitStopsAtFailure(t *testing.T) {
	st := newState(t, Chain{Job: "j", Steps: steps(4)})
	f := &fakeSlurm{failAt: 3}
	err := Submit(context.Background(), f, st, TopUp(st.Chain, st.Jobs, 0))
	if err == nil || !strings.Contains(err.Error(), "reservation 3") || len(st.Jobs) != 2 {
		t.Fatalf("err %v, jobs %v", err, st.Jobs)
	}
}
