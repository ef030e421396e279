package cloud

import (
	"context"
	"fmt"
	"strings"

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

// data are the real inputs, read once.
type data struct {
	tasks map[string][]interval.TraceTask // by paper name
	// analyser holds the same traces as GloudSim's analyser reads them.
	analyser map[string][]interval.GloudSimAnalyserGroup
	lanl     []trace.LANLFailure // the LANL failure log
	blcrDir  string              // folder of the BLCR cost tables
}

func load(cfg repro.Config) (*data, error) {
	d := &data{tasks: map[string][]interval.TraceTask{}, analyser: map[string][]interval.GloudSimAnalyserGroup{}}
	for _, k := range kinds {
		path, err := cfg.DataPath(trace.GloudSimData(k.file)...)
		if err != nil {
			return nil, err
		}
		tr, err := trace.ReadGloudSimFile(path)
		if err != nil {
			return nil, err
		}
		d.tasks[k.name] = interval.TasksFromGloudSim(tr)
		d.analyser[k.name] = interval.GloudSimAnalyserTrace(tr)
	}
	path, err := cfg.DataPath(trace.LANLData...)
	if err != nil {
		return nil, err
	}
	if d.lanl, err = trace.ReadLANLFile(path); err != nil {
		return nil, err
	}
	if d.blcrDir, err = cfg.DataPath(interval.BLCRDir...); err != nil {
		return nil, err
	}
	return d, nil
}

// Run performs every experiment and writes its outputs to cfg.Dir: one CSV
// per table or figure, the figures as PNG, and comparisons.csv. It is
// Run runs the reproduction under cfg.Accounting: "" or "ours" (the
// default), or "gloudsim", which runs every experiment unchanged and adds
// the authors' analyser's Table 6 and Fig. 9 (gloudsim-table6.csv,
// gloudsim-fig9.csv, gloudsim-fig10.csv, and their rows at the end of
// comparisons.csv, beside the paper's numbers).
func Run(ctx context.Context, cfg repro.Config) error {
	switch cfg.Accounting {
	case "", "ours":
		return run(ctx, cfg, false)
	case "gloudsim":
		return run(ctx, cfg, true)
	}
	return fmt.Errorf("cloud: unknown accounting %q (want %s)", cfg.Accounting, strings.Join(Accountings, " or "))
}

func run(ctx context.Context, cfg repro.Config, gloudsim bool) error {
	st := settingsFor(cfg.Quick)
	d, err := load(cfg)
	if err != nil {
		return err
	}
	step := func(name string, fn func(context.Context, repro.Config, settings, *data) ([]repro.Comparison, error)) repro.Step {
		return repro.Step{Name: name, Run: func(ctx context.Context) ([]repro.Comparison, error) { return fn(ctx, cfg, st, d) }}
	}
	steps := []repro.Step{
		step("worked examples (Sections 4.1, 4.2.2)", examples),
		step("Table 7", table7),
		step("Table 6", table6),
		step("Fig. 9 and Fig. 10", fig9and10),
		step("Fig. 5 and LANL fits", fits),
		step("what-if study", whatIf),
	}
	if gloudsim {
		steps = append(steps, step("Table 6 and Fig. 9 under GloudSim's analyser (--accounting gloudsim)", gloudsimStep))
	}
	return repro.RunSteps(ctx, cfg, steps)
}

func cmp(exp, q string, paper, ours float64, note string) repro.Comparison {
	return repro.Comparison{Experiment: exp, Quantity: q, Paper: paper, Ours: ours, Note: note}
}
