package interval

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
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
		if _, err := meanWallclock(1000, 40, 2, 2, law, 1, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

// whatIfLaws are the failure laws of the cloud reproduction's what-if
// study (repro/cloud), with its task sizes: the four laws of mean 500 s,
// the law fitted to the Google intervals and the one fitted to the LANL
// system with the most failures (their parameters as whatif.csv prints
// them, the shortest decimals that round-trip).
var whatIfLaws = []struct {
	name     string
	te, c, r float64
	law      distribution.Distribution
}{
	{"exponential", 1000, 2, 2, distribution.Exponential{Rate: 1.0 / 500}},
	{"weibull", 1000, 2, 2, distribution.Weibull{K: 0.5, Lambda: 250}},
	{"lognormal", 1000, 2, 2, distribution.LogNormal{Mu: 5.089608098422191, Sigma: 1.5}},
	{"pareto", 1000, 2, 2, distribution.Pareto{Xm: 500.0 / 3, Alpha: 1.5}},
	{"google", 1000, 2, 2, distribution.LogNormal{Mu: 4.415797390629532, Sigma: 1.1641089853167106}},
	{"lanl", 86400, 300, 300, distribution.Weibull{K: 0.7382854467217588, Lambda: 41291.475670057815}},
}

// BenchmarkBestFixed is the hot path of `ckpt repro cloud`: the search of
// the best fixed period (x = 1 … 80, then the golden section) with 200
// Monte Carlo runs per period, the --quick size (the full run has 20 000
// runs and x up to 400), for each what-if law.
func BenchmarkBestFixed(b *testing.B) {
	for _, s := range whatIfLaws {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := bestFixed(s.te, s.c, s.r, s.law, 7, 200, 80); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunsReplay is the inner loop of the what-if search: 20 000 runs
// of the Google fit's law (the costliest scenario, about 10 failures per
// run), their failures already drawn (for x = 1, as BestFixed starts),
// replayed under one period (x = 44, the best). It reports the cost per
// event (a failure, or the completion).
func BenchmarkRunsReplay(b *testing.B) {
	s := whatIfLaws[4]
	period := s.te / 44
	rs, err := NewRuns(s.law, 7, 20000)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []float64{s.te, period} {
		if _, err := rs.MeanWallclock(s.te, p, s.c, s.r); err != nil {
			b.Fatal(err)
		}
	}
	events := 0
	for i := range rs.draws {
		p, _ := newReplayer(s.te, period, s.c, s.r)
		if err := rs.replay(&rs.chunks[0], i, period, &p); err != nil {
			b.Fatal(err)
		}
		events += p.res.Failures + 1
	}
	for b.Loop() {
		if _, err := rs.MeanWallclock(s.te, period, s.c, s.r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
}

// BenchmarkRenewalMean: E(Y) of the Google fit's law over 20 000 runs (the
// what-if uses 20 × reps), one worker; it reports the cost per draw.
func BenchmarkRenewalMean(b *testing.B) {
	for _, s := range []int{1, 4, 5} {
		law := whatIfLaws[s]
		b.Run(law.name, func(b *testing.B) {
			draws := 0
			for i := range 20000 {
				g := rng.Stream(7, 1, uint64(i))
				for t := law.law.Rand(g); t < law.te; t += law.law.Rand(g) {
					draws++
				}
				draws++
			}
			for b.Loop() {
				RenewalMean(law.te, law.law, 7, 20000)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(draws), "ns/draw")
		})
	}
}
