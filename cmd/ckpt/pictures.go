package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/memplan"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// addPictureFlags defines --plot FILE.svg|.png and --html FILE.html.
func addPictureFlags(fl *pflag.FlagSet, plotPath, htmlPath *string, what string) {
	fl.StringVar(plotPath, "plot", "", "draw "+what+" to FILE (.svg or .png)")
	fl.StringVar(htmlPath, "html", "", "write a self-contained HTML page (picture and tables) to FILE")
}

// checkPictureFlags refuses a --plot file of another extension before any
// work is done.
func checkPictureFlags(plotPath string) error {
	if plotPath == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(plotPath)) {
	case ".svg", ".png":
		return nil
	}
	return usagef("--plot %q: want a .svg or .png file", plotPath)
}

func writePlanPictures(plotPath, htmlPath string, law distribution.Distribution, res *reservation.Result) error {
	if plotPath != "" {
		if err := reservation.PlotPlan(plotPath, law, res); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := reservation.PlanPage(law, res)
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}

// removePartial removes what a failed write left at path when it is a
// regular file: never a device (--html /dev/full), a pipe or a directory.
func removePartial(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		os.Remove(path)
	}
}

// writePage writes an HTML page to path, leaving no partial file on error.
func writePage(path string, page report.Page) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := page.WriteHTML(f); err != nil {
		f.Close()
		removePartial(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// writeAdvicePictures draws the plans of `ckpt interval` (and the failure
// law of its trace, fd, when there is one).
func writeAdvicePictures(plotPath, htmlPath string, a interval.Advice, source string, fd *interval.FailureData) error {
	if plotPath != "" {
		if err := interval.PlotAdvice(plotPath, a, fd); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := interval.AdvicePage(a, source, fd)
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}

// writeProfilePictures draws a plan of `ckpt reserve --profile/--tasks`:
// memory over time with each reservation as a time × memory box.
func writeProfilePictures(plotPath, htmlPath string, src *profile.Source, plan *memplan.MemPlan, tau float64) error {
	if plotPath != "" {
		if err := memplan.PlotProfile(plotPath, src.App, plan, tau); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := memplan.ProfilePage(src.App, plan, tau, src.Desc)
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}

// writeChainPictures draws a chain's reservations on a time line, up to
// now.
func writeChainPictures(plotPath, htmlPath string, st *slurm.State, cs slurm.ChainStatus) error {
	now := time.Now()
	if plotPath != "" {
		if err := slurm.PlotChain(plotPath, st, now); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := slurm.ChainPage(st, cs, now)
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}
