package iosim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// The application layer: one Request, Validate and Run per question the
// package answers (a Monte Carlo run, a sweep, Theorem 1's bound, the
// bandwidth a target needs), each Report the JSON schema with its text and
// picture renderers (report.go, render.go, picture.go). Errors caused by
// a request are usage errors (package usage) naming the field by its
// lower-case name, which is also the CLI's flag (span, io-chunk, mtbf).

// Source is where a request's platform comes from, with its overrides.
type Source struct {
	// Config is a YAML or JSON config file (schema: Config), "-" for
	// Stdin; empty: the embedded Platform.
	Config string `json:"config,omitempty"`
	// Stdin is read when Config is "-". A Stdin that is an io.Seeker is
	// read from its start every time, so that Validate and Run can both
	// read it (give a bytes.Reader of standard input).
	Stdin io.Reader `json:"-"`
	// Platform names an embedded platform (Platforms: cielo, prospective;
	// "" is cielo) when Config is empty. Giving both is refused.
	Platform string `json:"platform,omitempty"`
	// Bandwidth, when non-nil, replaces the aggregate file-system
	// bandwidth, in bytes/s: positive and finite (field "bandwidth").
	Bandwidth *float64 `json:"bandwidth_bps,omitempty"`
	// NodeMTBF, when non-nil, replaces the node MTBF, in seconds: positive
	// (+Inf: no failures; field "mtbf").
	NodeMTBF *float64 `json:"node_mtbf_s,omitempty"`
}

// Load reads the config (file, standard input or embedded platform),
// applies the overrides and validates the result. Every error is a usage
// error naming the field or the file.
func (s Source) Load() (Config, error) {
	c, err := s.base()
	if err != nil {
		return c, err
	}
	if b := s.Bandwidth; b != nil {
		if !(*b > 0) || math.IsInf(*b, 0) {
			return c, usage.Fieldf("bandwidth", "%v must be a positive, finite number of bytes/s", *b)
		}
		if m := bandwidthOverflow(*b, c.Platform.Nodes); m != "" {
			return c, usage.Fieldf("bandwidth", "%s", m)
		}
		c = c.WithBandwidth(*b)
	}
	if m := s.NodeMTBF; m != nil {
		if !(*m > 0) {
			return c, usage.Fieldf("mtbf", "%v must be > 0", *m)
		}
		c = c.WithNodeMTBF(*m)
	}
	return c, usage.Wrap(c.Validate())
}

// base is the config file (or standard input) or the embedded platform.
func (s Source) base() (Config, error) {
	if s.Config == "" {
		name := s.Platform
		if name == "" {
			name = "cielo"
		}
		mk, ok := Platforms[name]
		if !ok {
			return Config{}, usage.Fieldf("platform", "unknown %q (cielo, prospective)", name)
		}
		return mk(), nil
	}
	if s.Platform != "" {
		return Config{}, usage.Fieldf("platform", "%q and config %s: give one of them", s.Platform, s.Config)
	}
	r, name := s.Stdin, "(stdin)"
	if s.Config != "-" {
		fh, err := usage.Open(s.Config)
		if err != nil {
			return Config{}, err
		}
		defer fh.Close()
		r, name = fh, s.Config
	}
	if r == nil {
		return Config{}, usage.Fieldf("config", "- needs a standard input")
	}
	if sk, ok := r.(io.Seeker); ok && s.Config == "-" {
		if _, err := sk.Seek(0, io.SeekStart); err != nil {
			return Config{}, fmt.Errorf("config (stdin): %w", err)
		}
	}
	p, err := LoadNamed(r, name)
	if err != nil {
		return Config{}, usage.Wrap(err)
	}
	return *p, nil
}

// Simulation is the part of a request shared by the Monte Carlo questions
// (RunTrials, RunSweep, RunBandwidthFor): the platform, the strategies and how
// each trial runs. There are no defaults: every number must be given
// (the CLI's flags carry the defaults).
type Simulation struct {
	Source
	// Strategies are registered names (Names); *-fixed strategies
	// checkpoint every FixedPeriod seconds.
	Strategies []string `json:"strategies"`
	// Seeds is the number of Monte Carlo trials (≥ 1); Seed the base seed
	// of every random stream.
	Seeds int    `json:"seeds"`
	Seed  uint64 `json:"seed"`
	// Span is the simulated time per trial and Skip the time excluded
	// from the metrics at each end, in seconds: the window Span − 2 Skip
	// must be at least MinWindow.
	Span        float64 `json:"span_s"`
	Skip        float64 `json:"skip_s"`
	FixedPeriod float64 `json:"fixed_period_s"`
	// IOChunk is the compute time between two regular I/O transfers, in
	// seconds (field "io-chunk").
	IOChunk float64 `json:"io_chunk_s"`
	// Workers is the number of parallel workers (0: one per CPU).
	Workers    int  `json:"workers"`
	NoFailures bool `json:"no_failures"`
	// MaxEvents aborts a run that fires more events (≥ 1).
	MaxEvents uint64 `json:"max_events"`
	// ComputeFullPeriod: see Options.ComputeFullPeriod.
	ComputeFullPeriod bool `json:"compute_full_period"`
	// Scheduler, Accounting and AuthorsModel are read by ParseScheduler,
	// ParseAccounting and ParseAuthorsModel ("" is each one's default).
	Scheduler    string `json:"scheduler"`
	Accounting   string `json:"accounting"`
	AuthorsModel string `json:"authors_model,omitempty"`
	// VirtualTime: see Options.VirtualTime.
	VirtualTime bool `json:"virtual_time,omitempty"`
}

// MinWindow is the shortest measured window (Span − 2 Skip) a simulation
// accepts, in seconds: a shorter one holds no event to measure.
const MinWindow = 1.0

// resolution is the shortest duration a simulation of span s can tell
// from zero, with a margin of 2^8 ulps: a compute chunk or a transfer
// shorter than this does not move the clock, and the run would spin to
// MaxEvents at one instant.
func resolution(span float64) float64 { return span * 0x1p-44 }

// checkResolution refuses a platform or an I/O chunk whose durations the
// clock cannot represent over span (see resolution); the error is a
// usage error naming io-chunk or bandwidth. O(K).
func (c *Config) checkResolution(span, ioChunk float64) error {
	res := resolution(span)
	if !(ioChunk >= res) {
		return usage.Fieldf("io-chunk", "%v s is below the clock's resolution over a span of %v s (%.3g s)", ioChunk, span, res)
	}
	beta := float64(c.Platform.Bandwidth)
	for k, cl := range c.Classes {
		mem := c.JobMemory(k)
		chunk := cl.RegularIO * math.Min(ioChunk, 0.8*float64(cl.Walltime)) / (1.2 * float64(cl.Walltime))
		for _, v := range []float64{cl.Input, cl.Output, cl.Checkpoint, chunk} {
			if d := v * mem / beta; v > 0 && !(d >= res) {
				return usage.Fieldf("bandwidth", "%v B/s moves class %s's transfers in %.3g s, below the clock's resolution over a span of %v s (%.3g s); lower the bandwidth or shorten the span",
					beta, cl.Name, d, span, res)
			}
		}
	}
	return nil
}

// Resolve validates the simulation and returns the platform, the options
// of every trial and the strategies. Every error is a usage error naming
// the field.
func (s Simulation) Resolve() (Config, Options, []Strategy, error) {
	opt, err := s.options()
	if err != nil {
		return Config{}, opt, nil, err
	}
	if s.NoFailures && s.NodeMTBF != nil {
		return Config{}, opt, nil, usage.Fieldf("mtbf", "%v s has no effect with no-failures: give one or the other", *s.NodeMTBF)
	}
	c, err := s.Load()
	if err != nil {
		return c, opt, nil, err
	}
	if err := c.checkResolution(opt.Span, opt.IOChunk); err != nil {
		return c, opt, nil, err
	}
	if err := s.checkFixedPeriod(opt.Span); err != nil {
		return c, opt, nil, err
	}
	if err := c.checkJobCount(opt.Span); err != nil {
		return c, opt, nil, err
	}
	if !opt.NoFailures {
		if err := c.CheckProgress(); err != nil {
			return c, opt, nil, usage.Wrap(err)
		}
	}
	sts, err := LookupList(strings.Join(s.Strategies, ","), s.FixedPeriod)
	if err != nil {
		return c, opt, nil, usage.Fieldf("strategies", "%v", err)
	}
	return c, opt, sts, nil
}

// options checks the numbers and reads the names of s into Options.
func (s Simulation) options() (Options, error) {
	o := Options{Seed: s.Seed, NoFailures: s.NoFailures, ComputeFullPeriod: s.ComputeFullPeriod, MaxEvents: s.MaxEvents, VirtualTime: s.VirtualTime,
		Span: s.Span, Skip: s.Skip, IOChunk: s.IOChunk}
	finitePos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case s.Seeds < 1 || s.Seeds > MaxSeeds:
		return o, usage.Fieldf("seeds", "must be ≥ 1 and at most %d, got %d", MaxSeeds, s.Seeds)
	case s.Workers < 0:
		return o, usage.Fieldf("workers", "%d must be >= 0", s.Workers)
	case s.MaxEvents < 1:
		return o, usage.Fieldf("max-events", "must be ≥ 1")
	case !(s.Skip >= 0):
		return o, usage.Fieldf("skip", "%v must be >= 0", s.Skip)
	case !finitePos(s.Span) || !(s.Span > 2*s.Skip):
		return o, usage.Fieldf("span", "%v s must be finite and exceed twice skip (%v s)", s.Span, s.Skip)
	case !(s.Span-2*s.Skip >= MinWindow):
		return o, usage.Fieldf("span", "%v s leaves a window of %v s after skip; at least %v s is measured", s.Span, s.Span-2*s.Skip, MinWindow)
	case !finitePos(s.FixedPeriod):
		return o, usage.Fieldf("fixed-period", "%v must be positive and finite", s.FixedPeriod)
	case !finitePos(s.IOChunk):
		return o, usage.Fieldf("io-chunk", "%v must be positive and finite", s.IOChunk)
	}
	var err error
	if s.Scheduler != "" {
		if o.Scheduler, err = ParseScheduler(s.Scheduler); err != nil {
			return o, usage.Fieldf("scheduler", "%v", err)
		}
	}
	if s.Accounting != "" {
		if o.Accounting, err = ParseAccounting(s.Accounting); err != nil {
			return o, usage.Fieldf("accounting", "%v", err)
		}
	}
	if o.Authors, err = ParseAuthorsModel(s.AuthorsModel); err != nil {
		return o, usage.Fieldf("authors-model", "%v", err)
	}
	return o, nil
}

// runnerOptions are the experiment runner's options of s.
func (s Simulation) runnerOptions(label string, shard runner.Shard) runner.Options {
	return runner.Options{Seed: s.Seed, Workers: s.Workers, Shard: shard, Label: label}
}

// simError makes a refused platform a usage error (a run that hits
// MaxEvents already says so).
func simError(err error) error {
	var np *NoProgressError
	if errors.As(err, &np) {
		return usage.Wrap(err)
	}
	return err
}

// RunRequest is `ckpt iosim run`: the Monte Carlo waste of each strategy
// on one platform.
type RunRequest struct {
	Simulation
	// SWF, when set, is a file to which the job list of the first trial
	// is written as an SWF v2.2 log (WriteWorkloadSWF).
	SWF string `json:"swf,omitempty"`
	// Timeline, when set, is a window of the first trial (ParseWindow,
	// from the end of Skip) whose file-system use the report keeps for
	// its pictures (RunReport.Timelines).
	Timeline string `json:"timeline,omitempty"`
}

// Validate checks every field of r without simulating.
func (r RunRequest) Validate() error {
	_, opt, _, err := r.Resolve()
	if err != nil {
		return err
	}
	_, _, err = r.window(opt)
	return err
}

// window is r's timeline window, checked against the runs' end.
func (r RunRequest) window(opt Options) (from, to float64, err error) {
	if r.Timeline == "" {
		return 0, 0, nil
	}
	from, to, err = ParseWindow(r.Timeline, opt.Skip)
	if err != nil {
		return 0, 0, usage.Fieldf("timeline", "%v", err)
	}
	if end := opt.Span - opt.Skip; to > end {
		return 0, 0, usage.Fieldf("timeline", "%q ends after the runs stop (span − skip = %gs)", r.Timeline, end)
	}
	if res := resolution(opt.Span); !(to-from >= res) {
		return 0, 0, usage.Fieldf("timeline", "%q is shorter than the clock's resolution over a span of %v s (%.3g s)", r.Timeline, opt.Span, res)
	}
	return from, to, nil
}

// RunTrials simulates every strategy on Seeds trials of the request's platform
// and summarises them (Report), with the timelines of the first trial
// when r.Timeline is set.
func RunTrials(ctx context.Context, r RunRequest) (RunReport, error) {
	c, opt, sts, err := r.Resolve()
	if err != nil {
		return RunReport{}, err
	}
	from, to, err := r.window(opt)
	if err != nil {
		return RunReport{}, err
	}
	if r.SWF != "" {
		if err := writeFile(r.SWF, "swf", func(w io.Writer) error { return WriteWorkloadSWF(w, &c, opt.Span, r.Seed, 0) }); err != nil {
			return RunReport{}, err
		}
	}
	pts := []SweepPoint{{Param: "bandwidth", Value: float64(c.Platform.Bandwidth), Config: c}}
	rs, err := Sweep(ctx, pts, sts, r.Seeds, opt, r.runnerOptions("iosim run", runner.Shard{}), nil)
	if err != nil {
		return RunReport{}, simError(err)
	}
	rep, err := Report(c, rs, opt)
	if err != nil || r.Timeline == "" {
		return rep, err
	}
	o := opt
	o.Seed = rs[0].Seed // the first trial's job list and failures
	if rep.Timelines, err = Timelines(ctx, &c, sts, o, from, to); err != nil {
		return rep, simError(err)
	}
	return rep, nil
}

// PrintConfig writes the effective config of a request (its platform with
// the overrides) to w as one line of JSON, a template for a config file,
// as `iosim run --print-config` shows it; nothing is written on an error.
func PrintConfig(w io.Writer, s Source) error {
	c, err := s.Load()
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(c)
}

// writeFile writes path through a temporary file renamed on success; an
// error (an output the caller chose that cannot be written) is a usage
// error naming field.
func writeFile(path, field string, write func(io.Writer) error) error {
	if err := output.WriteFile(path, write); err != nil {
		return usage.Fieldf(field, "%s: %v", path, err)
	}
	return nil
}

// WithInput is s with its input as a command line gives it: Platform only
// when platformGiven or without Config (a Config replaces the default
// platform), and stdin read once (Buffered), so that Validate and Run
// both see it.
func (s Simulation) WithInput(stdin io.Reader, platformGiven bool) (Simulation, error) {
	if s.Config != "" && !platformGiven {
		s.Platform = ""
	}
	s.Stdin = stdin
	var err error
	s.Source, err = s.Buffered()
	return s, err
}

// Buffered returns s with its Stdin read whole (at most MaxConfigBytes+1
// bytes) when Config is "-", so that Validate and Run both read it.
func (s Source) Buffered() (Source, error) {
	if s.Config != "-" || s.Stdin == nil {
		return s, nil
	}
	b, err := io.ReadAll(io.LimitReader(s.Stdin, MaxConfigBytes+1))
	s.Stdin = bytes.NewReader(b)
	return s, err
}

// ResolveToken is Resolve for a simulation of one token strategy (ordered-*,
// ordered-nb-*, least-waste*), whose arbiter a coordinator can stand in
// for; another strategy is refused naming the field "strategies".
func (s Simulation) ResolveToken() (Config, Options, Strategy, error) {
	c, opt, sts, err := s.Resolve()
	if err == nil && (len(sts) != 1 || sts[0].Sharing != Token) {
		err = usage.Fieldf("strategies", "%q: want one token strategy (ordered-*, ordered-nb-*, least-waste*)", strings.Join(s.Strategies, ","))
	}
	if err != nil {
		return c, opt, Strategy{}, err
	}
	return c, opt, sts[0], nil
}
