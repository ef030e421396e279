package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/trace"
)

// failuresFlags are the flags of ckpt failures.
type failuresFlags struct {
	format, task, nodes string
	on                  int
	seed                uint64
	json                bool
}

func newFailuresCmd() *cobra.Command {
	var f failuresFlags
	cmd := &cobra.Command{
		Use:   "failures PATH",
		Short: "Failure statistics of a Failure Trace Archive trace or Google task events",
		Long: `Estimate failure statistics from the field's failure data. PATH is either a
Failure Trace Archive data set (a folder holding *event_trace.tab[.gz], or that
file): per-system and per-node MTBF, the inter-failure law fitted to the
available periods that ended in a failure (best AIC first), and with --task the
expected number of failures E(Y) of a task on --nodes (names or ids) or on --on
typical nodes; or a Google cluster trace v2 task_events table (.csv, .csv.gz):
MNOF and MTBF per priority from the tasks' execution segments.`,
		Example: `  ckpt failures ../shared/data/failures --task 1h --on 64
  ckpt failures part-00000-of-00500.csv.gz --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := f.check(args[0])
			if err != nil {
				return err
			}
			if format == "google" {
				return runGoogleFailures(cmd, args[0], f.json)
			}
			return runFTAFailures(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "fta or google (default: fta for a folder or *event_trace*, google otherwise)")
	fl.StringVar(&f.task, "task", "", "task length for E(Y) (a duration: 3600, 1h, 01:00:00)")
	fl.StringVar(&f.nodes, "nodes", "", "comma-separated nodes the task runs on (FTA names or ids)")
	fl.IntVar(&f.on, "on", 0, "or: the number of typical nodes the task runs on")
	addSeedFlag(fl, &f.seed, 1)
	addJSONFlag(fl, &f.json)
	return cmd
}

// check validates the flags and returns the format.
func (f *failuresFlags) check(path string) (string, error) {
	format := f.format
	if format == "" {
		format = "google"
		if st, err := os.Stat(path); err == nil && st.IsDir() || strings.Contains(filepath.Base(path), "event_trace") {
			format = "fta"
		}
	}
	if format != "fta" && format != "google" {
		return "", usagef("--format %q: want fta or google", format)
	}
	if format == "google" && (f.task != "" || f.nodes != "" || f.on != 0) {
		return "", usagef("--task, --nodes and --on apply to FTA traces only")
	}
	if (f.task != "") != (f.nodes != "" || f.on != 0) || f.nodes != "" && f.on != 0 {
		return "", usagef("give --task with either --nodes or --on")
	}
	if f.on < 0 {
		return "", usagef("--on %d: must be >= 1", f.on)
	}
	return format, nil
}

// ftaReport is the JSON of an FTA estimate.
type ftaReport struct {
	Source   string         `json:"source"`
	Stats    trace.FTAStats `json:"stats"`
	Fits     []ftaFit       `json:"fits"`
	Task     float64        `json:"task,omitempty"`
	Expected *output.Number `json:"expected_failures,omitempty"`
}

type ftaFit struct {
	Family string        `json:"family"`
	Law    string        `json:"law"`
	AIC    output.Number `json:"aic"`
}

func runFTAFailures(cmd *cobra.Command, path string, f failuresFlags) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if path, err = trace.FTAEventTrace(path); err != nil {
			return usage(err)
		}
	}
	s, err := interval.ReadFTA(path, f.seed)
	if err != nil {
		return err
	}
	rep := ftaReport{Source: filepath.Base(path), Stats: s}
	for _, c := range interval.FitFTA(s) {
		if c.Dist != nil {
			rep.Fits = append(rep.Fits, ftaFit{c.Family, c.Dist.String(), output.Number(c.AIC)})
		}
	}
	if f.task != "" {
		if rep.Task, err = nonNegDurationFlag("task", f.task); err != nil {
			return err
		}
		ey := s.ExpectedFailuresOn(rep.Task, f.on)
		if f.nodes != "" {
			if ey, err = s.ExpectedFailures(rep.Task, strings.Split(f.nodes, ",")); err != nil {
				return usagef("--nodes: %v", err)
			}
		}
		n := output.Number(ey)
		rep.Expected = &n
	}
	if f.json {
		rep.Stats.Nodes = nil // one row per node: too long for a report
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	return printFTA(cmd.OutOrStdout(), rep, f)
}

func printFTA(out io.Writer, r ftaReport, f failuresFlags) error {
	s := r.Stats
	w := output.NewWriter(out)
	w.Printf("%s: %d events, %d nodes, %d systems over %.1f days\n", r.Source, s.Events, len(s.Nodes), len(s.Systems), s.Span/86400)
	w.Printf("%d failures: node MTBF %.2f h, platform MTBF %.1f s\n", s.Failures, float64(s.NodeMTBF)/3600, float64(s.MTBF))
	w.Printf("inter-failure law (%d of %d intervals, best AIC first):\n", s.Sampled, s.Intervals)
	for _, ft := range r.Fits {
		w.Printf("  %-12s AIC %.1f  %s\n", ft.Family, float64(ft.AIC), ft.Law)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tnodes\tfailures\tnode MTBF (h)\tMTBF (h)\t")
	for _, sy := range s.Systems {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.2f\t\n", sy.Name, sy.Nodes, sy.Failures, float64(sy.NodeMTBF)/3600, float64(sy.MTBF)/3600)
	}
	tw.Flush()
	if r.Expected != nil {
		on := fmt.Sprintf("%d typical nodes", f.on)
		if f.nodes != "" {
			on = f.nodes
		}
		w.Printf("E(Y) for a %g s task on %s: %.4g failures\n", r.Task, on, float64(*r.Expected))
	}
	return w.Err()
}

func runGoogleFailures(cmd *cobra.Command, path string, asJSON bool) error {
	stats, err := interval.ReadGoogle(path)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), stats)
	}
	w := output.NewWriter(cmd.OutOrStdout())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "priority\ttasks\tfailures\tMNOF\tMTBF (s)\tevict\tfail\tkill\tlost\tfinish\t")
	for _, s := range stats {
		e := s.Ends
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.4f\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", s.Priority, s.Tasks, s.Failures, s.MNOF, float64(s.MTBF),
			e["evict"], e["fail"], e["kill"], e["lost"], e["finish"])
	}
	tw.Flush()
	return w.Err()
}
