package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/memplan"
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

// pictured is a report with a picture and an HTML page.
type pictured interface {
	Plot(path string) error
	Page() (report.Page, error)
}

// writePictures draws a report to --plot and writes its page to --html
// (each skipped when its path is "").
func writePictures(plotPath, htmlPath string, rep pictured) error {
	if plotPath != "" {
		if err := rep.Plot(plotPath); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := rep.Page()
	if err != nil {
		return err
	}
	return writePage(htmlPath, page)
}

// writePlanPictures draws the plan of `ckpt reserve` (its report's picture).
func writePlanPictures(plotPath, htmlPath string, rep *reservation.Report) error {
	return writePictures(plotPath, htmlPath, rep)
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

// writeProfilePictures draws a plan of `ckpt reserve --profile/--tasks`:
// memory over time with each reservation as a time × memory box.
func writeProfilePictures(plotPath, htmlPath string, rep *memplan.Report) error {
	return writePictures(plotPath, htmlPath, rep)
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
