package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/ckpt-hpc/ckpt/runner"
)

// A point of the sweep: a checkpoint cost and a failure rate.
type point struct{ C, Lambda float64 }

// The result of one replicate; struct fields become CSV/JSONL columns.
type waste struct {
	C      float64 `row:"C"`
	Lambda float64 `row:"lambda"`
	Period float64 `row:"period"`
	Waste  float64 `row:"waste"`
}

// simulate is a stand-in for a real simulation: Young's period and a noisy
// waste drawn from the item's own generator.
func simulate(_ context.Context, it runner.Item[point]) (waste, error) {
	T := math.Sqrt(2 * it.Param.C / it.Param.Lambda)
	w := it.Param.C/T + it.Param.Lambda*T/2
	noise := 1 + 0.1*it.Rand.NormFloat64()
	return waste{it.Param.C, it.Param.Lambda, math.Round(T), math.Round(1e4*w*noise) / 1e4}, nil
}

func Example() {
	points := []point{{60, 1e-5}, {60, 1e-4}, {600, 1e-5}, {600, 1e-4}}
	opts := runner.Options{Seed: 42, Progress: runner.ProgressOff}

	// Write CSV to stdout and JSON lines elsewhere at once.
	var jsonl bytes.Buffer
	sink := runner.Tee(runner.NewCSV[waste](os.Stdout), runner.NewJSONL[waste](&jsonl))
	if err := runner.Run(context.Background(), opts, points, 2, simulate, sink); err != nil {
		fmt.Println(err)
	}
	// Output:
	// item,point,rep,seed,C,lambda,period,waste
	// 0,0,0,7138415436909018950,60,1e-05,3464,0.03
	// 1,0,1,16995303060395781456,60,1e-05,3464,0.0324
	// 2,1,0,622664797948044658,60,0.0001,1095,0.1165
	// 3,1,1,14266671629466169366,60,0.0001,1095,0.1093
	// 4,2,0,5644283924942595004,600,1e-05,10954,0.1077
	// 5,2,1,15445046431580696038,600,1e-05,10954,0.1115
	// 6,3,0,2486255600760581703,600,0.0001,3464,0.3262
	// 7,3,1,15631447266810971941,600,0.0001,3464,0.3361
}

// Splitting the same sweep over three Slurm array tasks (--shard 0/3, 1/3,
// 2/3, i.e. "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" with
// --array=0-2) and merging their outputs gives the bytes of the unsplit run.
func Example_shards() {
	points := []point{{60, 1e-5}, {60, 1e-4}, {600, 1e-5}, {600, 1e-4}}

	var whole bytes.Buffer
	opts := runner.Options{Seed: 42, Progress: runner.ProgressOff}
	_ = runner.Run(context.Background(), opts, points, 2, simulate, runner.NewCSV[waste](&whole))

	var parts []io.Reader
	for i := range 3 {
		spec := fmt.Sprintf("%d/3", i) // from the --shard flag
		sh, err := runner.ParseShard(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		opts.Shard = sh
		var part bytes.Buffer
		_ = runner.Run(context.Background(), opts, points, 2, simulate, runner.NewCSV[waste](&part))
		parts = append(parts, &part)
	}
	var merged bytes.Buffer
	if err := runner.Merge(&merged, runner.FormatCSV, len(points)*2, parts...); err != nil {
		fmt.Println(err)
	}
	fmt.Println(bytes.Equal(merged.Bytes(), whole.Bytes()))

	_, err := runner.ParseShard("3/3") // a 1-based array task id
	fmt.Println(err)
	// Output:
	// true
	// shard "3/3": shard index 3 is outside [0, 3) (shards are 0-based)
}
