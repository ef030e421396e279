package interval_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ckpt-hpc/ckpt/interval"
)

// A Go program asks what `ckpt interval --te 18 --ckpt 2 --failures 2`
// asks: the request, Run, then the report's numbers or its text.
func ExampleRun() {
	rep, err := interval.Run(context.Background(), interval.Request{
		Te: 18, C: 2, // seconds
		Failures: interval.FailureSource{ExpectedFailures: new(2.0)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Theorem 1: %d intervals of %g s, E(Tw) = %g s\n", rep.MNOF.Intervals, float64(rep.MNOF.Period), float64(rep.MNOF.ExpectedWallclock))
	// Output: Theorem 1: 3 intervals of 6 s, E(Tw) = 28 s
}

// The same task simulated with exponential failures of mean Te/E(Y) = 9 s:
// the mean agrees with the exact expectation of the plan, 34.3133 s.
func ExampleSimulate() {
	rep, err := interval.Simulate(context.Background(), interval.SimRequest{
		Te: 18, C: 2, Strategy: "count:3", Runs: 1000, Seed: 1,
		Failures: interval.FailureSource{MTBF: 9},
		Model:    interval.SimModel{RestartFailures: true, CheckpointFailures: true, FirstRestart: true},
	}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteText(os.Stdout)
	// Output:
	// task: Te = 18 s, C = 2 s, R = 0 s; failures: exponential:rate=0.1111111111111111
	// policy: count:3, period 6 s (3 intervals, 2 checkpoints)
	// model: failures during restarts true, during checkpoints true; restart before the first checkpoint true
	// runs: 1000
	// mean wall-clock: 34.1472 s ± 0.66 s (95% confidence interval)
	// mean WPR: 0.571253; mean failures: 3.751
}
