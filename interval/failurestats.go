package interval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// StatsRequest is the question `ckpt failures` answers: the failure
// statistics of the field's failure data, and E(Y) for a task.
type StatsRequest struct {
	// Path is a Failure Trace Archive data set (a folder holding
	// *event_trace.tab[.gz], or that file) or a Google cluster trace v2
	// task_events table (.csv, .csv.gz).
	Path string `json:"path"`
	// Format is "fta" or "google"; "": fta for a folder or a file named
	// *event_trace*, google otherwise.
	Format string `json:"format,omitempty"`
	// Task is the length in seconds of a task whose E(Y) to compute (FTA
	// only), >= 0, on the named Nodes or on On typical nodes; 0: none.
	Task  float64  `json:"task_s,omitempty"`
	Nodes []string `json:"nodes,omitempty"`
	On    int      `json:"on,omitempty"`
	// Seed drives the FTA reservoir sampling of the inter-failure times.
	Seed uint64 `json:"seed"`
}

// format is the request's format, guessed from the path when not given.
func (r StatsRequest) format() string {
	if r.Format != "" {
		return r.Format
	}
	if st, err := os.Stat(r.Path); err == nil && st.IsDir() || strings.Contains(filepath.Base(r.Path), "event_trace") {
		return "fta"
	}
	return "google"
}

// Validate checks the request; the error names the field.
func (r StatsRequest) Validate() error {
	format, task := r.format(), r.Task != 0 || r.Nodes != nil || r.On != 0
	switch {
	case r.Path == "":
		return usage.Fieldf("path", "give an FTA data set or a Google task_events table")
	case format != "fta" && format != "google":
		return usage.Fieldf("format", "%q: want fta or google", format)
	case format == "google" && task:
		field := "on" // the first given of task, nodes and on
		if r.Task != 0 {
			field = "task_s"
		} else if r.Nodes != nil {
			field = "nodes"
		}
		return usage.Fieldf(field, "task, nodes and on apply to FTA traces only")
	case !(r.Task >= 0) || r.Task > MaxDuration:
		return usage.Fieldf("task_s", "must be >= 0 and at most %.0e s, got %v", MaxDuration, r.Task)
	case r.On < 0:
		return usage.Fieldf("on", "must be >= 1, got %d", r.On)
	case task && r.Nodes != nil && r.On != 0:
		return usage.Fieldf("on", "%d and nodes %v both given: give the task's nodes one way", r.On, r.Nodes)
	case task && r.Task == 0:
		return usage.Fieldf("task_s", "required with nodes or on (the task length E(Y) is computed for)")
	case task && r.Nodes == nil && r.On == 0:
		return usage.Fieldf("task_s", "%v s given without the task's nodes: give nodes or on", r.Task)
	}
	return nil
}

// StatsReport is the answer: the statistics of an FTA data set (FTA) or
// of Google task events (Google, one row per priority). Its JSON is the
// FTA report, or the Google rows.
type StatsReport struct {
	FTA    *FTAReport
	Google []trace.GooglePriorityStats
}

// FTAReport is the JSON of an FTA estimate: the statistics (without the
// per-node rows), the laws fitted to the inter-failure times and E(Y).
type FTAReport struct {
	Source   string         `json:"source"`
	Stats    trace.FTAStats `json:"stats"`
	Fits     []FTAFit       `json:"fits"`
	Task     float64        `json:"task_s,omitempty"`
	On       string         `json:"task_nodes,omitempty"` // the nodes of Task, as the text says them
	Expected *output.Number `json:"expected_failures,omitempty"`
}

// FTAFit is one fitted law.
type FTAFit struct {
	Family string        `json:"family"`
	Law    string        `json:"law"`
	AIC    output.Number `json:"aic"`
}

// MarshalJSON writes the FTA report without its per-node rows (too long
// for a report), or the Google rows.
func (r StatsReport) MarshalJSON() ([]byte, error) {
	if r.FTA == nil {
		return json.Marshal(r.Google)
	}
	f := *r.FTA
	f.Stats.Nodes = nil
	return json.Marshal(f)
}

// RunStats answers the request, reading the file once. Every error caused by
// the request or the file is a usage error.
func RunStats(ctx context.Context, r StatsRequest) (*StatsReport, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if r.format() == "google" {
		g, err := ReadGoogle(r.Path)
		if err != nil {
			return nil, err
		}
		if len(g) == 0 {
			return nil, usage.Fieldf("path", "%s: no task scheduled in the events", r.Path)
		}
		return &StatsReport{Google: g}, ctx.Err()
	}
	path := r.Path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if path, err = trace.FTAEventTrace(path); err != nil {
			return nil, usage.Wrap(err)
		}
	}
	s, err := ReadFTA(path, r.Seed)
	if err != nil {
		return nil, err
	}
	if s.Events == 0 {
		return nil, usage.Fieldf("path", "%s: no event in the trace", path)
	}
	rep := &FTAReport{Source: filepath.Base(path), Stats: s}
	for _, c := range FitFTA(s) {
		if c.Dist != nil {
			rep.Fits = append(rep.Fits, FTAFit{c.Family, c.Dist.String(), output.Number(c.AIC)})
		}
	}
	if r.Task != 0 {
		rep.Task = r.Task
		ey := s.ExpectedFailuresOn(r.Task, r.On)
		rep.On = fmt.Sprintf("%d typical nodes", r.On)
		if r.Nodes != nil {
			if err := checkDistinctNodes(s, r.Nodes); err != nil {
				return nil, err
			}
			if ey, err = s.ExpectedFailures(r.Task, r.Nodes); err != nil {
				return nil, usage.Fieldf("nodes", "%v", err)
			}
			rep.On = strings.Join(r.Nodes, ",")
		}
		n := output.Number(ey)
		rep.Expected = &n
	}
	return &StatsReport{FTA: rep}, ctx.Err()
}

// WriteText writes the report as `ckpt failures` prints it.
func (r *StatsReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	if r.FTA == nil {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "priority\ttasks\tfailures\tMNOF\tMTBF (s)\tevict\tfail\tkill\tlost\tfinish\t")
		for _, s := range r.Google {
			e := s.Ends
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.4f\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", s.Priority, s.Tasks, s.Failures, s.MNOF, float64(s.MTBF),
				e["evict"], e["fail"], e["kill"], e["lost"], e["finish"])
		}
		tw.Flush()
		return w.Err()
	}
	f := r.FTA
	s := f.Stats
	w.Printf("%s: %d events, %d nodes, %d systems over %.1f days\n", f.Source, s.Events, len(s.Nodes), len(s.Systems), s.Span/86400)
	w.Printf("%d failures: node MTBF %.2f h, platform MTBF %.1f s\n", s.Failures, float64(s.NodeMTBF)/3600, float64(s.MTBF))
	w.Printf("inter-failure law (%d of %d intervals, best AIC first):\n", s.Sampled, s.Intervals)
	for _, ft := range f.Fits {
		w.Printf("  %-12s AIC %.1f  %s\n", ft.Family, float64(ft.AIC), ft.Law)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tnodes\tfailures\tnode MTBF (h)\tMTBF (h)\t")
	for _, sy := range s.Systems {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.2f\t\n", sy.Name, sy.Nodes, sy.Failures, float64(sy.NodeMTBF)/3600, float64(sy.MTBF)/3600)
	}
	tw.Flush()
	if f.Expected != nil {
		w.Printf("E(Y) for a %g s task on %s: %.4g failures\n", f.Task, f.On, float64(*f.Expected))
	}
	return w.Err()
}

// checkDistinctNodes refuses a node named twice in nodes, by the same name
// or id or by its name and its id: each would count its failures again
// (nodes 1,1,1,1 gave four times the E(Y) of node 1). O(len(nodes)·nodes
// of the trace).
func checkDistinctNodes(s trace.FTAStats, nodes []string) error {
	seen := map[int64]string{}
	for _, name := range nodes {
		id, err := strconv.ParseInt(name, 10, 64)
		for _, n := range s.Nodes {
			if n.Name != name && (err != nil || n.ID != id) {
				continue
			}
			if first, ok := seen[n.ID]; ok {
				return usage.Fieldf("nodes", "%s: node %s (id %d) given twice (as %s and %s): a task runs once on each node", strings.Join(nodes, ","), n.Name, n.ID, first, name)
			}
			seen[n.ID] = name
			break
		}
	}
	return nil
}
