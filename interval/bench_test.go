package interval

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// BenchmarkReplayAllTraces replays every task of the three GloudSim traces
// under Formula (3) with per-priority MNOF, C = R = 2 s. It skips when the
// traces are absent.
func BenchmarkReplayAllTraces(b *testing.B) {
	var tasks []TraceTask
	for _, kind := range []string{"single", "batch", "mix"} {
		tasks = append(tasks, TasksFromGloudSim(loadGloud(b, kind))...)
	}
	p := MNOFPolicy{Label: "f3", C: 2, MNOF: GroupMNOF(ByPriority(tasks, math.Inf(1)))}
	out := make([]ReplayResult, 0, len(tasks))
	for b.Loop() {
		var err error
		if out, err = ReplayAll(tasks, p, 2, 2, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIntervals(b *testing.B) {
	s := 0
	for b.Loop() {
		s += Intervals(441, 1, 2)
	}
	_ = s
}

// BenchmarkMeanWallclock: 1000 simulated runs of a 1000 s task, Pareto
// failures of mean 500 s, 25 intervals.
func BenchmarkMeanWallclock(b *testing.B) {
	law := distribution.Pareto{Xm: 500.0 / 3, Alpha: 1.5}
	for b.Loop() {
		if _, err := MeanWallclock(1000, 40, 2, 2, law, 1, 1000); err != nil {
			b.Fatal(err)
		}
	}
}
