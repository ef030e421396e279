// Package cloudckpt reproduces the evaluation of Di, Robert, Vivien, Kondo,
// Wang and Cappello, "Optimization of Cloud Task Processing with
// Checkpoint-Restart Mechanism" (SC'13) with package interval: the worked
// examples of Sections 4.1 and 4.2.2, Table 7 (MNOF and MTBF per priority
// and task-length limit), Table 6 (WPR with precise prediction), Fig. 9 and
// Fig. 10 (WPR with per-priority estimates), the failure-interval fits of
// Fig. 5 and of the LANL systems, and a what-if study with failures drawn
// from distributions.
//
// The paper ran its experiments on a real cluster with BLCR, replaying the
// Google trace; here every real task of the three GloudSim traces (the data
// behind those experiments) is replayed in simulation by interval.Replay:
// the failures strike after the trace's uninterrupted running times, C = 2 s
// per checkpoint (the cost the paper assumes in Section 4.1 and the one of
// GloudSim's numeric analyser) and R = 2 s per restart. ST, BoT and Mix are
// the single, batch and mix traces.
//
// The data are looked up in $CKPT_DATA, else in the first of ../shared/data,
// ../../shared/data, ../../../shared/data, /work/shared/data that exists.
//
// Cost: the replays take milliseconds; the what-if study dominates
// (scenarios × maxX × reps simulations), a few seconds with --quick.
package cloudckpt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/trace"
)

// Costs of the replays.
const (
	ckptCost    = 2.0
	restartCost = 2.0
)

// settings are the sizes that --quick shrinks.
type settings struct {
	reps int // Monte Carlo runs per period in the what-if study
	maxX int // largest number of intervals the search tries
}

func settingsFor(quick bool) settings {
	if quick {
		return settings{reps: 200, maxX: 80}
	}
	return settings{reps: 20000, maxX: 400}
}

// kinds are the three traces, with the paper's names.
var kinds = []struct{ file, name string }{
	{"single", "ST"}, {"batch", "BoT"}, {"mix", "Mix"},
}

type data struct {
	dir   string
	tasks map[string][]interval.TraceTask // by paper name
}

// DataDir returns the folder of the shared data.
func DataDir() (string, error) {
	cands := []string{os.Getenv("CKPT_DATA"), "../shared/data", "../../shared/data", "../../../shared/data", "/work/shared/data"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(c, "google2011", "gloudsim-task-traces")); err == nil && st.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("shared data not found: set CKPT_DATA to the folder holding google2011/, failures/ and checkpoint-costs/")
}

func load() (*data, error) {
	dir, err := DataDir()
	if err != nil {
		return nil, err
	}
	d := &data{dir: dir, tasks: map[string][]interval.TraceTask{}}
	for _, k := range kinds {
		path := filepath.Join(dir, "google2011", "gloudsim-task-traces", k.file+"-jobTrace-dec.dat")
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		tr, err := trace.ReadGloudSim(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		d.tasks[k.name] = interval.TasksFromGloudSim(tr)
	}
	return d, nil
}

// Run performs every experiment and writes its outputs to cfg.Dir: one CSV
// per table or figure, the figures as PNG, and comparisons.csv.
func Run(ctx context.Context, cfg repro.Config) error {
	st := settingsFor(cfg.Quick)
	d, err := load()
	if err != nil {
		return err
	}
	step := func(name string, fn func(context.Context, repro.Config, settings, *data) ([]repro.Comparison, error)) repro.Step {
		return repro.Step{Name: name, Run: func(ctx context.Context) ([]repro.Comparison, error) { return fn(ctx, cfg, st, d) }}
	}
	return repro.RunSteps(ctx, cfg, []repro.Step{
		step("worked examples (Sections 4.1, 4.2.2)", examples),
		step("Table 7", table7),
		step("Table 6", table6),
		step("Fig. 9 and Fig. 10", fig9and10),
		step("Fig. 5 and LANL fits", fits),
		step("what-if study", whatIf),
	})
}

func cmp(exp, q string, paper, ours float64, note string) repro.Comparison {
	return repro.Comparison{Experiment: exp, Quantity: q, Paper: paper, Ours: ours, Note: note}
}
