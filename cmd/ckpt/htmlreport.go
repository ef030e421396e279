package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/report"
)

func newReportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Gather the reproductions of a results folder into one self-contained HTML page",
		Long: `Read a results folder written by "ckpt repro" (one reproduction's folder, or a
folder of them) and write one HTML file with everything inlined (SVG figures,
style sheet; no network, no external file): a summary of every reproduction,
then per paper its comparisons.csv (ours, the paper's, the delta; rows beyond
the reproduction's tolerance highlighted), every figure, and FINDINGS.md
(the folder's own copy, else the one built into ckpt).`,
		Example: `  ckpt repro all --quick --out results    # writes results/report.html too
  ckpt report results --out results.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := report.WriteFile(args[0], out, reproductions.ReportOptions())
			if err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "report: %s\n", path)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output HTML file (default DIR/report.html)")
	return cmd
}
