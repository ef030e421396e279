package reservation_test

import (
	"context"
	"fmt"

	"github.com/ckpt-hpc/ckpt/reservation"
)

// A Go program plans as `ckpt reserve` does: a Request, Run, the Report.
func ExampleRun() {
	r := reservation.DefaultRequest() // C = R = 600 s, ε = 1
	r.Walltime = reservation.LawSpec("uniform:a=1h,b=10h")
	r.N = 300
	r.NoBaselines = true
	rep, err := reservation.Run(context.Background(), r)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rv := range rep.Reservations {
		fmt.Printf("%d: sbatch --time %s, checkpoint %v, needed with probability %.2f\n", rv.Index, rv.Slurm, rv.Checkpoint, rv.ProbNeeded)
	}
	fmt.Printf("expected %.0f s reserved per job\n", rep.ExpectedCost)
	// Output:
	// 1: sbatch --time 03:29:00, checkpoint true, needed with probability 1.00
	// 2: sbatch --time 02:19:00, checkpoint true, needed with probability 0.74
	// 3: sbatch --time 01:59:00, checkpoint true, needed with probability 0.52
	// 4: sbatch --time 01:38:00, checkpoint true, needed with probability 0.34
	// 5: sbatch --time 01:18:00, checkpoint true, needed with probability 0.20
	// 6: sbatch --time 00:59:00, checkpoint false, needed with probability 0.09
	// expected 25662 s reserved per job
}

// Validate names the field out of range.
func ExampleRequest_Validate() {
	r := reservation.DefaultRequest()
	r.Epsilon = -1
	fmt.Println(r.Validate())
	// Output: Epsilon: must be > 0, got -1
}
