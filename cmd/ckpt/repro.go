package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/repro"
	reprocapacity "github.com/ckpt-hpc/ckpt/repro/capacity"
	reprocloud "github.com/ckpt-hpc/ckpt/repro/cloud"
	reprocoop "github.com/ckpt-hpc/ckpt/repro/coop"
	reproprofiles "github.com/ckpt-hpc/ckpt/repro/profiles"
	reproreservation "github.com/ckpt-hpc/ckpt/repro/reservation"
)

// reproduction is one `ckpt repro NAME`; seeded ones draw random numbers
// from a base seed that --seed replaces.
type reproduction struct {
	paper  string
	run    func(ctx context.Context, cfg repro.Config) error
	seeded bool
	data   bool // reads the data folder (--data)
	// accountings are the names --accounting takes (nil: only the default).
	accountings []string
	tol         report.Tolerance // of its comparison rows in `ckpt report`
}

// reproductions maps `ckpt repro NAME` to the paper it reproduces.
//
// The tolerances of `ckpt report` (|ours − paper| ≤ max(Abs, Rel·|paper|)):
// 5 % for the reservation paper, whose numbers are deterministic numerical
// results that we recompute exactly; 10 % for the others, whose numbers
// are means of simulations or read off figures.
var reproductions = map[string]reproduction{
	"reservation": {"Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020)", reproreservation.Run, false, false, nil, report.Tolerance{Rel: 0.05, Abs: 1e-9}},
	"profiles":    {"Profiles of upcoming HPC Applications and their Impact on Reservation Strategies (IEEE TPDS 2021)", reproprofiles.Run, true, true, nil, report.DefaultTolerance},
	"cloud":       {"Optimization of Cloud Task Processing with Checkpoint-Restart Mechanism (SC 2013)", reprocloud.Run, true, true, reprocloud.Accountings, report.DefaultTolerance},
	"coop":        {"Optimal Cooperative Checkpointing for Shared HPC Platforms (APDCM 2018)", reprocoop.Run, true, false, reprocoop.Accountings, report.DefaultTolerance},
	"capacity":    {"Scheduling Jobs Under a Variable Number of Processors (Inria RR-9582, 2025)", reprocapacity.Run, true, true, nil, report.DefaultTolerance},
}

// reportOptions describe every reproduction to the report writer.
func reportOptions() report.Options {
	opt := report.Options{Papers: map[string]report.Paper{}}
	for name, r := range reproductions {
		text, _ := repro.Findings(name) // repro/NAME holds its FINDINGS.md
		opt.Papers[name] = report.Paper{Title: r.paper, Findings: text, Tolerance: r.tol}
	}
	// `ckpt repro slurm` needs a cluster, so `repro all` does not run it,
	// but the report shows its folder when there is one.
	text, _ := repro.Findings("slurm")
	opt.Papers["slurm"] = report.Paper{Title: "Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020), Section 5 on Slurm",
		Findings: text, Tolerance: report.DefaultTolerance}
	return opt
}

// reproFlags are the flags of `ckpt repro`.
type reproFlags struct {
	out        string
	quick      bool
	workers    int
	seed       uint64
	accounting string
	data       string
	json       bool
	items      repro.Items
	all        bool // running `repro all`: --seed and --data reach the ones they apply to
	slurm      slurmReproFlags
}

func newReproCmd() *cobra.Command {
	var f reproFlags
	names := make([]string, 0, len(reproductions))
	for n := range reproductions {
		names = append(names, n)
	}
	sort.Strings(names)
	cmd := &cobra.Command{
		Use:   "repro NAME|all",
		Short: "Reproduce a paper's tables and figures (CSV + PNG/SVG, the paper's numbers beside ours)",
		Long: "Reproduce the experiments of one of the papers that define ckpt. Available: " + strings.Join(names, ", ") + `,
and slurm (Section 5 of the reservation paper on the Slurm cluster that
answers sinfo; not part of all: it submits real jobs).
Outputs go to --out/NAME: one CSV per table or figure, the figures as PNG and
SVG, and comparisons.csv with the paper's numbers beside ours. The comparison
tables are printed on stdout, progress on stderr. --quick shrinks every
experiment to a smoke test. Each seeded reproduction has its own base
seed, the one its published outputs were made with; --seed replaces it.
cloud, capacity and profiles read the shared data folder: --data DIR, else
$CKPT_DATA, else ../shared/data beside the checkout.
Ctrl-C stops a reproduction, leaving whole rows in its CSV files.
"all" runs every reproduction in name order (--seed reaches the seeded
ones, --data those that read data) and writes --out/report.html, as
"ckpt report" does.`,
		Example: `  ckpt repro reservation --quick
  ckpt repro all --quick --out results
  ckpt repro coop --out results --workers 2 --seed 7`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return dispatchRepro(cmd, args[0], names, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "repro-out", "output folder")
	fl.BoolVar(&f.quick, "quick", false, "small smoke-test version of every experiment")
	addWorkersFlag(fl, &f.workers)
	fl.Uint64Var(&f.seed, "seed", 0, "base seed of every random stream (default: the reproduction's own)")
	fl.StringVar(&f.data, "data", "", "data folder of the reproductions that read data: cloud, capacity, profiles (default: $CKPT_DATA, else ../shared/data beside the checkout)")
	addReproItemFlags(fl, &f.items)
	addJSONFlag(fl, &f.json)
	addSlurmReproFlags(fl, &f.slurm)
	addResummarizeFlag(fl, &f.slurm)
	cmd.AddCommand(newStandinCmd())
	fl.StringVar(&f.accounting, "accounting", "", "how results are booked, where a reproduction offers several (cloud: ours|gloudsim, the authors' analyser)")
	return cmd
}

// dispatchRepro runs `ckpt repro NAME` (slurm, all or one of names) after
// checking the flags that apply to every reproduction.
func dispatchRepro(cmd *cobra.Command, name string, names []string, f reproFlags) error {
	r, ok := reproductions[name]
	if name == "slurm" {
		if cmd.Flags().Changed("data") {
			return usagef("--data: the slurm reproduction reads no data")
		}
		return runSlurmRepro(cmd, f)
	}
	if !ok && name != "all" {
		return usagef("unknown reproduction %q (available: %s, slurm, all)", name, strings.Join(names, ", "))
	}
	if err := checkWorkers(f.workers); err != nil {
		return err
	}
	if err := f.items.Validate(); err != nil {
		return err
	}
	if err := checkReproData(cmd, f.data); err != nil {
		return err
	}
	if name == "all" {
		return runAll(cmd, names, f)
	}
	return runRepro(cmd, name, r, f)
}

// runRepro runs reproduction r into --out/name, logging to the command's
// stdout and progress to its stderr.
func runRepro(cmd *cobra.Command, name string, r reproduction, f reproFlags) error {
	stderr := cmd.ErrOrStderr()
	cfg := repro.Config{Dir: filepath.Join(f.out, name), Quick: f.quick, Workers: f.workers,
		Log: cmd.OutOrStdout(), Progress: stderr}
	if f.json {
		cfg.Log = stderr // the tables; stdout carries the JSON result
	}
	if cmd.Flags().Changed("seed") && (r.seeded || !f.all) {
		if !r.seeded {
			return usagef("--seed: the %s reproduction draws no random numbers", name)
		}
		cfg.Seed = &f.seed
	}
	if cmd.Flags().Changed("data") && (r.data || !f.all) {
		if !r.data {
			return usagef("--data: the %s reproduction reads no data", name)
		}
		cfg.Data = f.data
	}
	if f.accounting != "" {
		if !slices.Contains(r.accountings, f.accounting) {
			if r.accountings == nil {
				return usagef("--accounting: the %s reproduction has only its default accounting", name)
			}
			return usagef("--accounting %q: the %s reproduction offers %s", f.accounting, name, strings.Join(r.accountings, ", "))
		}
		cfg.Accounting = f.accounting
	}
	start := time.Now()
	fmt.Fprintf(stderr, "reproducing %s into %s\n", r.paper, cfg.Dir)
	if err := f.items.Run(cmd.Context(), cfg, r.run, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "done in %s; outputs in %s\n", time.Since(start).Round(time.Millisecond), cfg.Dir)
	if f.json {
		rows, err := repro.ReadComparisons(cfg.Dir)
		if err != nil {
			return err
		}
		return writeJSON(cmd.OutOrStdout(), rows)
	}
	return nil
}

// checkReproData refuses a --data that is not a folder, before any
// reproduction runs.
func checkReproData(cmd *cobra.Command, data string) error {
	if !cmd.Flags().Changed("data") {
		return nil
	}
	if data == "" {
		return usagef("--data: empty folder name")
	}
	if _, err := datadir.Find(data); err != nil {
		return usage(err)
	}
	return nil
}

// runAll runs every reproduction into --out/NAME, then writes
// --out/report.html.
func runAll(cmd *cobra.Command, names []string, f reproFlags) error {
	f.all = true
	for _, name := range names {
		if err := runRepro(cmd, name, reproductions[name], f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	out := filepath.Join(f.out, "report.html")
	if err := writeReport(f.out, out); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "report: %s\n", out)
	return nil
}
