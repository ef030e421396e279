package repro

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Reproduction is one `ckpt repro NAME`: the paper it reproduces, how it
// runs, and which of a Request's options apply to it.
type Reproduction struct {
	Paper string
	Run   func(ctx context.Context, cfg Config) error
	// Seeded: it draws random numbers from a base seed that Request.Seed
	// replaces. Data: it reads the data folder (Request.Data).
	Seeded, Data bool
	// Accountings are the names Request.Accounting takes (nil: only the
	// default).
	Accountings []string
	// Tolerance is that of its comparison rows in the report.
	Tolerance report.Tolerance
}

// Catalog maps each reproduction's name to it.
type Catalog map[string]Reproduction

// Names are the catalog's names in order.
func (c Catalog) Names() []string { return slices.Sorted(maps.Keys(c)) }

// ReportOptions describe every reproduction, and the slurm one, to the
// report writer.
func (c Catalog) ReportOptions() report.Options {
	opt := report.Options{Papers: map[string]report.Paper{}}
	for name, r := range c {
		text, _ := Findings(name) // repro/NAME holds its FINDINGS.md
		opt.Papers[name] = report.Paper{Title: r.Paper, Findings: text, Tolerance: r.Tolerance}
	}
	// `ckpt repro slurm` needs a cluster, so "all" does not run it, but the
	// report shows its folder when there is one.
	text, _ := Findings("slurm")
	opt.Papers["slurm"] = report.Paper{Title: "Reservation and Checkpointing Strategies for Stochastic Jobs (IPDPS 2020), Section 5 on Slurm",
		Findings: text, Tolerance: report.DefaultTolerance}
	return opt
}

// Request runs one reproduction of a Catalog into Out/Name, or every one
// ("all") in name order and then Out/report.html.
type Request struct {
	Name    string
	Out     string
	Quick   bool
	Workers int
	// Seed and Data, when non-nil, replace the base seed and the data
	// folder; under "all" they reach only the reproductions they apply to.
	Seed       *uint64
	Data       *string
	Accounting string
	Items      Items
	// JSON prints the comparison rows as JSON on Stdout, and the tables
	// on Progress instead.
	JSON             bool
	Stdout, Progress io.Writer
}

// Validate checks the request before any reproduction runs, naming the
// flag at fault.
func (c Catalog) Validate(r Request) error {
	if _, ok := c[r.Name]; !ok && r.Name != "all" {
		return usage.Errorf("unknown reproduction %q (available: %s, slurm, all)", r.Name, strings.Join(c.Names(), ", "))
	}
	if r.Workers < 0 {
		return usage.Errorf("--workers: %d must be >= 0", r.Workers)
	}
	if err := r.Items.Validate(); err != nil {
		return err
	}
	if r.Data != nil && *r.Data == "" {
		return usage.Errorf("--data: empty folder name")
	}
	if r.Data != nil {
		_, err := datadir.Find(*r.Data)
		return usage.Wrap(err)
	}
	return nil
}

// Run validates and runs the request, progress on r.Progress.
func (c Catalog) Run(ctx context.Context, r Request) error {
	if err := c.Validate(r); err != nil {
		return err
	}
	if r.Name != "all" {
		return c.runOne(ctx, r.Name, r, false)
	}
	for _, name := range c.Names() {
		if err := c.runOne(ctx, name, r, true); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	out := filepath.Join(r.Out, "report.html")
	if _, err := report.WriteFile(r.Out, out, c.ReportOptions()); err != nil {
		return err
	}
	fmt.Fprintf(r.Progress, "report: %s\n", out)
	return nil
}

// config is the Config of reproduction name, refusing an option that does
// not apply to it (unless all: then it is not passed).
func (c Catalog) config(name string, r Request, all bool) (Config, error) {
	rep := c[name]
	cfg := Config{Dir: filepath.Join(r.Out, name), Quick: r.Quick, Workers: r.Workers, Log: r.Stdout, Progress: r.Progress}
	if r.JSON {
		cfg.Log = r.Progress // the tables; stdout carries the JSON result
	}
	if r.Seed != nil && (rep.Seeded || !all) {
		if !rep.Seeded {
			return cfg, usage.Errorf("--seed: the %s reproduction draws no random numbers", name)
		}
		cfg.Seed = r.Seed
	}
	if r.Data != nil && (rep.Data || !all) {
		if !rep.Data {
			return cfg, usage.Errorf("--data: the %s reproduction reads no data", name)
		}
		cfg.Data = *r.Data
	}
	if r.Accounting != "" {
		switch {
		case rep.Accountings == nil:
			return cfg, usage.Errorf("--accounting: the %s reproduction has only its default accounting", name)
		case !slices.Contains(rep.Accountings, r.Accounting):
			return cfg, usage.Errorf("--accounting %q: the %s reproduction offers %s", r.Accounting, name, strings.Join(rep.Accountings, ", "))
		}
		cfg.Accounting = r.Accounting
	}
	return cfg, nil
}

// runOne runs reproduction name into Out/name.
func (c Catalog) runOne(ctx context.Context, name string, r Request, all bool) error {
	cfg, err := c.config(name, r, all)
	if err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(r.Progress, "reproducing %s into %s\n", c[name].Paper, cfg.Dir)
	if err := r.Items.Run(ctx, cfg, c[name].Run, r.Progress); err != nil {
		return err
	}
	fmt.Fprintf(r.Progress, "done in %s; outputs in %s\n", time.Since(start).Round(time.Millisecond), cfg.Dir)
	if !r.JSON {
		return nil
	}
	rows, err := ReadComparisons(cfg.Dir)
	if err != nil {
		return err
	}
	return output.WriteJSON(r.Stdout, rows)
}
