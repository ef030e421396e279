package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/interval"
)

func newFailuresCmd() *cobra.Command {
	var req interval.StatsRequest
	var asJSON bool
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
			req.Path = args[0]
			rep, err := interval.RunStats(cmd.Context(), req)
			if name, ue := flagOfField(err, map[string]string{"path": "PATH"}); name != "" {
				ue.Field = name
			}
			return printer(cmd, asJSON, map[string]string{"task_s": "task"})(rep, err)
		},
	}
	fl, r := cmd.Flags(), &req
	fl.StringVar(&r.Format, "format", "", "fta or google (default: fta for a folder or *event_trace*, google otherwise)")
	durationVar(fl, &r.Task, "task", "", "task length for E(Y) (a duration: 3600, 1h, 01:00:00)")
	parsedVar(fl, &r.Nodes, "nodes", "", "comma-separated nodes the task runs on (FTA names or ids)", func(v string) ([]string, error) { return strings.Split(v, ","), nil })
	fl.IntVar(&r.On, "on", 0, "or: the number of typical nodes the task runs on")
	addSeedFlag(fl, &r.Seed, 1)
	addJSONFlag(fl, &asJSON)
	return cmd
}
