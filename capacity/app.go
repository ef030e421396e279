package capacity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// The application layer: one Request, Validate and Run per question the
// package answers (decide one section, simulate, sweep, export an
// instance, score a Batsim schedule), each report with its text renderer
// (render.go). Errors caused by a request are usage errors (package usage)
// naming the field by its lower-case name, which is also the CLI's flag.
// Times are in the model's time unit throughout (seconds unless a state
// file or a finite workload says otherwise), hence no unit suffix.

// DecideRequest is `ckpt capacity decide`: plan the current section for a
// resource manager.
type DecideRequest struct {
	// State is the JSON state file (ReadState), "-" for Stdin.
	State string    `json:"state"`
	Stdin io.Reader `json:"-"`
	// Strategy is an algorithm spec (New: dp-bic:15, greedy-goodput, ...).
	Strategy string `json:"strategy"`
}

// Validate checks the fields that need no file.
func (r DecideRequest) Validate() error {
	if r.State == "" {
		return usage.Fieldf("state", "is required")
	}
	if _, err := New(r.Strategy); err != nil {
		return usage.Fieldf("strategy", "%v", err)
	}
	return nil
}

// RunDecide reads the state and plans its section (Decide).
func RunDecide(_ context.Context, r DecideRequest) (*Decision, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	st, err := r.readState()
	if err != nil {
		return nil, usage.Wrap(err)
	}
	return Decide(st, r.Strategy)
}

func (r DecideRequest) readState() (*State, error) {
	if r.State == "-" {
		if r.Stdin == nil {
			return nil, usage.Fieldf("state", "- needs a standard input")
		}
		return ReadState(r.Stdin, "stdin")
	}
	f, err := usage.Open(r.State)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadState(f, r.State)
}

// Setup is the part of the simulate, sweep and export requests that
// draws instances (Section 6.1): the workloads, the parameters, the
// strategies.
type Setup struct {
	// Workloads are job logs (SWF, Batsim JSON, CQSim .rst) or "uniform".
	Workloads []string `json:"workloads"`
	Params    Params   `json:"params"`
	// Strategies are algorithm specs (New).
	Strategies []string `json:"strategies"`
	// Release makes the jobs finite with release dates by this method
	// (ParseRelease; "" for infinite jobs; field "finite").
	Release string `json:"finite,omitempty"`
	Seed    uint64 `json:"seed"`
	// Workers is the number of parallel workers (0: one per CPU).
	Workers int `json:"workers"`
	// ProgressTo receives the progress bar (nil: standard error).
	ProgressTo io.Writer `json:"-"`
}

// paramFields names Params' fields (ParamError.Param) as requests do.
var paramFields = map[string]string{"sections": "sections", "pmax": "p-max", "pmin": "p-min",
	"delta": "delta", "load": "load", "avgT": "avg-t", "cmin": "c-min", "cmax": "c-max"}

// paramError is err as a usage error naming the parameter's field.
func paramError(err error) error {
	var pe *ParamError
	if errors.As(err, &pe) && paramFields[pe.Param] != "" {
		return usage.Fieldf(paramFields[pe.Param], "%s must be %s", formatValue(pe.Value), pe.Want)
	}
	return usage.Wrap(err)
}

// Experiment validates the setup and loads its workloads.
func (s Setup) Experiment() (Experiment, error) {
	var e Experiment
	if err := s.Params.Validate(); err != nil {
		return e, paramError(err)
	}
	if s.Workers < 0 {
		return e, usage.Fieldf("workers", "%d must be >= 0", s.Workers)
	}
	e.Params = s.Params
	var err error
	if e.Strategies, err = ParseList(strings.Join(s.Strategies, ",")); err != nil {
		return e, usage.Fieldf("strategies", "%v", err)
	}
	if e.Release, err = ParseRelease(s.Release); err != nil {
		return e, usage.Fieldf("finite", "%v", err)
	}
	if e.Workloads, err = LoadWorkloads(strings.Join(s.Workloads, ","), s.Params.Platform().PMin); err != nil {
		return e, usage.Wrap(err)
	}
	return e, nil
}

// points lists e's sweep points; a refusal (a workload without run times
// for finite jobs, a bad value of the varied parameter) is a usage error.
func points(e Experiment) ([]SweepPoint, error) {
	pts, err := e.Points()
	var pe *ParamError
	if errors.As(err, &pe) && e.Vary != "" && pe.Param == e.Vary {
		return nil, usage.Fieldf("values", "%v", err)
	}
	if err != nil {
		return nil, paramError(err)
	}
	return pts, nil
}

func (s Setup) runnerOptions(label string, shard runner.Shard) runner.Options {
	return runner.Options{Seed: s.Seed, Workers: s.Workers, Shard: shard, Label: label, ProgressTo: s.ProgressTo}
}

// SimulateRequest is `ckpt capacity simulate`: every strategy on one
// generated instance of every workload.
type SimulateRequest struct {
	Setup
	// Pictures draws the first sections of each strategy's schedule
	// (SimulateReport.Plot, Page).
	Pictures bool `json:"-"`
}

// Validate checks every field (it loads the workloads).
func (r SimulateRequest) Validate() error {
	e, err := r.Experiment()
	if err == nil {
		_, err = points(e)
	}
	return err
}

// SimulateReport is the rows of a simulation; its JSON is the array of
// rows, each the object a --jsonl line holds (rowsJSON).
type SimulateReport struct {
	Rows []SweepRow
	// Panels are the schedule pictures (SimulateRequest.Pictures).
	Panels []plot.Panel
	// results are the rows with their item, point, replicate and seed.
	results []runner.Result[SweepRow]
}

// MarshalJSON writes the rows (rowsJSON).
func (r SimulateReport) MarshalJSON() ([]byte, error) { return rowsJSON(r.results, r.Rows) }

// rowsJSON is the JSON array of the rows, each the object of its JSON line
// (runner.NewJSONL: item, point, rep, seed, then the row's snake_case
// columns; NaN and ±Inf as strings), so that --json and --jsonl agree.
// Rows without their results (a report built by hand) are items 0, 1, ...
func rowsJSON(res []runner.Result[SweepRow], rows []SweepRow) ([]byte, error) {
	if len(res) != len(rows) {
		res = make([]runner.Result[SweepRow], len(rows))
		for i, row := range rows {
			res[i] = runner.Result[SweepRow]{K: i, Point: i, Value: row}
		}
	}
	var buf bytes.Buffer
	sink := runner.NewJSONL[SweepRow](&buf)
	for _, x := range res {
		if err := sink.Put(x); err != nil {
			return nil, err
		}
	}
	if err := sink.Flush(); err != nil {
		return nil, err
	}
	lines := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := append([]byte("["), bytes.ReplaceAll(lines, []byte("\n"), []byte(","))...)
	return append(out, ']'), nil
}

// RunSimulate simulates the request's strategies on one instance of each
// workload.
func RunSimulate(ctx context.Context, r SimulateRequest) (SimulateReport, error) {
	e, err := r.Experiment()
	if err != nil {
		return SimulateReport{}, err
	}
	pts, err := points(e)
	if err != nil {
		return SimulateReport{}, err
	}
	var res []runner.Result[SweepRow]
	if err := RunPoints(ctx, r.runnerOptions("capacity simulate", runner.Shard{}), pts, 1, runner.Collect(&res)); err != nil {
		return SimulateReport{}, err
	}
	rep := SimulateReport{Rows: make([]SweepRow, len(res)), results: res}
	for i, x := range res {
		rep.Rows[i] = x.Value
	}
	if r.Pictures {
		if rep.Panels, err = SchedulePanels(ctx, pts, r.Seed); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// SweepRequest is `ckpt capacity sweep`: one parameter varied over
// instances and strategies, rows into Sink as they finish.
type SweepRequest struct {
	Setup
	// Vary names the varied parameter (SetParam: avgT, pmax, pmin, delta,
	// load, sections) and Values its values.
	Vary   string    `json:"vary"`
	Values []float64 `json:"values"`
	// Instances is the number of instances per point (≥ 1).
	Instances int          `json:"instances"`
	Shard     runner.Shard `json:"-"`
	// Sink receives the rows in item order; Collect keeps them in the
	// report too. One of them is needed.
	Sink    runner.Sink[SweepRow] `json:"-"`
	Collect bool                  `json:"-"`
}

// ParseValues reads a comma-separated list of values of the varied
// parameter (SweepRequest.Values), none empty or repeated; an error is a
// usage error naming the field "values".
func ParseValues(list string) ([]float64, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, usage.Fieldf("values", "%v", err)
	}
	out := make([]float64, len(items))
	for i, s := range items {
		if out[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, usage.Fieldf("values", "bad number %q", s)
		}
	}
	return out, nil
}

// Validate checks every field (it loads the workloads).
func (r SweepRequest) Validate() error {
	_, err := r.points()
	return err
}

func (r SweepRequest) points() ([]SweepPoint, error) {
	if r.Instances < 1 || r.Instances > MaxInstances {
		return nil, usage.Fieldf("instances", "%d must be in [1, %d]", r.Instances, MaxInstances)
	}
	e, err := r.Experiment()
	if err != nil {
		return nil, err
	}
	e.Vary, e.Values = r.Vary, r.Values
	return points(e)
}

// SweepReport holds the rows of a sweep when the request collects them.
type SweepReport struct {
	Rows    []SweepRow
	results []runner.Result[SweepRow]
}

// MarshalJSON writes the rows as the --jsonl lines' objects (rowsJSON).
func (r SweepReport) MarshalJSON() ([]byte, error) { return rowsJSON(r.results, r.Rows) }

// RunSweep simulates Instances instances of every point. Cancelling ctx
// stops every simulation within a section; the sink has then received
// only complete rows, and RunSweep returns ctx.Err().
func RunSweep(ctx context.Context, r SweepRequest) (SweepReport, error) {
	pts, err := r.points()
	if err != nil {
		return SweepReport{}, err
	}
	if r.Sink == nil && !r.Collect {
		return SweepReport{}, usage.Errorf("capacity sweep: no output (give a sink or collect the rows)")
	}
	var res []runner.Result[SweepRow]
	var sinks []runner.Sink[SweepRow]
	if r.Sink != nil {
		sinks = append(sinks, r.Sink)
	}
	if r.Collect {
		sinks = append(sinks, runner.Collect(&res))
	}
	if err := RunPoints(ctx, r.runnerOptions("capacity sweep", r.Shard), pts, r.Instances, runner.Tee(sinks...)); err != nil {
		return SweepReport{}, err
	}
	rep := SweepReport{Rows: make([]SweepRow, 0, len(res)), results: res}
	for _, x := range res {
		rep.Rows = append(rep.Rows, x.Value)
	}
	return rep, nil
}

// ExportRequest is `ckpt capacity export`: one generated instance (of the
// first workload) written for Batsim and as SWF.
type ExportRequest struct {
	Setup
	// Out is the prefix of the files: PREFIX.json, PREFIX_events.jsonl,
	// PREFIX_platform.xml, PREFIX.swf. Its last element must be a name
	// (not a folder, not starting with a dot).
	Out string `json:"out"`
	// Instance is the replicate number (as in a sweep, ≥ 0).
	Instance int `json:"instance"`
}

// Validate checks the fields that need no workload.
func (r ExportRequest) Validate() error {
	base := filepath.Base(r.Out)
	switch {
	case r.Out == "":
		return usage.Fieldf("out", "is required")
	case strings.HasSuffix(r.Out, "/") || strings.HasSuffix(r.Out, string(filepath.Separator)) || base == "." || base == ".." || strings.HasPrefix(base, "."):
		return usage.Fieldf("out", "%q: a prefix of file names (such as %s), not a folder nor a hidden name", r.Out, filepath.Join(r.Out, "inst"))
	case r.Instance < 0:
		return usage.Fieldf("instance", "%d must be >= 0", r.Instance)
	}
	return nil
}

// ExportReport lists the files written.
type ExportReport struct {
	Files []string `json:"files"`
}

// RunExport draws the instance that RunSimulate simulates with the same
// setup and writes its four files, all or none (writeAll).
func RunExport(_ context.Context, r ExportRequest) (ExportReport, error) {
	if err := r.Validate(); err != nil {
		return ExportReport{}, err
	}
	e, err := r.Experiment()
	if err != nil {
		return ExportReport{}, err
	}
	pts, err := points(e)
	if err != nil {
		return ExportReport{}, err
	}
	pt := pts[0]
	in, err := InstanceOf(pt, r.Seed, r.Instance)
	if err != nil {
		return ExportReport{}, err
	}
	wl, evs, err := ExportBatsim(in)
	if err != nil {
		return ExportReport{}, err
	}
	files := []namedWriter{
		{r.Out + ".json", func(w io.Writer) error { return trace.WriteBatsim(w, wl) }},
		{r.Out + "_events.jsonl", func(w io.Writer) error { return trace.WriteBatsimEvents(w, evs) }},
		{r.Out + "_platform.xml", func(w io.Writer) error { return WritePlatformXML(w, in.PMax) }},
		{r.Out + ".swf", func(w io.Writer) error { return WriteInstanceSWF(w, in, pt, r.Seed, r.Instance) }},
	}
	if err := writeAll(files); err != nil {
		return ExportReport{}, err
	}
	var rep ExportReport
	for _, f := range files {
		rep.Files = append(rep.Files, f.name)
	}
	return rep, nil
}

// namedWriter is a file to write: its path and what writes its bytes.
type namedWriter struct {
	name  string
	write func(io.Writer) error
}

// writeAll writes a set of files that belong together (an exported
// instance) all or none: every target is checked first (output.CheckPaths:
// its folder exists, it is not a folder), every file is written through a
// temporary beside it (output.Create), and only when all are written are
// they renamed over their targets (Commit). A failure before the renames
// leaves every target as it was and no temporary file; a rename over a
// regular file in its own folder, checked just before, does not fail in
// practice.
func writeAll(files []namedWriter) error {
	paths := make([]output.Path, len(files))
	for i, f := range files {
		paths[i] = output.Path{Flag: "out", Path: f.name}
	}
	if err := output.CheckPaths(paths...); err != nil {
		return err
	}
	var open []*output.File
	abort := func() {
		for _, o := range open {
			o.Abort("")
		}
	}
	for _, f := range files {
		o, err := output.Create(f.name)
		if err == nil {
			open = append(open, o)
			err = f.write(o)
		}
		if err != nil {
			abort()
			return fmt.Errorf("%s: %w (nothing written)", f.name, err)
		}
	}
	for i, o := range open {
		if err := o.Commit(); err != nil {
			open = open[i+1:]
			abort()
			return err
		}
	}
	return nil
}

// ScoreRequest is `ckpt capacity batsim-score`: ckpt's metrics of a
// Batsim schedule of an exported instance.
type ScoreRequest struct {
	// Workload is the Batsim workload RunExport wrote (PREFIX.json).
	Workload string `json:"workload"`
	// Schedule is Batsim's PREFIX_jobs.csv of its replay.
	Schedule string `json:"schedule"`
}

// Validate checks that both files are named.
func (r ScoreRequest) Validate() error {
	switch {
	case r.Workload == "":
		return usage.Fieldf("workload", "is required")
	case r.Schedule == "":
		return usage.Fieldf("schedule", "is required")
	}
	return nil
}

// RunScore reads the instance and the schedule and measures it
// (BatsimScheduleMetrics).
func RunScore(_ context.Context, r ScoreRequest) (ScheduleMetrics, error) {
	var m ScheduleMetrics
	if err := r.Validate(); err != nil {
		return m, err
	}
	f, err := usage.Open(r.Workload)
	if err != nil {
		return m, err
	}
	defer f.Close()
	wl, err := trace.ReadBatsim(f, filepath.Base(r.Workload))
	if err != nil {
		return m, usage.Wrap(err)
	}
	in, err := ImportBatsim(wl)
	if err != nil {
		return m, usage.Wrap(fmt.Errorf("%s: %v", filepath.Base(r.Workload), err))
	}
	g, err := usage.Open(r.Schedule)
	if err != nil {
		return m, err
	}
	defer g.Close()
	res, err := trace.ReadBatsimJobs(g, filepath.Base(r.Schedule))
	if err != nil {
		return m, usage.Wrap(err)
	}
	return BatsimScheduleMetrics(in, res)
}
