package main

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/runner"
)

// checkPictures refuses bad --plot and --timeline values before any run.
func (f *iosimFlags) checkPictures(opt iosim.Options) error {
	if err := checkPictureFlags(f.plotPath); err != nil {
		return err
	}
	if f.timeline == "" {
		return nil
	}
	if f.plotPath == "" && f.htmlPath == "" {
		return usagef("--timeline %q: draws into --plot or --html; give one", f.timeline)
	}
	_, to, err := iosim.ParseWindow(f.timeline, opt.Skip)
	if err != nil {
		return usagef("--timeline: %v", err)
	}
	if end := opt.Span - opt.Skip; to > end {
		return usagef("--timeline %q ends after the runs stop (--span − --skip = %gs)", f.timeline, end)
	}
	return nil
}

// writeRunPictures writes `iosim run --plot/--html`, with the timelines of
// the first trial when --timeline is given.
func (f *iosimFlags) writeRunPictures(cmd *cobra.Command, c iosim.Config, sts []iosim.Strategy, opt iosim.Options, rep iosim.RunReport) error {
	if f.plotPath == "" && f.htmlPath == "" {
		return nil
	}
	var tls []iosim.Timeline
	if f.timeline != "" {
		from, to, err := iosim.ParseWindow(f.timeline, opt.Skip)
		if err != nil {
			return usagef("--timeline: %v", err)
		}
		o := opt
		o.Seed = runner.Seed(f.seed, 0, 0) // the first trial's job list and failures
		if tls, err = iosim.Timelines(cmd.Context(), &c, sts, o, from, to); err != nil {
			return simError(err)
		}
	}
	if f.plotPath != "" {
		if err := iosim.PlotRun(f.plotPath, rep, tls); err != nil {
			return err
		}
	}
	if f.htmlPath == "" {
		return nil
	}
	page, err := iosim.RunPage(rep, tls)
	if err != nil {
		return err
	}
	return writePage(f.htmlPath, page)
}
