package capacity

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/capacity"
	"github.com/ckpt-hpc/ckpt/datadir"
)

var sweepShard = flag.String("sweep.shard", "1/40", "shard i/n of the paper-size default sweep run by BenchmarkPaperSweepShard")

// BenchmarkPaperSweepShard runs shard i/n (-sweep.shard, the items k with
// k mod n = i of each sweep, as --shard does) of the paper-size default
// sweep of Figs. 7b–12: 19 algorithms at the default point and the 5 of
// Figs. 8–12 over their 23 values, × 10 instances × the 3 workloads, 4 020
// simulations in all, one at a time. Run it once (-benchtime 1x) and time
// the process: its CPU time × n estimates the whole sweep's. It needs the
// logs of the data folder.
func BenchmarkPaperSweepShard(b *testing.B) {
	var i, n int
	if _, err := fmt.Sscanf(*sweepShard, "%d/%d", &i, &n); err != nil || n < 1 || i < 0 || i >= n {
		b.Fatalf("-sweep.shard %q: want i/n with 0 ≤ i < n", *sweepShard)
	}
	var ws []capacity.Workload
	for _, f := range []string{"KIT-FH2-2016-1_CQSim-simresult.rst", "NASA-iPSC-1993-3.1-cln.swf.gz", "ALCF-Theta-2022_cqsimplus.swf"} {
		path, err := datadir.Path("", "swf", f)
		if err != nil {
			b.Skip(err)
		}
		w, err := capacity.LoadWorkload(path)
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasPrefix(w.Name, "ALCF") {
			w = w.InUnits(128)
			w.Name = "Theta/128"
		}
		ws = append(ws, w)
	}
	def := capacity.DefaultParams()
	def.Sections = fullSections
	type sweep struct {
		vary   string
		values []float64
		algos  []string
	}
	fig7 := append([]string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-yield"},
		pareto([]float64{0, 1, 2, 3, 5, 7, 10, 12, 15, 20, 25, 30, 35, 40, 45}, "dp-bic")...)
	sweeps := []sweep{{"", []float64{0}, fig7},
		{"avgT", []float64{25, 50, 100, 200, 400}, mainAlgos},
		{"pmax", []float64{100, 200, 400}, mainAlgos},
		{"pmin", []float64{0.025, 0.1, 0.2, 0.5, 0.75}, mainAlgos},
		{"delta", []float64{0.025, 0.05, 0.1, 0.2, 0.4}, mainAlgos},
		{"load", []float64{1, 1.5, 2, 3, 4}, mainAlgos}}
	for b.Loop() {
		items := 0
		for _, sw := range sweeps {
			var pts []capacity.SweepPoint
			for wi := range ws {
				for vi, v := range sw.values {
					p := def
					if sw.vary != "" {
						if err := capacity.SetParam(&p, sw.vary, v); err != nil {
							b.Fatal(err)
						}
					}
					for _, a := range sw.algos {
						pts = append(pts, capacity.SweepPoint{Workload: &ws[wi], Params: p, Algo: a, Vary: sw.vary, Value: v, Instance: wi*len(sw.values) + vi})
					}
				}
			}
			for k := i; k < len(pts)*fullInstances; k += n {
				if _, _, err := capacity.RunSweepItem(context.Background(), pts[k/fullInstances], seed, k%fullInstances); err != nil {
					b.Fatal(err)
				}
				items++
			}
		}
		b.ReportMetric(float64(items), "simulations")
	}
}
