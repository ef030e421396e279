package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/report"
	"github.com/ckpt-hpc/ckpt/reservation"
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

// writePage writes an HTML page to path, leaving no partial file on error.
func writePage(path string, page report.Page) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := page.WriteHTML(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
